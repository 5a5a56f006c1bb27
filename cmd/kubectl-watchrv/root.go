package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/watchrv/kubectl-watchrv/internal/text"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/metrics"
	"github.com/watchrv/kubectl-watchrv/pkg/render"
	"github.com/watchrv/kubectl-watchrv/pkg/servers"
	"github.com/watchrv/kubectl-watchrv/pkg/sweep"
)

// RootOptions holds what every subcommand shares: the standard kubectl flags,
// the streams, and --no-color.
type RootOptions struct {
	ConfigFlags *genericclioptions.ConfigFlags
	genericiooptions.IOStreams
	NoColor bool
	// Verbosity is -v=N (bare -v: 6); Verbose, whether the command shows
	// its own steps (N >= 1). See verbosity.go.
	Verbosity int
	Verbose   bool

	// ledger counts every request of the run (apiclient.Ledger): the -v
	// lines, the cost line at the end and every report's "cost".
	ledger *apiclient.Ledger

	// credentials runs the kubeconfig's exec plugin once, bounded; runCtx
	// (the run's signal context) ends its wait on Ctrl-C.
	credentials credentialGuard
	runCtx      context.Context
	// server is serverName's text, read once (serverOnce); serverHost
	// its host:port ("" when unknown).
	server     string
	serverHost string
	serverOnce sync.Once

	// running is the command being run (set before it runs): what its
	// advice may tell the user to type depends on it (takesName).
	running *cobra.Command
	// namespaceNoted: the cluster-scoped resources whose ignored -n was
	// said (noteNamespaceIgnored).
	namespaceNoted map[string]bool
	// discoveryPartial: --all read part of discovery only (the failed
	// group versions' resources are missing): the run is partial
	// (allOutcome).
	discoveryPartial error
}

// takesName is whether the running command takes a NAME argument, as its
// usage line says (list and watch: "RESOURCE [NAME]").
func (o *RootOptions) takesName() bool {
	return o.running != nil && strings.Contains(o.running.Use, "[NAME]")
}

// userAgent lets an API server's audit log tell this plugin's requests apart.
func userAgent() string { return "kubectl-watchrv/" + version }

