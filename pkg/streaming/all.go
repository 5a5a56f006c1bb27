package streaming

import (
	"context"
	"errors"
	"fmt"
	"github.com/watchrv/kubectl-watchrv/internal/text"
	"sort"
	"strings"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/sweep"
)

// AllOptions configure the check of every resource.
type AllOptions struct {
	Options
	Progress sweep.Progress
	// Target is the scope checked for one resource.
	Target func(apiclient.Resource) apiclient.Target
}

// All checks every resource one at a time.
func All(ctx context.Context, c *apiclient.Client, resources []apiclient.Resource, o AllOptions) *sweep.Run[Result] {
	return sweep.Each(ctx, resources, sweep.Options{Verb: "checking", Progress: o.Progress, What: "resource"},
		func(ctx context.Context, res apiclient.Resource) sweep.Step[Result] {
			return step(Check(ctx, c, o.Target(res), o.Options))
		})
}

// step is one resource's row of an --all run. The one rule (Outcome): a
// resource whose check could not be made, or that does not stream (a
// refusal such as the 422 of a server without WatchList, a stream ended at
// once), has failed.
func step(r Result) sweep.Step[Result] {
	s := sweep.Step[Result]{Row: r, Requests: r.Requests}
	switch r.Outcome() {
	case OutcomeFailed:
		err := r.Err
		if err == nil {
			err = errors.New(r.Error)
		}
		s.Failures = []sweep.Failure{{Name: r.Resource, Err: err}}
	case OutcomeNoStream:
		s.Failures = []sweep.Failure{{Name: r.Resource, Reason: "Refused", Err: &RefusedError{Resource: r.Resource, Err: r.Err, Why: r.Explanation}, Answered: true}}
	}
	return s
}

// RefusedError: the resource answered, but not with a streaming list: it
// refused it with an error status of its own (not a failed request: 401,
// 403, 429, no answer), or ended the stream at once. The server or the
// resource lacks the feature. Its exit code is 1, as a one-resource check
// gives it, not the 2 of a request refused as invalid.
type RefusedError struct {
	Resource string
	Err      error
	// Why is what the informer does about it (the result's explanation),
	// for a refusal without an error status.
	Why string
}

func (e *RefusedError) Error() string {
	switch {
	case e.Err != nil:
		return e.Resource + " refused the streaming list: " + e.Err.Error()
	case e.Why != "":
		return e.Resource + " did not serve the streaming list: " + e.Why
	}
	return e.Resource + " refused the streaming list"
}

func (e *RefusedError) Unwrap() error { return e.Err }

// DefectError: the server streams, and informers built with client-go >=
// 1.35 hang on some resources, or sync a state that does not match a list
// (exit 1, whatever else failed).
type DefectError struct{ Hangs, Incorrect []string }

func (e *DefectError) Error() string {
	var parts []string
	if len(e.Hangs) > 0 {
		parts = append(parts, fmt.Sprintf("will hang on %s: %s", text.Count(len(e.Hangs), "resource"), strings.Join(e.Hangs, ", ")))
	}
	if len(e.Incorrect) > 0 {
		parts = append(parts, fmt.Sprintf("will sync a wrong state (one that does not match a list, or whose RV no watch resumes from) on %s: %s", text.Count(len(e.Incorrect), "resource"), strings.Join(e.Incorrect, ", ")))
	}
	return "informers built with client-go >= 1.35 " + strings.Join(parts, "; and ") + ": see docs/streaming.md"
}

// AllErr is the outcome of a check of every resource: the context's error
// when interrupted, a *DefectError when an informer would hang or sync a
// wrong state, else the partial-failure rule (sweep.Run.Err).
func AllErr(ctx context.Context, run *sweep.Run[Result]) error {
	if run.Interrupted {
		return ctx.Err()
	}
	var defect DefectError
	for _, r := range run.Rows {
		if r.Outcome() != OutcomeDefect {
			continue
		}
		if r.Informer == InformerHangs {
			defect.Hangs = append(defect.Hangs, r.Resource)
		} else {
			defect.Incorrect = append(defect.Incorrect, r.Resource)
		}
	}
	if len(defect.Hangs)+len(defect.Incorrect) > 0 {
		sort.Strings(defect.Hangs)
		sort.Strings(defect.Incorrect)
		return &defect
	}
	return run.Err(ctx)
}
