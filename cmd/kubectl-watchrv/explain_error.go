package main

import (
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"

	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/audit"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/render"
	"github.com/watchrv/kubectl-watchrv/pkg/suggest"
)

// explainMaxMessageBytes caps a message read from stdin; a longer input is a log
// and is scanned with -f -.
const explainMaxMessageBytes = 1 << 20

// ExplainErrorOptions explains one error message, or every error of a log.
type ExplainErrorOptions struct {
	*RootOptions
	serversFlags

	Filename string
	outputFlags
	Operation string
	RV        string
	Check     bool
	Resource  string
	// resourceSet: --resource was given (the user named the error's
	// resource), not its default.
	resourceSet bool
	// typeFits are the resources discovery serves with the text's Go
	// type (checkTarget; nil when it names none or discovery was not
	// read), for the note that says why the default was asked.
	typeFits []string

	message string
	fromArg bool   // the message came as arguments, not on stdin
	label   string // the log's name in the output
	log     io.Reader
	closer  io.Closer
}

func newExplainErrorCommand(root *RootOptions) *cobra.Command {
	return explainErrorCommand(&ExplainErrorOptions{RootOptions: root})
}

// explainErrorCommand wires the command and its flags to o (tests build o themselves).
func explainErrorCommand(o *ExplainErrorOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "explain-error [MESSAGE | -]",
		Short: "Tell a too-old (Expired) from a too-new (TooLarge) resourceVersion error, with the numbers and a fix",
		Long: `Read an error and say which resourceVersion problem it is:

  Expired       the RV is too old (HTTP 410): it fell out of the API server's
                watch cache window, or etcd compacted it (watch with the cache
                off, exact-RV list, expired continue token).
  TooLarge      the RV is too new (504 "Too large resource version"): it comes
                from another API server, another cluster, or before an etcd
                restore, or the watch cache is still catching up.
  Other         a lookalike that is not an RV problem: a timeout, 429
                throttling, a 5xx, a watch that simply ended, an invalid RV
                parameter, a broken connection.
  Unrecognized  nothing known in the text (never forced into a class).

It prints the verdict first (class, sub-kind, confidence), then what
happened, why, the numbers (requested, oldest servable, current RV and the
gap), what client-go does about it on its own, and the fix.

The error is found wherever it sits in the text: a bare server message, a
JSON Status or watch ERROR event, kubectl's "Error from server (...)", a
client-go reflector or controller-runtime log line, a Python, Java (official
or fabric8) or JavaScript client exception, an HTTP status line, or etcd's
own message.

Input: the MESSAGE argument; or stdin (with "-", or when stdin is piped and
no MESSAGE is given); or -f FILE for a whole log, where every error found is
grouped by kind, counted, and explained once, with its line numbers.

Exit codes: 0 something was recognized (any class, Other included),
3 nothing was recognized, 2 bad input (no message, empty stdin, missing
file). With --check, the exit codes of a failed request apply (4
unreachable, 6 unauthorized, 7 forbidden, ...).`,
		Example: `  # One message, as the server or a client printed it
  kubectl watchrv explain-error 'too old resource version: 214 (257)'
  kubectl watchrv explain-error "Error from server (Timeout): Timeout: Too large resource version: 9000, current: 8990"

  # From stdin, e.g. a Python traceback copied to the clipboard
  pbpaste | kubectl watchrv explain-error

  # Every resourceVersion error of a controller's log, grouped by kind
  kubectl logs deploy/my-controller | kubectl watchrv explain-error -f -
  kubectl watchrv explain-error -f controller.log -o json

  # Compare the error's RV with the cluster's current RV, now
  kubectl watchrv explain-error --check -n demo 'too old resource version: 214 (257)'

  # A message that names no RV: give it, and what the request was
  kubectl watchrv explain-error --rv 4521 --operation watch 'The resourceVersion for the provided watch is too old.'`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(cmd, args); err != nil {
				return err
			}
			if err := o.Validate(cmd, args); err != nil {
				return err
			}
			if err := o.openInput(cmd, args); err != nil {
				return err
			}
			if o.closer != nil {
				defer o.closer.Close()
			}
			return o.Run(cmd.Context())
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.Filename, "filename", "f", "", `A log file to scan for every resourceVersion error ("-" for stdin)`)
	o.outputFlags = newOutputFlags(render.FormatJSON, render.FormatYAML)
	o.addOutputFlag(f)
	f.StringVar(&o.Operation, "operation", "", "What the failed request was, when the message does not say: watch, streaming-list, list, list-exact or list-continue")
	f.StringVar(&o.RV, "rv", "", "The resourceVersion the failed request asked for, when the message does not say")
	f.BoolVar(&o.Check, "check", false, "Also read the cluster's current resourceVersion now and compare it with the error's (one list of one item)")
	f.StringVar(&o.Resource, "resource", "configmaps", "With --check: the resource whose current resourceVersion is read (in the current namespace)")
	o.addServersFlags(f, false)
	return cmd
}

