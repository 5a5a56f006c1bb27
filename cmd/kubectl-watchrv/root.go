package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/watchrv/kubectl-watchrv/internal/text"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/render"
)

// RootOptions holds what every subcommand shares: the standard kubectl flags,
// the streams, and --no-color.
type RootOptions struct {
	ConfigFlags *genericclioptions.ConfigFlags
	genericiooptions.IOStreams
	NoColor bool
}

// userAgent lets an API server's audit log tell this plugin's requests apart.
func userAgent() string { return "kubectl-watchrv/" + version }

func newRootCommand(streams genericiooptions.IOStreams) (*cobra.Command, *RootOptions) {
	o := &RootOptions{
		ConfigFlags: genericclioptions.NewConfigFlags(true),
		IOStreams:   streams,
	}
	o.ConfigFlags.WrapConfigFn = func(c *rest.Config) *rest.Config {
		c.UserAgent = userAgent()
		return apiclient.Wrap(c)
	}
	cmd := &cobra.Command{
		Use:   "kubectl-watchrv",
		Short: "See what List and Watch really do with resourceVersion",
		Long: `kubectl watchrv makes Kubernetes List/Watch resourceVersion behavior visible.

Use it when an informer relists in a loop, a watch says "too old resource
version", or a list says "Too large resource version". It only reads
(get, list, watch): it never changes anything in the cluster.

` + exitCodesHelp,
		Annotations: map[string]string{
			cobra.CommandDisplayNameAnnotation: "kubectl watchrv",
		},
		SilenceUsage:  true,
		SilenceErrors: true,
		// Parse the global flags at the root, so that an unknown one is
		// named as such instead of swallowing the subcommand as its value.
		TraverseChildren: true,
		// With TraverseChildren, a mistyped subcommand lands here as an
		// argument of the root: refuse it instead of printing help.
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmd.Help()
			}
			hint := ""
			if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
				hint = fmt.Sprintf(": did you mean %q?", s[0])
			}
			return usageErrorf(cmd, "unknown command %q for \"kubectl watchrv\"%s", args[0], hint)
		},
	}
	cmd.SuggestionsMinimumDistance = 2
	cmd.SetIn(streams.In)
	cmd.SetOut(streams.Out)
	cmd.SetErr(streams.ErrOut)
	o.ConfigFlags.AddFlags(cmd.PersistentFlags())
	cmd.PersistentFlags().BoolVar(&o.NoColor, "no-color", false, "Never color the output (color is also off for NO_COLOR and when stdout is not a terminal)")
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		// pflag quotes the bad value whole, twice: bound it.
		return usageErrorf(c, "%v", errors.New(text.Shorten(err.Error(), 512)))
	})

	cmd.AddCommand(
		newListCommand(o),
		newWatchCommand(o),
		newProbeCommand(o),
		newStreamingCommand(o),
		newClientsCommand(o),
		newTopCommand(o),
		newExplainErrorCommand(o),
		newVersionCommand(o),
		newCompletionCommand(o),
	)
	return cmd, o
}

// Printer builds the printer of one run.
func (o *RootOptions) Printer(format string) *render.Printer {
	return render.NewPrinter(o.Out, o.ErrOut, format, o.NoColor)
}

// restConfig is the rest.Config of the standard kubectl flags. One rule
// for every command: a kubeconfig that cannot be loaded or used is bad
// input (exit 2), whichever step finds it.
func (o *RootOptions) restConfig() (*rest.Config, error) {
	cfg, err := o.ConfigFlags.ToRESTConfig()
	if err != nil {
		return nil, o.kubeconfigError(err)
	}
	return cfg, nil
}

// Client builds the API client from the standard kubectl flags, with this
// plugin's User-Agent. Building it reads the credentials (auth-provider,
// client certificate, CA): their failure is the kubeconfig's, exit 2.
func (o *RootOptions) Client() (*apiclient.Client, error) {
	cfg, err := o.restConfig()
	if err != nil {
		return nil, err
	}
	c, err := apiclient.NewClient(cfg)
	if err != nil {
		return nil, o.kubeconfigError(err)
	}
	return c, nil
}

// Namespace returns the namespace from -n or the kubeconfig context,
// checked: it becomes a segment of every request path.
func (o *RootOptions) Namespace() (string, error) {
	ns, explicit, err := o.ConfigFlags.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return "", o.kubeconfigError(err)
	}
	if err := apiclient.ValidateNamespace(ns); err != nil {
		where := "-n"
		if !explicit {
			where = "the namespace of the kubeconfig's context"
		}
		return "", withCode(ExitUsage, fmt.Errorf("%w: check %s (for example -n demo; -A reads all namespaces)", err, where))
	}
	return ns, nil
}

