package probe

import (
	"context"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/metrics"
	"github.com/watchrv/kubectl-watchrv/pkg/sweep"
)

// AllOptions configure a probe of every resource.
type AllOptions struct {
	Options
	// Budget is reset before each resource: each has its own count, and
	// the rate spans the run.
	Budget *apiclient.Budget
	// MaxRequests is the budget per resource, named in a budget failure.
	MaxRequests int
	// Metrics reads /metrics before and after the run (each read outside
	// any resource's budget) and cross-checks every window with them.
	Metrics  bool
	Progress sweep.Progress
	// Target is the scope probed for one resource.
	Target func(apiclient.Resource) apiclient.Target
}

// AllResult is the probe of every resource, in discovery order.
type AllResult struct {
	*sweep.Run[*Result]
	// Metrics holds each row's cross-check (nil without --metrics, or
	// when the run was interrupted).
	Metrics []*metrics.Report
	// Failed counts the rows whose window is not (fully) known.
	Failed int
}

// All probes every resource one at a time (each watch closed before the
// next starts). A resource that fails (forbidden, opaque RV, budget) is a
// row with its reason, never dropped.
func All(ctx context.Context, c *apiclient.Client, resources []apiclient.Resource, o AllOptions) *AllResult {
	o.Search.Budget = o.Budget
	m0 := readMetrics(ctx, c, o.Budget, o.Metrics)
	run := sweep.Each(ctx, resources, sweep.Options{Verb: "probing", Progress: o.Progress, What: "resources"},
		func(ctx context.Context, res apiclient.Resource) sweep.Step[*Result] {
			o.Budget.Reset()
			w := Run(ctx, c, o.Target(res), o.Options)
			s := sweep.Step[*Result]{Row: w, Requests: w.Requests}
			if w.Err != nil {
				s.Failures = []sweep.Failure{{Name: res.Name(), Reason: Reason(w.Err), Err: w.Err}}
			}
			return s
		})
	r := &AllResult{Run: run, Failed: len(run.Failures), Metrics: make([]*metrics.Report, len(run.Rows))}
	if !run.Interrupted {
		o.Budget.Reset()
		m1 := readMetrics(ctx, c, o.Budget, o.Metrics)
		for i, w := range run.Rows {
			r.Metrics[i] = MetricsReport(m0, m1, w)
		}
	}
	return r
}

// readMetrics reads /metrics once under b when on; nil otherwise.
func readMetrics(ctx context.Context, c *apiclient.Client, b *apiclient.Budget, on bool) *metrics.Reading {
	if !on {
		return nil
	}
	return metrics.ReadUnder(ctx, c, b)
}
