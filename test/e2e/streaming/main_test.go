//go:build e2e

// Package streaming tests "kubectl watchrv streaming" against a real
// kube-apiserver v1.37.2 whose aggregator serves an APIService (an
// extension server that lists and watches but never sends the
// initial-events-end bookmark) through the real aggregation path, next to
// a CRD and built-in resources that the API server itself streams.
package streaming

import (
	"testing"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

var (
	cluster *framework.Cluster
	agg     *framework.Aggregated
)

func TestMain(m *testing.M) { framework.MainAggregated(m, &cluster, &agg) }
