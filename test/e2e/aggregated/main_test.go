//go:build e2e

// Package aggregated tests the harness's aggregated API: an APIService
// served, through kube-apiserver's aggregator and a Unix-socket CONNECT
// proxy, by an extension server that lists and watches but never streams.
package aggregated

import (
	"testing"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

var (
	cluster *framework.Cluster
	agg     *framework.Aggregated
)

func TestMain(m *testing.M) { framework.MainAggregated(m, &cluster, &agg) }
