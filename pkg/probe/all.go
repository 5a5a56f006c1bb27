package probe

import (
	"context"
	"time"

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
	// Shared counts the requests of no one row: the APIService list that
	// tells which groups share the cluster's revision (RunWide), and the
	// reads of /metrics.
	Shared int
	// RunWide is the run's one current-RV read and what it holds for.
	RunWide RunWide
}

// Requests is every request the run sent: the rows' and the shared ones.
func (a *AllResult) Requests() int { return a.Run.Requests + a.Shared }

// All probes every resource one at a time (each watch closed before the
// next starts). A resource that fails (forbidden, opaque RV, budget) is a
// row with its reason, never dropped.
//
// It costs about one request per resource (issue 23): the resources the
// kube-apiserver serves itself share one revision (etcd's, or kine's row
// id), so the current RV is read once, by the first of them probed in
// full (RunWide), and every other one sends one watch from RV 1, which
// either starts (nothing has expired) or is refused by the watch cache
// with a 410 that names the oldest RV (the bound; --verify proves it with
// two more watches). A resource whose watch is answered by storage (the
// watch cache off) or with a 410 the plugin does not recognize is probed
// in full, that watch reused as the search's first probe, and the bound
// exact lists found on one storage resource is the next one's first guess
// (one storage, one compaction point). Aggregated APIs have RVs of their
// own: they are probed in full, each with its own current RV.
func All(ctx context.Context, c *apiclient.Client, resources []apiclient.Resource, o AllOptions) *AllResult {
	o.Search.Budget = o.Budget
	o.slowest = new(time.Duration)
	r := &AllResult{}
	o.Budget.Reset()
	// The shared reads' count leaves out what the signal cut (Kept).
	sctx, sw := apiclient.StartStopwatch(ctx)
	m0 := readMetrics(sctx, c, o.Budget, o.Metrics)
	// One /metrics for the run (--metrics's first read, when there is
	// one) tells which resources a watch cache serves: a silent watch
	// from RV 1 is then confirmed at no further cost (confirmStarts).
	witness := &cacheWitness{reading: m0, first: true}
	o.witness = witness
	run := newRunWide(sctx, c, resources, o.Budget)
	r.Shared, _ = sw.Kept(o.Budget.Used())
	var hint uint64
	r.Run = sweep.Each(ctx, resources, sweep.Options{Verb: "probing", Progress: o.Progress, What: "resource"},
		func(ctx context.Context, res apiclient.Resource) sweep.Step[*Result] {
			o.Budget.Reset()
			ro := o.Options
			ro.Search.Hint = hint
			reads := witness.reads
			w := run.probe(ctx, c, o.Target(res), ro)
			// The run's one read of /metrics is no one row's.
			if n := witness.reads - reads; n > 0 {
				w.Requests -= n
				r.Shared += n
			}
			if s := w.Search; s != nil && s.ListBound > 0 {
				hint = s.ListBound
			}
			s := sweep.Step[*Result]{Row: w, Requests: w.Requests}
			if w.Err != nil {
				s.Failures = []sweep.Failure{{Name: res.Name(), Reason: Reason(w.Err), Err: w.Err}}
			}
			return s
		})
	r.RunWide = run.RunWide
	r.Failed = len(r.Run.Failures)
	r.Metrics = make([]*metrics.Report, len(r.Run.Rows))
	if !r.Run.Interrupted {
		o.Budget.Reset()
		mctx, sw := apiclient.StartStopwatch(ctx)
		m1 := readMetrics(mctx, c, o.Budget, o.Metrics)
		n, _ := sw.Kept(o.Budget.Used())
		r.Shared += n
		for i, w := range r.Run.Rows {
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
