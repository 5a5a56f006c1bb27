package main

import (
	"context"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/metrics"
	"github.com/watchrv/kubectl-watchrv/pkg/probe"
	"github.com/watchrv/kubectl-watchrv/pkg/render"
)

// refineDepth improves the --interval depth once the series is over: one
// list of the resource dates the oldest RV by the objects' own times, and
// with --metrics the two reads of /metrics give the resource's event rate
// (used when the watch cache is full and nothing better is known).
func (o *ProbeOptions) refineDepth(ctx context.Context, client *apiclient.Client, budget *apiclient.Budget, t apiclient.Target, s *render.ProbeSeries, m0 *metrics.Reading) {
	var last *probe.Round
	for i := len(s.Rounds) - 1; i >= 0; i-- {
		if s.Rounds[i].Found {
			last = &s.Rounds[i]
			break
		}
	}
	if last != nil && budget.Take(ctx) == nil {
		if dated, err := probe.ListDatedRVs(ctx, client, t); err == nil {
			s.Motion.DateDepth(*last, dated)
		}
	}
	if m0 == nil || last == nil {
		return
	}
	m1 := o.readMetrics(ctx, client, budget)
	if m0.Snapshot == nil || m1.Snapshot == nil {
		s.Metrics = &metrics.Report{Note: m1.Note + m0.Note, Requests: 2}
		return
	}
	r := metrics.Explain(m0.Snapshot, m1.Snapshot, t.Resource.GVR.Group, t.Resource.GVR.Resource, metrics.ProbeFacts{Found: true, Oldest: last.Oldest, Current: last.Current, Source: last.Source})
	r.Requests = 2
	s.Metrics = &r
	if r.Limit == metrics.LimitCapacity && r.Capacity != nil && r.EventRate != nil {
		s.Motion.EstimateDepthFromEvents(*r.Capacity, *r.EventRate)
	}
}
