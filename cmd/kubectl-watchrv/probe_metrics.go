package main

import (
	"context"

	"github.com/spf13/pflag"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/metrics"
	"github.com/watchrv/kubectl-watchrv/pkg/window"
)

// addMetricsFlag registers probe --metrics.
func addMetricsFlag(f *pflag.FlagSet, o *ProbeOptions) {
	f.BoolVar(&o.Metrics, "metrics", false, "Also read the server's watch-cache metrics (GET /metrics, before and after the probe: 2 more requests) and say what limits the window: capacity or the cache's initialization")
}

// metricsRead is one read of /metrics, or why it failed (a note, never a
// failure of the probe).
type metricsRead struct {
	snap *metrics.Snapshot
	note string
}

// readMetrics reads /metrics once, under the probe's budget, when
// --metrics is set; nil otherwise.
func (o *ProbeOptions) readMetrics(ctx context.Context, client *apiclient.Client, budget *apiclient.Budget) *metricsRead {
	if !o.Metrics {
		return nil
	}
	if err := budget.Take(ctx); err != nil {
		return &metricsRead{note: "/metrics not read: " + err.Error()}
	}
	s, err := metrics.Read(ctx, client)
	switch {
	case err == nil:
		return &metricsRead{snap: s}
	case diagnose.ClassifyFailure(err) == diagnose.FailureForbidden:
		return &metricsRead{note: "watch-cache metrics not shown: /metrics is forbidden to this user (it needs a ClusterRole with nonResourceURLs [\"/metrics\"], verbs [\"get\"])"}
	}
	return &metricsRead{note: "watch-cache metrics not shown: GET /metrics failed: " + oneLine(err.Error())}
}

// metricsReport cross-checks a probed window with the two reads; nil
// without --metrics.
func metricsReport(start, end *metricsRead, w *window.Window) *metrics.Report {
	if start == nil || end == nil {
		return nil
	}
	gvr := w.Target.Resource.GVR
	if end.snap == nil || start.snap == nil {
		note := end.note
		if note == "" {
			note = start.note
		}
		return &metrics.Report{WatchCache: metrics.WatchCache{Group: gvr.Group, Resource: gvr.Resource}, Note: note, Requests: 2}
	}
	p := metrics.ProbeFacts{Current: w.Current}
	if s := w.Search; s != nil {
		p = metrics.ProbeFacts{Found: s.Found, Oldest: s.Oldest, Current: s.Current, Source: s.Source}
	}
	r := metrics.Explain(start.snap, end.snap, gvr.Group, gvr.Resource, p)
	r.Requests = 2
	return &r
}
