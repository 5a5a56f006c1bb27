// Package sweep runs one check over every resource of an --all run, one
// resource at a time: one progress line, one rule for an interruption (the
// resource being checked when the signal came is not a row, its requests
// still count) and one rule for partial failure. probe, streaming and the
// per-server view all go through it.
package sweep

import (
	"context"
	"errors"
	"slices"
	"sort"
	"time"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
)

// Progress is where the sweep says which resource it is on (a
// render.Printer: render stays the only writer of output).
type Progress interface {
	Progress(format string, args ...any)
	ProgressDone()
}

// Failure is one target that could not be measured: a resource, or a
// resource on one API server. Reason is its one-word reason (empty:
// Reason(Err)).
type Failure struct {
	Name   string
	Reason string
	Err    error
	// Answered: the target answered, and its answer failed the check (a
	// refusal of the streaming list): it was measured, so it is never
	// among those that "could not be measured", and the error line counts
	// it apart (fresh user try 33 F3: "3 of 4 resources failed" of one
	// 403 and two refusals, under "the verdict covers only what was
	// answered").
	Answered bool
}

// answered: the failure is the target's answer: a refusal marked so, or
// an answer that broke the List or Watch contract, which the plugin
// measured (adversary try 34 F3: a measured Watch contract break was
// "unknown (the check failed)", exit 12).
func (f Failure) answered() bool { return f.Answered || f.breach() }

// breach: the failure is an answer that broke the List or Watch contract
// (diagnose.BrokeContract).
func (f Failure) breach() bool { return diagnose.BrokeContract(f.Err) }

// ContractBroken: a failure is an answer that broke the List or Watch
// contract. The run exits 1, as a one-target run with that answer does,
// whatever else happened (docs/exit-codes.md).
func ContractBroken(failed []Failure) bool { return len(contractBreaks(failed)) > 0 }

func contractBreaks(failed []Failure) []Failure {
	var out []Failure
	for _, f := range failed {
		if f.breach() {
			out = append(out, f)
		}
	}
	return out
}

// Step is what checking one resource gave.
type Step[T any] struct {
	Row      T
	Requests int
	// Targets is how many targets the step measured (1 for a resource,
	// one per API server in the per-server view; 0 means 1).
	Targets  int
	Failures []Failure
}

// Options configure a sweep.
type Options struct {
	// Verb names the check in the progress line ("probing", "checking").
	Verb     string
	Progress Progress // nil: no progress line
	// What is the targets' noun, singular, in the partial-failure error
	// ("resource", "API server"): text.Count makes its plural.
	What string
}

// Run is the outcome of a sweep.
type Run[T any] struct {
	Rows []T
	// Of is how many resources were planned; len(Rows) were checked.
	Of int
	// Requests counts the requests of the rows; Cut those of the check
	// an interruption cut, which is no row: said apart, never in a count
	// over the rows (user try 22 F13: "10.00 per resource" of 3 rows that
	// cost 25, the cut one's 5 in it).
	Requests, Cut int
	// Interrupted: the context ended (Ctrl-C, SIGTERM) before every
	// resource was checked.
	Interrupted bool
	Duration    time.Duration
	Targets     int
	Failures    []Failure
	what        string
}

// Each checks every resource in turn with check.
func Each[T any](ctx context.Context, resources []apiclient.Resource, o Options, check func(context.Context, apiclient.Resource) Step[T]) *Run[T] {
	r := &Run[T]{Of: len(resources), what: o.What, Rows: []T{}}
	start := time.Now()
	for i, res := range resources {
		if ctx.Err() != nil {
			break
		}
		if o.Progress != nil {
			o.Progress.Progress("%s %d of %d: %s (%s so far)", o.Verb, i+1, len(resources), res.Name(), text.Count(r.Requests, "request"))
		}
		s := check(ctx, res)
		if ctx.Err() != nil {
			r.Cut = s.Requests // this check was cut: not a row
			break
		}
		r.Requests += s.Requests
		r.Rows = append(r.Rows, s.Row)
		r.Targets += max(s.Targets, 1)
		r.Failures = append(r.Failures, s.Failures...)
	}
	r.Interrupted = ctx.Err() != nil
	r.Duration = time.Since(start)
	if o.Progress != nil {
		o.Progress.ProgressDone()
	}
	return r
}

// Err is the one partial-failure rule of a run over several targets
// (docs/exit-codes.md, "Runs over several targets"):
//
//   - every target answered: nil (the verdict's own exit code applies);
//   - none answered: a *NoneError, whose exit code is the first target's
//     failure's (4 unreachable, 5 TLS, 6, 7, 8, 11 budget, ...);
//   - some answered: a *PartialError (exit 12), naming how many failed and
//     the first; the verdict is computed over the targets that answered.
//
// An interrupted run gives the context's error. A verdict that fails on
// its own (an informer that hangs) keeps its code: callers apply this rule
// only when the verdict passed.
func (r *Run[T]) Err(ctx context.Context) error {
	if r.Interrupted {
		return ctx.Err()
	}
	return Partial(r.what, r.Targets, r.Failures)
}

func seeOr(see string) string {
	if see == "" {
		return "the NOTE column"
	}
	return see
}

