package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/probe"
	"github.com/watchrv/kubectl-watchrv/pkg/render"
	"github.com/watchrv/kubectl-watchrv/pkg/servers"
	"github.com/watchrv/kubectl-watchrv/pkg/suggest"
)

// ProbeOptions finds how far back a watch can start, per resource.
type ProbeOptions struct {
	*RootOptions
	serversFlags

	resourceScope
	Verify      bool
	Future      bool
	FutureAhead uint64
	Interval    time.Duration
	Duration    time.Duration
	MaxRequests int
	QPS         float64
	ProbeWait   time.Duration
	outputFlags
	Metrics bool
	// suggest is the user's context, which every suggested command carries.
	suggest suggest.Context
}

func newProbeCommand(root *RootOptions) *cobra.Command {
	return probeCommand(&ProbeOptions{RootOptions: root})
}

// probeCommand wires the command and its flags to o (tests build o themselves).
func probeCommand(o *ProbeOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "probe (RESOURCE | --all)",
		Short: "Find how far back a watch can start: the oldest RV, the window width, and who answers 410",
		Long: `Find, in a handful of requests, the oldest resourceVersion from which a watch
on RESOURCE still starts on the API server you reach, the window's width in
RVs, and who answers "410 Expired" below it: the API server's watch cache
(its message names the oldest RV) or storage directly (etcd, or a shim such
as kine: the watch cache is off for the resource; the bound is storage's
compaction, or a change a watch from below it loses). A controller that
reconnects from an RV older than this relists everything.

Each probe is one watch from an exact RV, read until its first event, an
error or --probe-wait, and closed: it never drains a replay. Only list and
watch requests are sent, at most --max-requests per resource, at most --qps
per second; a 429 is waited out (Retry-After), and any answer other than
"started" or "410" is retried and never moves the bound. Of a resource whose
group is not built in, whether this API server serves it itself is what
list knows of it: the server facts list keeps (10 minutes, --cache-dir),
else /version and a few families of /metrics, read as list reads them.

--all reads the current RV once for the resources of the cluster's own
revision and sends one watch from RV 1 to each whose watch cache answers
(its 410 names the bound): about one request per resource, printed at
the end.

--interval with --duration probes again and again and reports how fast the
window moves and how deep it is in seconds: the longest disconnect a
controller can survive without a relist.

` + exitCodesHelp,
		Example: `  # The window of configmaps, with every request shown, and the bound proven
  kubectl watchrv probe configmaps -n demo -v --verify

  # Every resource that supports list and watch, narrowest window first
  kubectl watchrv probe --all

  # How the window of pods moves over a minute (depth in seconds)
  kubectl watchrv probe pods -A --interval 10s --duration 1m

  # What this server does with an RV ahead of it (list: 504; watch: held)
  kubectl watchrv probe cm -n demo --future -o json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(cmd, args); err != nil {
				return err
			}
			if err := o.Validate(cmd, args); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
		ValidArgsFunction: o.completeResource,
	}
	f := cmd.Flags()
	f.BoolVar(&o.All, "all", false, "Probe every resource that supports list and watch, one at a time")
	f.BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, "Watch across all namespaces (the window is per resource type either way)")
	f.BoolVar(&o.Verify, "verify", false, "Prove the bound: one watch from the oldest RV must start, one from the RV below must fail (2 more requests)")
	f.BoolVar(&o.Future, "future", false, "Also show what the server does with an RV ahead of it: a list (504 TooLarge, with the time it took) and a watch (held silently, or ended)")
	f.Uint64Var(&o.FutureAhead, "future-ahead", 1000000, "How far past the current RV --future asks")
	f.DurationVar(&o.Interval, "interval", 0, rangeProbeInterval.help("Probe again every D (with --duration) and report how the window moves"))
	f.DurationVar(&o.Duration, "duration", 0, rangeProbeDuration.help("How long to keep probing with --interval: no round starts after it, and a round still running one --interval after it is cut"))
	f.IntVar(&o.MaxRequests, "max-requests", 64, "Most requests sent for one resource (per --all row, per --interval round)")
	f.Float64Var(&o.QPS, "qps", 5, "Most requests per second that probe sends")
	f.DurationVar(&o.ProbeWait, "probe-wait", probe.DefaultTryWait, rangeProbeWait.help("How long an accepted watch that replays nothing is read before it counts as started"))
	o.outputFlags = newOutputFlags(render.FormatJSON, render.FormatYAML)
	o.wideIsDefault = true
	o.addOutputFlag(f)
	addMetricsFlag(f, o)
	o.addServersFlags(f, true)
	return cmd
}

// Complete fills in the namespace and parses the per-server flags.
func (o *ProbeOptions) Complete(cmd *cobra.Command, args []string) error {
	o.completeServers(cmd)
	o.suggest = suggest.From(cmd.Flags(), os.Getenv)
	return o.completeScope(&o.resourceScope, args)
}

// Validate rejects bad flags with a one-line error.
func (o *ProbeOptions) Validate(cmd *cobra.Command, args []string) error {
	if err := o.validateDurations(cmd); err != nil {
		return err
	}
	if err := o.validateOutput(); err != nil {
		return usageErrorf(cmd, "%v", err)
	}
	if err := o.validateServers(cmd, o.serversConflict()); err != nil {
		return err
	}
	if err := o.validateScope(cmd, args, "probes", o.QPS); err != nil {
		return err
	}
	switch {
	case o.All && (o.Interval > 0 || o.Duration > 0):
		return usageErrorf(cmd, "--interval and --duration follow one resource: give a RESOURCE instead of --all")
	case o.All && o.Future:
		return usageErrorf(cmd, "--future takes about 5 seconds per resource: give a RESOURCE instead of --all")
	case (o.Interval > 0) != (o.Duration > 0):
		return usageErrorf(cmd, "--interval and --duration go together: for example --interval 5s --duration 1m")
	case o.Interval > 0 && o.Duration < 2*o.Interval:
		return usageErrorf(cmd, "--duration %s must cover at least two --interval %s rounds to measure a rate: give for example --duration %s", o.Duration, o.Interval, 4*o.Interval)
	case o.Interval > 0 && (o.Verify || o.Future):
		// Each round would spend their requests (and --future's seconds),
		// and a series shows neither (fresh user try 51 F9).
		return usageErrorf(cmd, "--%s checks one probe, not a series: run it without --interval and --duration", map[bool]string{true: "verify", false: "future"}[o.Verify])
	case o.MaxRequests < 2:
		return usageErrorf(cmd, "--max-requests %d is too small: a probe needs at least 2 requests (the current RV and one watch); default 64", o.MaxRequests)
	case o.FutureAhead == 0:
		return usageErrorf(cmd, "--future-ahead must be at least 1")
	case o.FutureAhead > maxFutureAhead:
		return usageErrorf(cmd, "--future-ahead %d is too far: past the current RV it would not fit in a 64-bit resourceVersion; use at most %d (default 1000000)", o.FutureAhead, uint64(maxFutureAhead))
	}
	return nil
}

// validateDurations checks each duration flag against its range (0 is an
// --interval or --duration not given).
func (o *ProbeOptions) validateDurations(cmd *cobra.Command) error {
	if o.Interval != 0 {
		if err := rangeProbeInterval.check(cmd, o.Interval); err != nil {
			return err
		}
	}
	if o.Duration != 0 {
		if err := rangeProbeDuration.check(cmd, o.Duration); err != nil {
			return err
		}
	}
	return rangeProbeWait.check(cmd, o.ProbeWait)
}

// maxFutureAhead bounds --future-ahead so that current + ahead never wraps
// around 2^64 (an etcd revision is an int64, so no current RV comes near).
const maxFutureAhead = 1 << 62

// windowOptions are the per-resource options shared by every mode.
func (o *ProbeOptions) windowOptions(b *apiclient.Budget) probe.Options {
	return probe.Options{
		Try:         o.watchAnswerBound(probe.TryOptions{Wait: o.ProbeWait}),
		Search:      probe.SearchOptions{Budget: b},
		Verify:      o.Verify,
		Future:      o.Future,
		FutureAhead: o.FutureAhead,
		FutureHold:  2 * time.Second,
	}
}

// watchAnswerBound is opts with the bound of a probe's watch for its
// answer to begin: --request-timeout where given (and so named in the
// error of a watch it cut), else the probe's own (probe.TryOptions'
// defaults), which --request-timeout sets: "raise --request-timeout", the
// fix of any request without an answer, holds for it. probe and
// explain-error --check (its watch is a probe's) bound it alike.
func (o *RootOptions) watchAnswerBound(opts probe.TryOptions) probe.TryOptions {
	if cfg, err := o.ConfigFlags.ToRESTConfig(); err == nil && cfg.Timeout > 0 {
		opts.HeaderTimeout, opts.HeaderBound = cfg.Timeout, "--request-timeout"
	}
	return opts
}

// Run probes and reports.
func (o *ProbeOptions) Run(ctx context.Context) error {
	p := o.Printer(o.Output)
	if o.serversOn() {
		return o.runServers(ctx, p)
	}
	client, err := o.Client()
	if err != nil {
		return err
	}
	budget := apiclient.NewBudget(o.MaxRequests, o.QPS)
	if o.All {
		return o.runAll(ctx, p, client, budget)
	}
	t, err := o.oneTarget(ctx, &o.resourceScope)
	if err != nil {
		return err
	}
	if o.Interval > 0 {
		return o.runInterval(ctx, p, client, budget, t)
	}
	m0 := o.readMetrics(ctx, client, budget)
	w := probe.Run(ctx, client, t, o.windowOptions(budget))
	if w.Err != nil && w.Search == nil {
		return o.windowError(w)
	}
	report := render.NewProbeReport(w, probe.Reason(w.Err)).WithContext(o.suggest)
	report.Metrics = metricsReport(m0, o.readMetrics(ctx, client, budget), w)
	if report.NeedsServer() && ctx.Err() == nil {
		report.Server = o.ownerFacts(ctx, p, client, t.Resource, report.CurrentResourceVersion)
	}
	if err := p.Probe(report, o.Verbose); err != nil {
		return err
	}
	noteMixedServers(p, servers.SignsInWindow(w), report.ServersCommand())
	if w.Err != nil {
		return o.windowError(w)
	}
	return verifyError(w.VerifyFailure())
}

// verifyError names --verify in a failed verification (probe.VerifyError).
func verifyError(err error) error {
	var verify *probe.VerifyError
	if errors.As(err, &verify) {
		return withCode(ExitFailure, fmt.Errorf("--verify failed: %s: run probe again", verify.Reason))
	}
	return withCode(ExitFailure, err)
}

// outOfOrderError is a probe whose RVs went back (probe.OutOfOrderError)
// with its fix, exit 1; other errors as they are.
func outOfOrderError(err error) error {
	var back *probe.OutOfOrderError
	if errors.As(err, &back) {
		return withCode(ExitFailure, fmt.Errorf("%w: probe each API server on its own with --servers (or --endpoints) to see which answers what", err))
	}
	return err
}

// budgetError names --max-requests in a probe whose budget ran out
// (probe.BudgetError); it keeps the error chain for the exit code.
type budgetError struct{ *probe.BudgetError }

func (e budgetError) Error() string {
	return fmt.Sprintf("the request budget (--max-requests %d) ran out before the bound of %s was found%s: raise --max-requests", e.MaxRequests, e.Resource, e.Where())
}

func (e budgetError) Unwrap() error { return e.BudgetError }

// windowError maps a probe's failure (probe.Result.Failure) to its exit
// code.
func (o *ProbeOptions) windowError(w *probe.Result) error {
	err := w.Failure(o.MaxRequests)
	var budget *probe.BudgetError
	var interrupted *probe.InterruptedError
	var forbidden *probe.ForbiddenError
	var back *probe.OutOfOrderError
	switch {
	case errors.As(err, &budget):
		return withCode(ExitBudget, budgetError{budget})
	case errors.As(err, &back):
		return outOfOrderError(err)
	case errors.Is(err, probe.ErrOpaqueRV), errors.As(err, &interrupted):
		return withCode(ExitFailure, err)
	case errors.As(err, &forbidden):
		// The one describer names the server, the request and the
		// status, as every command's 403 line does (fresh user try 34 F4).
		return withCode(ExitForbidden, o.requestError(forbidden.Err, "list and watch", w.Target.Resource.Name()))
	}
	return o.requestError(err, "list and watch", w.Target.Resource.Name())
}
