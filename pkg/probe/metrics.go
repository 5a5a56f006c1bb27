package probe

import "github.com/watchrv/kubectl-watchrv/pkg/metrics"

// MetricsReport cross-checks a probed window with the reads before and after
// it; nil when there were none (no --metrics).
func MetricsReport(start, end *metrics.Reading, w *Result) *metrics.Report {
	if start == nil || end == nil {
		return nil
	}
	gvr := w.Target.Resource.GVR
	if end.Snapshot == nil || start.Snapshot == nil {
		note := end.Note
		if note == "" {
			note = start.Note
		}
		return &metrics.Report{WatchCache: metrics.WatchCache{Group: gvr.Group, Resource: gvr.Resource}, Note: note, Requests: 2}
	}
	p := metrics.ProbeFacts{Current: w.Current}
	if s := w.Search; s != nil {
		p = metrics.ProbeFacts{Found: s.Found, Oldest: s.Oldest, Current: s.Current, Source: s.Source}
	}
	r := metrics.Explain(start.Snapshot, end.Snapshot, gvr.Group, gvr.Resource, p)
	r.Requests = 2
	return &r
}
