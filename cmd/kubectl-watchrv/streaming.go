package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/watchrv/kubectl-watchrv/internal/text"

	"github.com/spf13/cobra"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/render"
	"github.com/watchrv/kubectl-watchrv/pkg/streaming"
	"github.com/watchrv/kubectl-watchrv/pkg/sweep"
)

// StreamingOptions checks streaming lists (WatchList) per resource.
type StreamingOptions struct {
	*RootOptions

	resourceScope
	Deadline time.Duration
	QPS      float64
	outputFlags
}

func newStreamingCommand(root *RootOptions) *cobra.Command {
	return streamingCommand(&StreamingOptions{RootOptions: root})
}

// streamingCommand wires the command and its flags to o (tests build o themselves).
func streamingCommand(o *StreamingOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "streaming (RESOURCE | --all)",
		Short: "Check that a resource serves streaming lists (WatchList) and what a client-go >= 1.35 informer will do",
		Long: `Open the streaming list an informer built with client-go >= 1.35 opens
(a watch with sendInitialEvents=true, resourceVersionMatch=NotOlderThan,
allowWatchBookmarks=true) and report what the server sends:

  correct     the initial objects, then the BOOKMARK annotated
              k8s.io/initial-events-end, at an RV not older than a consistent
              list's, with as many objects as a list at that RV
  incorrect   the bookmark arrives, but the count or the RV is wrong
  refused     an error status (400, 403, 422, ...) with the server's words
  broken      the watch was answered, and sent no bookmark within
              --deadline, or the stream ends without one (a watch whose
              answer never began is no answer: 4)

and, per client-go v0.37.2's Reflector, whether such an informer works,
falls back to list+watch, retries, or hangs (never syncs).

Each resource costs one consistent list (to count), one streaming watch
closed as soon as the verdict is known, and one exact list only when writes
came in between; at most --qps requests per second.

Exit code, one rule for every outcome: 0 when the informer syncs from the
stream (correct, or unverified when the list to compare with failed); 1
when it would hang or sync a state that does not match a list, when the
server does not stream (it refuses the streaming list, 410 and 422
included, or ends it at once: informers retry or fall back), or when the
check could not finish. A request that fails for a reason of its own is
that failure, with its code, as in every command: 6 credentials rejected
(401), 7 RBAC (403), 8 throttled (429), 4 unreachable or no answer
(the streaming watch's answer did not begin within --deadline), 5 TLS;
an answer that broke the List contract is 1, as in list. With --all:
1 when an informer would hang or sync a wrong state on any resource; else
12 when some resources did not stream or could not be checked (the
verdict covers those checked), the first one's code when none could (1
when it refused the stream, as on servers without WatchList); 0 when
informers sync on every resource.

` + exitCodesHelp,
		Example: `  # Does an aggregated API stream? (metrics servers, CNI control planes)
  kubectl watchrv streaming pods.metrics.k8s.io -A

  # Every resource that supports list and watch, with the cluster's verdict
  kubectl watchrv streaming --all

  # A CRD, as JSON
  kubectl watchrv streaming widgets.example.com -A -o json`,
		ValidArgsFunction: o.completeResource,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(cmd, args); err != nil {
				return err
			}
			if err := o.Validate(cmd, args); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.All, "all", false, "Check every resource that supports list and watch, one at a time")
	f.BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, "Stream across all namespaces, as most informers do (with --all: the default unless -n is given)")
	f.DurationVar(&o.Deadline, "deadline", 10*time.Second, rangeDeadline.help("How long a stream may take to send the initial-events-end bookmark before it counts as broken, and a sixth of how long each list the check compares it with may take"))
	f.Float64Var(&o.QPS, "qps", 5, "Most requests per second sent")
	o.outputFlags = newOutputFlags(render.FormatJSON, render.FormatYAML)
	o.wideIsDefault = true
	o.addOutputFlag(f)
	return cmd
}