// defaultServer is where client-go (and so kubectl) sends requests when no
// kubeconfig was loaded at all.
const defaultServer = "http://localhost:8080"

// missingKubeconfig says why a request went to client-go's default server:
// every file KUBECONFIG names (or ~/.kube/config) is missing. kubectl skips
// missing KUBECONFIG files silently and falls back to localhost:8080, and
// the plugin keeps those semantics (a request to that address is made and
// its failure is reported with its own code, 4 when nothing listens), but
// names the missing files. "" when a kubeconfig was loaded, --kubeconfig or
// --server was given, or the server is not the default.
func (o *RootOptions) missingKubeconfig() string {
	f := o.ConfigFlags
	if (f.KubeConfig != nil && *f.KubeConfig != "") || (f.APIServer != nil && *f.APIServer != "") {
		return ""
	}
	if cfg, err := f.ToRESTConfig(); err != nil || cfg.Host != defaultServer {
		return ""
	}
	env, files := os.Getenv(clientcmd.RecommendedConfigPathEnvVar), []string{}
	if env != "" {
		files = filepath.SplitList(env)
	} else {
		files = []string{clientcmd.RecommendedHomeFile}
	}
	var missing []string
	for _, p := range files {
		if p == "" {
			continue
		}
		if _, err := os.Stat(p); err == nil {
			return ""
		}
		missing = append(missing, text.Echo(p))
	}
	if len(missing) == 0 {
		return ""
	}
	which := "KUBECONFIG names " + missing[0] + ", which does not exist"
	switch {
	case env == "":
		which = "KUBECONFIG is not set and " + missing[0] + " does not exist"
	case len(missing) > 1:
		which = "KUBECONFIG names " + strings.Join(missing, ", ") + ", none of which exists"
	}
	return fmt.Sprintf("%s: no kubeconfig was loaded, so the request went to client-go's default %s, as kubectl's would; point KUBECONFIG or --kubeconfig at your kubeconfig", which, defaultServer)
}

// kubeconfigError explains a kubeconfig that cannot be used, naming the
// contexts it has when the context is the problem.
func (o *RootOptions) kubeconfigError(err error) error {
	var contexts, servers []string
	if raw, rerr := o.ConfigFlags.ToRawKubeConfigLoader().RawConfig(); rerr == nil {
		for name := range raw.Contexts {
			contexts = append(contexts, name)
		}
		sort.Strings(contexts)
		for _, c := range raw.Clusters {
			servers = append(servers, c.Server)
		}
	}
	if f := o.ConfigFlags.APIServer; f != nil {
		servers = append(servers, *f)
	}
	return kubeconfigError(redactServers{err, servers}, contexts)
}

// redactServers is err with every server address of the kubeconfig in its
// text redacted: client-go quotes a malformed server URL whole, password
// included.
type redactServers struct {
	err     error
	servers []string
}

func (r redactServers) Error() string {
	msg := r.err.Error()
	for _, s := range r.servers {
		if s != "" {
			msg = strings.ReplaceAll(msg, s, text.RedactURL(s))
		}
	}
	return msg
}

func (r redactServers) Unwrap() error { return r.err }

// run executes the command line and returns the process exit code. Every
// error is printed as one line; no panic ever reaches the user as a stack.
func run(args []string, streams genericiooptions.IOStreams) (code int) {
	cmd, _ := newRootCommand(streams)
	cmd.SetArgs(args)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(streams.ErrOut, "error: internal error: %v (please report it)\n", r)
			code = ExitInternal
		}
	}()
	err := cmd.ExecuteContext(ctx)
	if ctx.Err() != nil {
		// One rule for every command: an interrupted run has printed what
		// it had and exits 130, whatever error the cancellation caused.
		fmt.Fprintln(streams.ErrOut, "interrupted")
		return ExitInterrupted
	}
	if err == nil {
		return ExitOK
	}
	// Bounded whatever an error quotes (a server's message, a flag
	// parser's echo of a huge value): the head and the fix at the end stay.
	fmt.Fprintln(streams.ErrOut, text.Shorten("error: "+text.OneLine(err.Error()), text.MaxLine))
	return exitCode(err)
}
