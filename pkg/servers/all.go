package servers

import (
	"context"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/probe"
	"github.com/watchrv/kubectl-watchrv/pkg/sweep"
)

// ObserveAll observes the servers for every resource, one resource at a
// time (observe is Observe over the run's servers). One target is one
// resource on one server: the partial-failure rule counts those.
func ObserveAll(ctx context.Context, resources []apiclient.Resource, progress sweep.Progress, target func(apiclient.Resource) apiclient.Target, observe func(context.Context, apiclient.Target) *View) *sweep.Run[*View] {
	return sweep.Each(ctx, resources, sweep.Options{Verb: "probing", Progress: progress, What: "resource probes on the servers"},
		func(ctx context.Context, res apiclient.Resource) sweep.Step[*View] {
			v := observe(ctx, target(res))
			s := sweep.Step[*View]{Row: v, Requests: v.Requests, Targets: len(v.Servers)}
			for _, srv := range v.Servers {
				if srv.Err != nil {
					s.Failures = append(s.Failures, sweep.Failure{Name: res.Name() + " on server " + srv.Endpoint, Reason: probe.Reason(srv.Err), Err: srv.Err})
				}
			}
			return s
		})
}
