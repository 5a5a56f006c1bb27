package probe

import "github.com/watchrv/kubectl-watchrv/pkg/metrics"

// MetricsReport cross-checks a probed window with the reads before and after
// it (metrics.ReportOf); nil when there were none (no --metrics).
func MetricsReport(start, end *metrics.Reading, w *Result) *metrics.Report {
	if start == nil || end == nil {
		return nil
	}
	gvr := w.Target.Resource.GVR
	p := metrics.ProbeFacts{Current: w.Current}
	if s := w.Search; s != nil {
		p = metrics.ProbeFacts{Found: s.Found, Oldest: s.Oldest, Current: s.Current, Source: s.Source}
	}
	return metrics.ReportOf(start, end, gvr.Group, gvr.Resource, p)
}
