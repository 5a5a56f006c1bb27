package streaming

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
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
	return sweep.Each(ctx, resources, sweep.Options{Verb: "checking", Progress: o.Progress, What: "resources"},
		func(ctx context.Context, res apiclient.Resource) sweep.Step[Result] {
			r := Check(ctx, c, o.Target(res), o.Options)
			s := sweep.Step[Result]{Row: r, Requests: r.Requests}
			// A resource failed when its check could not be made (the
			// requests failed, or the check could not finish), or when it
			// refused the streaming list (422 without WatchList, 405, ...):
			// it does not stream, as a one-resource check says with exit 1.
			switch {
			case r.RequestFailure() != diagnose.FailureNone || r.Status == StatusError:
				err := r.Err
				if err == nil {
					err = errors.New(r.Error)
				}
				s.Failures = []sweep.Failure{{Name: r.Resource, Err: err}}
			case r.Status == StatusRefused:
				s.Failures = []sweep.Failure{{Name: r.Resource, Reason: "Refused", Err: &RefusedError{Resource: r.Resource, Err: r.Err}}}
			}
			return s
		})
}

// RefusedError: the resource refused the streaming list with an error
// status of its own (not a failed request: 401, 403, 429, no answer): the
// server or the resource lacks the feature. Its exit code is 1, as a
// one-resource check gives it, not the 2 of a request refused as invalid.
type RefusedError struct {
	Resource string
	Err      error
}

func (e *RefusedError) Error() string {
	if e.Err == nil {
		return e.Resource + " refused the streaming list"
	}
	return e.Resource + " refused the streaming list: " + e.Err.Error()
}

func (e *RefusedError) Unwrap() error { return e.Err }

// HangsError: informers built with client-go >= 1.35 will hang on these
// resources (exit 1, whatever else failed).
type HangsError struct{ Resources []string }

func (e *HangsError) Error() string {
	return fmt.Sprintf("informers built with client-go >= 1.35 will hang on %d resource(s): %s: see docs/streaming.md", len(e.Resources), strings.Join(e.Resources, ", "))
}

// AllErr is the outcome of a check of every resource: the context's error
// when interrupted, a *HangsError when an informer would hang, else the
// partial-failure rule (sweep.Run.Err).
func AllErr(ctx context.Context, run *sweep.Run[Result]) error {
	if run.Interrupted {
		return ctx.Err()
	}
	if hangs := Summarize(run.Rows).Hangs; len(hangs) > 0 {
		hangs = append([]string(nil), hangs...)
		sort.Strings(hangs)
		return &HangsError{Resources: hangs}
	}
	return run.Err(ctx)
}