func newRootCommand(streams genericiooptions.IOStreams) (*cobra.Command, *RootOptions) {
	o := &RootOptions{
		ConfigFlags: genericclioptions.NewConfigFlags(true),
		IOStreams:   streams,
		ledger:      apiclient.NewLedger(),
	}
	o.ConfigFlags.WrapConfigFn = func(c *rest.Config) *rest.Config {
		c.UserAgent = userAgent()
		ctx := o.runCtx
		if ctx == nil {
			ctx = context.Background()
		}
		return o.credentials.wrap(ctx, apiclient.Wrap(c, o.ledger, o.credentials.reauthenticate(ctx)))
	}
	o.traceRequests()
	cmd := &cobra.Command{
		Use:   "kubectl-watchrv",
		Short: "See what List and Watch really do with resourceVersion",
		Long: `kubectl watchrv makes Kubernetes List/Watch resourceVersion behavior visible.

Use it when an informer relists in a loop, a watch says "too old resource
version", or a list says "Too large resource version". It only reads
(get, list, watch): it never changes anything in the cluster.

` + exitCodesHelp,
		Example: `  # The RV a list returns, and what a watch from it does
  kubectl watchrv list configmaps -n demo

  # How far back a watch can start, and who answers 410
  kubectl watchrv probe configmaps -n demo

  # Watch from an RV, reconnecting as an informer does, with a gap report
  kubectl watchrv watch configmaps -n demo --rv list --follow

  # What an error means, with the numbers and the fix
  kubectl watchrv explain-error 'too old resource version: 213 (534)'

  # The List/Watch load of each API server now, per resource
  kubectl watchrv top --once`,
		Annotations: map[string]string{
			cobra.CommandDisplayNameAnnotation: "kubectl watchrv",
		},
		SilenceUsage:  true,
		SilenceErrors: true,
		// Every subcommand inherits it (none has its own): a -n that is no
		// namespace name is refused here, before any command reads
		// discovery or sends a request, the same for every command.
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			o.running = cmd
			if strings.HasPrefix(cmd.Name(), "__complete") {
				return nil
			}
			if err := o.validateRequestTimeout(); err != nil {
				return err
			}
			// Before any step runs aside (see serverName).
			o.serverOnce.Do(o.noteServerName)
			return o.validateGivenNamespace()
		},
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
	if f := cmd.PersistentFlags().Lookup("request-timeout"); f != nil {
		// kubectl's forms (30s, 30 for seconds, 0 for no limit), in the
		// range every duration flag has (rangeRequestTimeout).
		f.Usage = rangeRequestTimeout.help("How long to wait for an answer to a single request before giving up: a number and a unit (1s, 2m, 3h), or a number of seconds")
	}
	cmd.PersistentFlags().BoolVar(&o.NoColor, "no-color", false, "Never color the output (color is also off for NO_COLOR and when stdout is not a terminal)")
	o.addVerbosityFlags(cmd.PersistentFlags())
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageErrorf(c, "%v"+kubectlHabit(c, err), flagError(err))
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
	// cobra's own help command, with the exit codes every --help lists
	// (fresh user try 12: "help --help" had none).
	cmd.SetHelpCommand(&cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		Long: `Help provides help for any command in the application.
Simply type kubectl watchrv help [path to command] for full details.

` + exitCodesHelp,
		RunE: func(c *cobra.Command, args []string) error {
			target, _, err := c.Root().Find(args)
			if target == nil || err != nil || target == c.Root() && len(args) > 0 {
				// An unknown topic is bad input, as an unknown command
				// is (fresh user try 15: the root's help, exit 0).
				hint := "run 'kubectl watchrv help' for the commands"
				if s := c.Root().SuggestionsFor(args[0]); len(s) > 0 {
					hint = fmt.Sprintf("did you mean %q? (%s)", s[0], hint)
				}
				return usageErrorf(c, "unknown help topic %q: %s", strings.Join(args, " "), hint)
			}
			target.InitDefaultHelpFlag()
			return target.Help()
		},
	})
	registerCompletions(cmd, o)
	return cmd, o
}

// Printer builds the printer of one run from its validated -o: for -o
// name and the templates, with cli-runtime's printer (a template file that
// can no longer be read fails at the first document, as bad input).
func (o *RootOptions) Printer(out outputChoice) *render.Printer {
	p := render.NewPrinter(o.Out, o.ErrOut, out.format, o.NoColor).WithCost(o.ledger.Cost).WithRunClock(o.ledger.Elapsed)
	if out.flags == nil {
		return p
	}
	p.NoHeaders = out.flags.noHeaders
	kind, rp, err := out.flags.resolve()
	switch {
	case err != nil:
		p.UseDocumentPrinter(render.FormatTemplate, render.FailingPrinter(err))
	case rp != nil:
		p.UseDocumentPrinter(kind, rp)
	}
	return p
}