// Complete fills in the namespace.
func (o *StreamingOptions) Complete(cmd *cobra.Command, args []string) error {
	return o.completeScope(&o.resourceScope, args)
}

// Validate rejects bad flags with a one-line error.
func (o *StreamingOptions) Validate(cmd *cobra.Command, args []string) error {
	if err := rangeDeadline.check(cmd, o.Deadline); err != nil {
		return err
	}
	if err := o.validateOutput(); err != nil {
		return usageErrorf(cmd, "%v", err)
	}
	if err := o.validateScope(cmd, args, "checks", o.QPS); err != nil {
		return err
	}
	return nil
}

// Run checks and reports.
func (o *StreamingOptions) Run(ctx context.Context) error {
	p := o.Printer(o.Output)
	client, err := o.Client()
	if err != nil {
		return err
	}
	budget := apiclient.NewBudget(0, o.QPS)
	opts := streaming.Options{Deadline: o.Deadline, DeadlineName: "--deadline", Budget: budget}
	if !o.All {
		t, err := o.oneTarget(ctx, &o.resourceScope)
		if err != nil {
			return err
		}
		r := streaming.Check(ctx, client, t, opts)
		if ctx.Err() != nil {
			// Interrupted: the check the signal cut is no row and no
			// verdict, as in --all (sweep.Each) and docs/exit-codes.md;
			// the run ends "interrupted", 130 (fresh user try 20 #9).
			return ctx.Err()
		}
		if err := p.Streaming(render.NewStreamingReport([]streaming.Result{r}, o.Deadline)); err != nil {
			return err
		}
		return o.resultError(r)
	}
	resources, err := o.listableResources(p)
	if err != nil {
		return err
	}
	run := streaming.All(ctx, client, resources, streaming.AllOptions{Options: opts, Progress: p, Target: o.allTarget})
	r := render.NewStreamingAllReport(run, o.Deadline)
	r.DiscoveryFailed = o.discoveryFailed()
	if err := p.Streaming(r); err != nil {
		return err
	}
	err = sweep.InTableOrder(streaming.AllErr(ctx, run), r.RowNames())
	var defect *streaming.DefectError
	var partial *sweep.PartialError
	switch {
	case errors.As(err, &defect):
		return withCode(ExitFailure, err)
	case errors.As(err, &partial) && len(partial.Failed) == partial.Total:
		if first, ok := everyOneRefused(partial.Failed); ok {
			// Every resource refused the stream: the code a
			// one-resource check gives a refusal (1), not a 422's 2.
			return withCode(ExitFailure, o.allRefused(partial.Total, first))
		}
	}
	return o.allOutcome(err)
}

// everyOneRefused: every failure is a refusal of the streaming list; the
// first of them.
func everyOneRefused(failed []sweep.Failure) (*streaming.RefusedError, bool) {
	var first *streaming.RefusedError
	for i, f := range failed {
		var refused *streaming.RefusedError
		if !errors.As(f.Err, &refused) {
			return nil, false
		}
		if i == 0 {
			first = refused
		}
	}
	return first, first != nil
}

// allRefused is the error of an --all run where no resource streamed, each
// refusing: the server's words, and what a server without WatchList means
// (the request is fine).
func (o *StreamingOptions) allRefused(total int, first *streaming.RefusedError) error {
	said := text.OneLine(first.Error())
	if first.Err != nil {
		// The answer as every line says one: who answered which request
		// with what status (fresh user try 34 F1: "configmaps refused
		// the streaming list: busy" of a 503).
		said = apiclient.FailureWords("watch", first.Resource, first.Err)
	}
	what := sweep.NoneOf(total, "resource", "serves streaming lists", "does not serve streaming lists")
	if total > 1 {
		what += " (the first, " + said + ")"
	} else {
		what += " (" + said + ")"
	}
	if diagnose.IsWatchListRefused(first) {
		in := o.serverInfoOf(context.Background(), first.Resource)
		return fmt.Errorf("%s: %s", what, in.StreamingRefusedHint())
	}
	// What informers do is each row's (a fallback to list+watch, or a
	// retry of the streaming watch after a 410 or TooLarge): said by the
	// INFORMER column and the Verdict, not here for all (fresh user try
	// 31 F4: "informers fall back" under a Verdict of "will retry").
	return fmt.Errorf("%s: what an informer does on each (falls back to list+watch, or retries the streaming watch) is in the INFORMER column and the Verdict; see the NOTE column", what)
}

