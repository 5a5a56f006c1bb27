package servers

import (
	"context"
	"fmt"
	"slices"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/sweep"
)

// AllOptions configure the per-server view of every resource (probe --all
// --servers).
type AllOptions struct {
	Observe ObserveOptions
	// Progress shows which resource is being probed (nil: none).
	Progress sweep.Progress
	// Target is the collection of one resource in the run's scope.
	Target func(apiclient.Resource) apiclient.Target
}

// ObserveAll observes every server of f for every resource, one resource
// at a time (Observe each). One target is one resource on one server: the
// partial-failure rule counts those.
func ObserveAll(ctx context.Context, f *Fleet, resources []apiclient.Resource, o AllOptions) *sweep.Run[*View] {
	// A server that could not be reached (refused, no route, no DNS
	// name, no connection within the time bound) is not dialled again
	// for the next resources: each would wait for the same end (fresh
	// user tries 14 and 15: one dead address of two took 314 requests
	// and 62 s for 63 resources, one that never answers 21 minutes). Its
	// rows fail with that first error, and no request. One that took the
	// connection and closed or reset it before any answer is so only when
	// it did so for two resources in a row: a server that resets one path
	// (a proxy's rule, an aggregated API) answers the others (adversary
	// try 16: every later row said "not dialled again", exit 4).
	fleet := &Fleet{Found: f.Found, Members: slices.Clone(f.Members)}
	closedRuns := make([]int, len(fleet.Members))
	return sweep.Each(ctx, resources, sweep.Options{Verb: "probing", Progress: o.Progress, What: "resource probe"},
		func(ctx context.Context, res apiclient.Resource) sweep.Step[*View] {
			v := Observe(ctx, fleet, o.Target(res), o.Observe)
			for _, srv := range v.Servers {
				i := srv.Index - 1
				if i < 0 || i >= len(fleet.Members) || fleet.Members[i].Client == nil || fleet.Members[i].Endpoint != srv.Endpoint {
					continue
				}
				closed := srv.Err != nil && apiclient.ClosedBeforeAnswer(srv.Err)
				if closed {
					closedRuns[i]++
				} else {
					closedRuns[i] = 0
				}
				if srv.Err != nil && (diagnose.ClassifyFailure(srv.Err) == diagnose.FailureUnreachable || apiclient.NoConnection(srv.Err) || closedRuns[i] >= 2) {
					fleet.Members[i] = Member{Endpoint: srv.Endpoint, Err: fmt.Errorf("not dialled again after %s: %w", res.Name(), srv.Err)}
				}
			}
			// The cut servers' requests too: the resource the signal cut
			// is no row, and sweep says all of its requests apart.
			s := sweep.Step[*View]{Row: v, Requests: v.Requests + v.Cut.Requests, Targets: len(v.Servers)}
			for _, srv := range v.Servers {
				if srv.Err != nil {
					s.Failures = append(s.Failures, srv.Failure(res.Name()+" on server "+srv.Endpoint))
				}
			}
			return s
		})
}

// Err applies the one partial-failure rule (sweep.Partial) to the view of
// one collection: a server failed when any of its reads failed, even if it
// answered others (its numbers still count in the verdict). An interrupted
// run is the interruption.
func (v *View) Err(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	var failed []sweep.Failure
	for _, s := range v.Servers {
		if s.Err != nil {
			failed = append(failed, s.Failure("server "+s.Endpoint))
		}
	}
	// Each row says its own retries (Server.RetryWait): the run's line
	// says their sum as one over servers that waited at once.
	// The line says the first failure as its row's read (a list of the
	// collection; AnswerWords), forbidden as needing that list and watch.
	none := sweep.ReadAs(sweep.Partial("API server", len(v.Servers), failed), sweep.Read{Verb: "list", What: v.Target.Resource.Name()})
	return sweep.WithRetriesPerTarget(none)
}

// Failure is the server's failure as the partial-failure rule counts it,
// named name, with the server's own class (Reason, set by fail): the one
// source of the class its row, its JSON and the stderr line say
// (adversary try 22: the line said "Other" of a row's RVsOutOfOrder).
func (s *Server) Failure(name string) sweep.Failure {
	return sweep.Failure{Name: name, Reason: s.Reason, Err: s.Err}
}