// Validate rejects bad flag combinations with a one-line error.
func (o *ExplainErrorOptions) Validate(cmd *cobra.Command, args []string) error {
	if err := o.validateOutput(); err != nil {
		return usageErrorf(cmd, "%v", err)
	}
	if o.Filename != "" && len(args) > 0 {
		return usageErrorf(cmd, "give either a MESSAGE or -f FILE, not both")
	}
	if o.Filename != "" && (o.RV != "" || o.Operation != "" || o.Check) {
		return usageErrorf(cmd, "--rv, --operation and --check describe one message; they do not apply to a log read with -f")
	}
	switch o.Operation {
	case "", diagnose.OpWatch, diagnose.OpStreamingList, diagnose.OpList, diagnose.OpListExact, diagnose.OpListContinue:
	default:
		return usageErrorf(cmd, "--operation %q is not a request kind: use watch, streaming-list, list, list-exact or list-continue", o.Operation)
	}
	if o.RV != "" {
		if err := validateRV(cmd, "rv", o.RV); err != nil {
			return err
		}
	}
	if err := o.validateExplainServers(cmd); err != nil {
		return err
	}
	if cmd.Flags().Changed("resource") && !o.Check {
		return usageErrorf(cmd, "--resource names what --check reads: add --check")
	}
	return nil
}

// Complete parses the per-server flags; the input is opened by openInput
// once the flags are known to be valid.
func (o *ExplainErrorOptions) Complete(cmd *cobra.Command, _ []string) error {
	o.completeServers(cmd)
	o.resourceSet = cmd.Flags().Changed("resource")
	return nil
}

// openInput finds the input: -f FILE, "-", a MESSAGE, or piped stdin.
func (o *ExplainErrorOptions) openInput(cmd *cobra.Command, args []string) error {
	switch {
	case o.Filename == "-":
		o.log, o.label = o.In, "stdin"
		return nil
	case o.Filename != "":
		fi, err := os.Stat(o.Filename)
		if err == nil && fi.IsDir() {
			return usageErrorf(cmd, "-f %s is a directory: give a log file", o.Filename)
		}
		f, err := openCancellable(cmd.Context(), o.Filename)
		if err != nil {
			if cmd.Context().Err() != nil {
				return err // interrupted while a FIFO waited for its writer
			}
			return usageErrorf(cmd, "cannot read -f %s: %v", o.Filename, explainPathError(err))
		}
		o.log, o.label, o.closer = f, o.Filename, f
		return nil
	case len(args) == 1 && args[0] == "-":
		return o.readStdin(cmd)
	case len(args) > 0:
		o.message, o.fromArg = strings.Join(args, " "), true
		if strings.TrimSpace(o.message) == "" {
			return usageErrorf(cmd, "the MESSAGE is empty: pass the error text")
		}
		return nil
	case explainStdinIsTerminal(o.In):
		return usageErrorf(cmd, "no error message: pass it as an argument, pipe it on stdin, or scan a log with -f FILE")
	}
	return o.readStdin(cmd)
}