// resultError is the exit of a one-resource check, by the one rule
// (streaming.Result.Outcome, docs/streaming.md): 0 when the informer syncs
// from the stream; 1 when it hangs or syncs a wrong state, when the server
// does not stream (a refusal, 410 and 422 included), or when the check
// could not finish; a failed request's own code (6, 7, 8, 4, 5).
func (o *StreamingOptions) resultError(r streaming.Result) error {
	switch r.Outcome() {
	case streaming.OutcomeSyncs:
		return nil
	case streaming.OutcomeFailed:
		var unanswered *streaming.WatchDeadlineError
		if errors.As(r.Err, &unanswered) {
			// The streaming watch was never answered: no answer (4), with
			// the flag that bounds it, as watch says of its own.
			fix := "check that the cluster is up, or raise --deadline"
			if unanswered.Arriving != nil {
				// Answered and still sending: the deadline, not the
				// cluster, stopped it (adversary try 21 F3).
				fix = "raise --deadline to see it finish"
			}
			return withCode(ExitUnreachable, fmt.Errorf("%s: %w: %s", o.serverName(), unanswered, fix))
		}
		var breach *diagnose.ContractError
		if r.RequestFailure() != diagnose.FailureNone || diagnose.IsUnreadableAnswer(r.Err) || errors.As(r.Err, &breach) {
			// 401, 403, 429, no connection, an answer that broke the List
			// contract...: that failure, with its exit code (6, 7, 8, 4,
			// 1 ...), as every other command gives it.
			return o.requestError(r.Err, "list and watch", r.Resource)
		}
		return withCode(ExitFailure, fmt.Errorf("the streaming check of %s failed: %s", r.Resource, text.OneLine(r.Error)))
	case streaming.OutcomeDefect:
		if r.Informer == streaming.InformerHangs {
			return withCode(ExitFailure, fmt.Errorf("informers built with client-go >= 1.35 will hang on %s: %s", r.Resource, r.Explanation))
		}
		return withCode(ExitFailure, fmt.Errorf("%s: %s", r.Resource, r.Problems[0]))
	}
	switch {
	case r.Code == 0:
		return withCode(ExitFailure, fmt.Errorf("%s did not serve the streaming list: %s", r.Resource, r.Explanation))
	}
	// The server, its status and its own words (bounded: a page of a
	// message is the table's note, not the error line), then what an
	// informer does with that answer.
	refused := fmt.Sprintf("%s refused the streaming list of %s with %s", o.serverName(), r.Resource,
		diagnose.StatusLine(r.Code, r.Reason, text.Shorten(text.OneLine(r.Message), 256)))
	if r.Reason == "" {
		refused = fmt.Sprintf("%s refused the streaming list of %s with %s", o.serverName(), r.Resource,
			diagnose.StatusLine(r.Code, http.StatusText(int(r.Code)), text.Shorten(text.OneLine(r.Message), 256)))
	}
	if diagnose.IsWatchListRefused(r.Err) {
		hint := o.serverInfoOf(context.Background(), r.Resource).StreamingRefusedHint()
		return withCode(ExitFailure, fmt.Errorf("%s: %s", refused, hint))
	}
	return withCode(ExitFailure, fmt.Errorf("%s; %s", refused, r.RefusalEffect()))
}