// Read is what each target's request was, as the command that sent it
// says it: how the first failure's answer is said (apiclient.AnswerWords:
// "server X answered list configmaps with 429 Too Many Requests: ...", as
// a one-server run says it; fresh user try 29 F5) and what a target
// forbidden needs (adversary try 29 F6: top's /metrics needs no
// permission to list and watch). One source per command: ReadAs.
type Read struct {
	Verb, What string // "list", "configmaps"; "get", "/metrics"
	// Needs is the permission the read needs ("" RBAC permission to list
	// and watch What, or them).
	Needs string
}

func (r Read) needs() string {
	switch {
	case r.Needs != "":
		return r.Needs
	case r.What != "":
		return "RBAC permission to list and watch " + r.What
	}
	return "RBAC permission to list and watch them"
}

// words is f as the error line names it: its answer in AnswerWords's
// words (the status, the message, a 429's sender), else its failure.
//
// A target that is itself the resource (What "": probe --all, streaming
// --all) is said as the request that got the answer, "the API server
// answered list apiservices... with 403 Forbidden: ..." (fresh user try
// 30 F4: the status was said, and which request only inside the
// server's own message).
func (r Read) words(f Failure) string {
	if f.Answered {
		// A failure by its answer wraps the answer: say the answer, once
		// (fresh user try 33 F3: "answered watch endpoints with 504
		// Timeout: endpoints refused the streaming list: ...").
		inner := errors.Unwrap(f.Err)
		if inner == nil {
			return text.OneLine(f.Err.Error())
		}
		f.Err = inner
	}
	if r.What != "" {
		if w, ok := apiclient.AnswerWords(f.Name, r.Verb, r.What, f.Err); ok {
			return w
		}
	} else if v := apiclient.AnsweredVerb(f.Err); v != "" {
		if w, ok := apiclient.AnswerWords("the API server", v, f.Name, f.Err); ok {
			return w
		}
	} else if w, ok := apiclient.StatusWords(f.Err); ok {
		return f.Name + ": " + w
	}
	return f.Name + ": " + text.OneLine(f.Err.Error())
}

// ReadAs is err (a *NoneError or *PartialError of Partial) saying its targets' read as r;
// any other err as it is.
func ReadAs(err error, r Read) error {
	if t := targetsOf(err); t != nil {
		t.Read = r
	}
	return err
}

// SeeAt is err (a *PartialError or *NoneError of Partial) pointing the
// user to see, where the command's output names each failure (a command
// without a NOTE column); any other err as it is.
func SeeAt(err error, see string) error {
	if t := targetsOf(err); t != nil {
		t.See = see
	}
	return err
}

// FixBy is err (a *PartialError or *NoneError of Partial) knowing each
// failure's fix by its class (fix: "" for none); any other err as it is.
func FixBy(err error, fix func(error) string) error {
	var none *NoneError
	var partial *PartialError
	switch {
	case errors.As(err, &none):
		none.Fix = fix
	case errors.As(err, &partial):
		partial.Fix = fix
	}
	return err
}

// Partial applies the partial-failure rule to total targets of which
// failed did not pass. A target that failed by its answer (a refusal, a
// broken contract) was measured: a run where every target failed, some
// by their answer, is partial, never "none could be measured"
// (adversary try 31 F3: "none of the 3 resources could be measured"
// under a verdict on two that refused). A *NoneError is a run where no
// target answered.
func Partial(what string, total int, failed []Failure) error {
	if len(failed) == 0 || total == 0 {
		return nil
	}
	if len(failed) < total || countAnswered(failed) > 0 {
		return &PartialError{Targets{What: what, Total: total, Failed: failed}}
	}
	return &NoneError{Targets{What: what, Total: total, Failed: failed}}
}

func countAnswered(failed []Failure) int {
	n := 0
	for _, f := range failed {
		if f.answered() {
			n++
		}
	}
	return n
}

// InTableOrder is err (a *PartialError or *NoneError of Partial) with its
// failures in the order the command's table shows them (names: the rows'
// names, top down), so that "the first" it names is the first failed row
// a user sees, not the first checked (fresh user try 33 F3: the line's
// "first" was the third failed row). Any other err as it is.
func InTableOrder(err error, names []string) error {
	t := targetsOf(err)
	if t == nil {
		return err
	}
	t.Failed = slices.Clone(t.Failed)
	failed := t.Failed
	at := make(map[string]int, len(names))
	for i, n := range names {
		if _, seen := at[n]; !seen {
			at[n] = i
		}
	}
	pos := func(f Failure) int {
		if i, ok := at[f.Name]; ok {
			return i
		}
		return len(names)
	}
	sort.SliceStable(failed, func(i, j int) bool { return pos(failed[i]) < pos(failed[j]) })
	return err
}

// Reason is the one-word reason of a failed target: BudgetExhausted, or the
// failure's class. Packages with reasons of their own (probe's OpaqueRV)
// check those first.
// ReasonContractBreach is the reason of a target whose answer broke the
// List or Watch contract.
const ReasonContractBreach = "ContractBreach"

func Reason(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, apiclient.ErrBudgetExhausted):
		return "BudgetExhausted"
	case diagnose.BrokeContract(err):
		// Its class is Other (no status names it): a row and a server's
		// line say what it is (adversary try 38 F3: "failed: ... (Other)"
		// of an answer in breach).
		return ReasonContractBreach
	}
	return string(diagnose.ClassifyFailure(err))
}