func (o *ExplainErrorOptions) readStdin(cmd *cobra.Command) error {
	if o.In == nil {
		return usageErrorf(cmd, "no stdin to read the error from")
	}
	// Ctrl-C while stdin is still open (a terminal, a pipe whose writer
	// waits): explain what was read so far, and the run exits 130.
	ctx := cmd.Context()
	b, err := io.ReadAll(io.LimitReader(diagnose.NewContextReader(ctx, o.In), explainMaxMessageBytes+1))
	if err != nil && ctx.Err() != nil {
		if strings.TrimSpace(string(b)) == "" {
			return err
		}
		o.message = string(b)
		return nil
	}
	if err != nil {
		return usageErrorf(cmd, "cannot read stdin: %v", err)
	}
	if len(b) > explainMaxMessageBytes {
		return usageErrorf(cmd, "stdin holds more than 1 MiB: to scan a whole log, use -f -")
	}
	if strings.TrimSpace(string(b)) == "" {
		return usageErrorf(cmd, "stdin is empty: pipe the error message, or pass it as an argument")
	}
	o.message = string(b)
	return nil
}

// Run diagnoses and prints.
func (o *ExplainErrorOptions) Run(ctx context.Context) error {
	p := o.Printer(o.Output)
	if o.log != nil {
		return o.runLog(ctx, p)
	}
	// A text of several lines is read line by line, as -f reads a log:
	// each line's code, RV and URL are its own request's.
	d, read := diagnose.ReadText(o.message, diagnose.Context{Operation: o.Operation, RequestedResourceVersion: o.RV})
	e := render.Explanation{Diagnosis: d}
	var checkErr error
	if o.Check {
		// Its own reads' retries, apart from any --endpoints row's.
		cctx, sw := apiclient.StartStopwatch(ctx)
		c, err := o.check(cctx, d)
		e.CheckRetryWait = apiclient.RetryWaitOf(sw)
		checkErr = err
		if err == nil || c.Resource != "" {
			// A check whose request failed still shows what it tried.
			e.Check = &c
			e.Diagnosis = diagnose.Reconcile(d, c)
		}
	}
	printed := o.printExplanation(ctx, p, e)
	if c := e.Check; printed == nil && checkErr == nil && ctx.Err() == nil && c != nil && c.RequestFrom == diagnose.RequestFromDefault && !p.Machine() {
		// Said once the run's answer is: a cut run says nothing more.
		// Whether or not a request was tried (adversary try 52 F4: a URL
		// left unread, nothing tried, and no word of why).
		why := "the text names no resource"
		switch {
		case d.Request == nil && d.Type != nil && len(o.typeFits) > 1:
			// Adversary try 51 F5: *v1.Event was "no resource".
			why = fmt.Sprintf("the text names the Go type %s, which several resources serve (%s)", d.Type, strings.Join(o.typeFits, ", "))
		case d.Request == nil && d.Type != nil:
			why = fmt.Sprintf("the text names the Go type %s, which no resource in this server's discovery has", d.Type)
		case d.RequestUnread != "":
			why = "the text's URL names no request to ask again: " + d.RequestUnread
		}
		p.Notef("Note: %s, so --check asked --resource's default (%s); give the failed request's own with --resource RESOURCE and -n NAMESPACE", why, c.Resource)
	}
	var breach *diagnose.ContractError
	if errors.As(checkErr, &breach) {
		// --check's own answer broke the List or Watch contract: that
		// gives the run its code (1), whatever the servers' rows gave
		// (adversary try 36 F4: 12 or 7 with --endpoints that failed).
		return fmt.Errorf("--check: %w", checkErr)
	}
	if printed != nil {
		return printed
	}
	// The command to scan the text as a log, as it runs when pasted: a
	// text given as an argument is not on stdin, -f - would wait on the
	// terminal (adversary try 52 F7). It reads only the text: no context
	// of the user's is carried.
	scan := "pipe the same text to: "
	file := "-"
	if o.fromArg {
		scan, file = "save the text to a file and run: ", "FILE"
	}
	if l, err := (suggest.Context{}).Command("explain-error", "", suggest.Scope{}, suggest.Flag{Name: "filename", Value: file}); err == nil {
		scan += l.String()
	}
	switch {
	// Several lines may hold several errors: say so rather than hide them.
	case read.Kinds > 1:
		p.Notef("Note: the input holds %s of %s; this explains %s/%s, the one at line %d. To see each kind, scan it as a log: %s",
			text.Count(read.Findings, "error"), text.Count(read.Kinds, "kind"), d.Class, d.Kind, read.Line, scan)
	case read.Findings > 1:
		p.Notef("Note: the input holds %s of one kind; this explains the one at line %d. To see each, scan it as a log: %s",
			text.Count(read.Findings, "error"), read.Line, scan)
	}
	if checkErr != nil {
		return fmt.Errorf("--check: %w", checkErr)
	}
	if !d.Recognized() {
		return withCode(ExitUnrecognized, errors.New("no resourceVersion-related error recognized in the input"))
	}
	return nil
}

