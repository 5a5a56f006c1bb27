package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sort"
	"syscall"

	"github.com/watchrv/kubectl-watchrv/internal/text"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/rest"

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
		return apiclient.NoHiddenRetries(c)
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
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageErrorf(c, "%v", err) })

	cmd.AddCommand(
		newListCommand(o),
		newWatchCommand(o),
		newProbeCommand(o),
		newStreamingCommand(o),
		newClientsCommand(o),
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

// Client builds the API client from the standard kubectl flags, with this
// plugin's User-Agent.
func (o *RootOptions) Client() (*apiclient.Client, error) {
	cfg, err := o.ConfigFlags.ToRESTConfig()
	if err != nil {
		return nil, o.kubeconfigError(err)
	}
	return apiclient.NewClient(cfg)
}

// Namespace returns the namespace from -n or the kubeconfig context.
func (o *RootOptions) Namespace() (string, error) {
	ns, _, err := o.ConfigFlags.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return "", o.kubeconfigError(err)
	}
	return ns, nil
}

// kubeconfigError explains a kubeconfig that cannot be used, naming the
// contexts it has when the context is the problem.
func (o *RootOptions) kubeconfigError(err error) error {
	var contexts []string
	if raw, rerr := o.ConfigFlags.ToRawKubeConfigLoader().RawConfig(); rerr == nil {
		for name := range raw.Contexts {
			contexts = append(contexts, name)
		}
		sort.Strings(contexts)
	}
	return kubeconfigError(err, contexts)
}

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
	fmt.Fprintln(streams.ErrOut, "error: "+text.OneLine(err.Error()))
	return exitCode(err)
}
