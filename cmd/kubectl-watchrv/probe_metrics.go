package main

import (
	"context"

	"github.com/spf13/pflag"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/metrics"
	"github.com/watchrv/kubectl-watchrv/pkg/probe"
)

// addMetricsFlag registers probe --metrics.
func addMetricsFlag(f *pflag.FlagSet, o *ProbeOptions) {
	f.BoolVar(&o.Metrics, "metrics", false, "Also read the server's watch-cache metrics (GET /metrics, before and after the probe: 2 more requests) and say what limits the window: capacity or the cache's initialization")
}

// readMetrics reads /metrics once, under the probe's budget, when
// --metrics is set; nil otherwise.
func (o *ProbeOptions) readMetrics(ctx context.Context, client *apiclient.Client, budget *apiclient.Budget) *metrics.Reading {
	if !o.Metrics {
		return nil
	}
	return metrics.ReadUnder(ctx, client, budget)
}

// metricsReport cross-checks a probed window with the two reads; nil
// without --metrics.
func metricsReport(start, end *metrics.Reading, w *probe.Result) *metrics.Report {
	return probe.MetricsReport(start, end, w)
}