// runLog scans the log. Interrupted (Ctrl-C, SIGTERM), it prints the
// summary of the lines read so far, says so, and the run exits 130.
func (o *ExplainErrorOptions) runLog(ctx context.Context, p *render.Printer) error {
	// A log rotated as .gz is read decompressed, as clients reads one
	// (fresh user try 22: the compressed bytes were scanned, "no
	// resourceVersion-related error found", exit 3).
	log, gz, err := audit.Decompressed(bufio.NewReader(diagnose.NewContextReader(ctx, o.log)))
	if err != nil {
		return withCode(ExitUsage, fmt.Errorf("cannot read %s: it starts as gzip, but %s", o.label, audit.DescribeEnd(err)))
	}
	// log already ends a blocked read at ctx's end: read it as it is (a
	// second context reader above the buffer could lose what the first
	// had handed over when the signal came).
	s, err := diagnose.Summarize(log, 0)
	if err != nil && gz && ctx.Err() == nil {
		// What was read is explained; the end is said in words.
		if perr := p.LogExplanation(render.LogExplanation{File: o.label, Summary: s}); perr != nil {
			return perr
		}
		return withCode(ExitUsage, fmt.Errorf("%s ended early after %s: %s", o.label, text.Count(s.Lines, "line"), audit.DescribeEnd(err)))
	}
	if err != nil && ctx.Err() != nil {
		if perr := p.LogExplanation(render.LogExplanation{File: o.label, Summary: s}); perr != nil {
			return perr
		}
		p.Notef("interrupted: the summary covers the %s read before the signal", text.Count(s.Lines, "line"))
		return err
	}
	if err != nil {
		return withCode(ExitUsage, fmt.Errorf("cannot read %s: %v", o.label, explainPathError(err)))
	}
	if err := p.LogExplanation(render.LogExplanation{File: o.label, Summary: s}); err != nil {
		return err
	}
	if !s.Recognized() {
		return withCode(ExitUnrecognized, fmt.Errorf("no resourceVersion-related error found in %s (%s)", o.label, text.Count(s.Lines, "line")))
	}
	return nil
}

// openCancellable opens a file, giving up when ctx ends: opening a FIFO
// waits until a writer opens it, and Ctrl-C must still end the run.
func openCancellable(ctx context.Context, name string) (*os.File, error) {
	type opened struct {
		f   *os.File
		err error
	}
	ch := make(chan opened, 1)
	go func() {
		f, err := os.Open(name)
		ch <- opened{f, err}
	}()
	select {
	case r := <-ch:
		return r.f, r.err
	case <-ctx.Done():
		go func() { // close it if the open ever completes
			if r := <-ch; r.f != nil {
				r.f.Close()
			}
		}()
		return nil, ctx.Err()
	}
}

// explainStdinIsTerminal reports whether r is a terminal (so nothing was piped in).
func explainStdinIsTerminal(r io.Reader) bool { return render.IsTerminal(r) }

// explainPathError drops the "open FILE:" prefix the message already has.
func explainPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