// restConfig is the rest.Config of the standard kubectl flags. One rule
// for every command: a kubeconfig that cannot be loaded or used is bad
// input (exit 2), whichever step finds it; the server (unusableServer) and
// a value it would send as a header (unsendableHeaderValue) are checked
// here, before any request.
func (o *RootOptions) restConfig() (*rest.Config, error) {
	cfg, err := o.ConfigFlags.ToRESTConfig()
	if err != nil {
		return nil, o.kubeconfigError(err)
	}
	if err := o.unusableServer(cfg); err != nil {
		return nil, err
	}
	if err := unsendableHeaderValue(cfg); err != nil {
		return nil, err
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

// targetOf is the collection of res a run reads: in the namespace of -n
// or of the kubeconfig's context when res is namespaced and -A was not
// given. The namespace is read, and checked, only then: -A and a
// cluster-scoped resource never depend on it (adversary try 19: a context
// namespace that is no DNS label refused -A, the fix its own error gave).
func (o *RootOptions) targetOf(res apiclient.Resource, allNamespaces bool) (apiclient.Target, error) {
	t := apiclient.Target{Resource: res}
	if !res.Namespaced || allNamespaces {
		return t, nil
	}
	ns, err := o.Namespace()
	if err != nil {
		return apiclient.Target{}, err
	}
	t.Namespace = ns
	return t, nil
}

// Namespace returns the namespace from -n or the kubeconfig context,
// checked: it becomes a segment of every request path. Commands read it
// through targetOf, where a target needs it.
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

// redacted is err with its text passed through redact.
type redacted struct {
	err    error
	redact func(string) string
}

func (r redacted) Error() string { return r.redact(r.err.Error()) }

func (r redacted) Unwrap() error { return r.err }

// run executes the command line and returns the process exit code. Every
// error is printed as one line; no panic ever reaches the user as a stack.
// Out and ErrOut become the one sanitizer (render.TerminalWriter) before
// anything is written: reports, cobra's help and usage, the error line,
// "interrupted" and the panic line all show what came from outside (a
// server's message, a name, a log line) with its control bytes escaped.
func run(args []string, streams genericiooptions.IOStreams) (code int) {
	out, errOut := render.NewTerminalWriter(streams.Out), render.NewTerminalWriter(streams.ErrOut)
	streams.Out, streams.ErrOut = out, errOut
	defer func() { _, _ = out.Flush(), errOut.Flush() }()
	cmd, o := newRootCommand(streams)
	cmd.SetArgs(verbosityArgs(args))
	// A closed terminal (SIGHUP) and Ctrl-\ (SIGQUIT) end the run as Ctrl-C
	// does: what was measured is printed, a credential plugin is stopped,
	// and no Go stack is dumped (Go's default for SIGQUIT).
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	defer stop()
	// The requests the signal cuts are said apart in the run's cost.
	o.ledger.CutBy(ctx)
	// The command's own context: when it returns, the requests it left in
	// flight (a read beside a list that failed: /version, /metrics) are
	// cancelled before the account is settled, so that their -v lines say
	// the plugin cancelled them, never "no answer" of a server that may
	// have answered at once (adversary try 16, A7).
	cmdCtx, stopRequests := context.WithCancel(ctx)
	defer stopRequests()
	// One run's side reads of /metrics: a server whose /metrics gave no
	// answer is not asked again in the run (metrics.WithSideReads).
	cmdCtx = metrics.WithSideReads(cmdCtx)
	// And of the per-server reads: a server that gave no answer is not
	// asked again (servers.WithSilentServers).
	cmdCtx = o.countRetryWaits(servers.WithSilentServers(cmdCtx))
	o.runCtx = cmdCtx
	// A credential plugin still running when the run ends (Ctrl-C, a
	// watch's --timeout) does not outlive it, whatever path returned.
	defer o.credentials.stopIfRunning()
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(streams.ErrOut, "error: internal error: %v (please report it)\n", r)
			code = ExitInternal
		}
	}()
	err := parseErrorAsUsage(cmd, cmd.ExecuteContext(cmdCtx))
	stopRequests()
	if len(args) == 0 || !strings.HasPrefix(args[0], "__complete") {
		// Not under a shell's completion, whose stderr is the user's prompt.
		// Settle first: every request counted has had its -v line.
		o.ledger.Settle()
		o.Printer(outputChoice{}).CostLine(o.ledger.Cost())
	}
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
	// The kubeconfig's URLs and secrets are redacted in every error line,
	// whichever step quoted them. A run where no server could be
	// measured for want of a connection says the connection's fix.
	sweep.FixBy(err, render.ConnectionFix)
	fmt.Fprintln(streams.ErrOut, text.Shorten("error: "+text.Inline(o.withRetryWaits(o.redactKubeconfig(withoutRetryAdvice(err)), err)), text.MaxLine))
	return exitCode(err)
}
