//go:build e2e

// Package top tests "kubectl watchrv top" against a real kube-apiserver
// v1.37.2 over a real etcd (the cell v1.37/etcd/cache-on), started here on
// loopback: a known List/Watch load and what top reports of it, a watcher
// too slow to read, --check's exit codes, a /metrics the user may not read,
// and the cost of its reads. test/e2e/topcells runs the load on every cell
// of the matrix (make test-long).
package top

import (
	"testing"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

var shared *framework.Cluster

func TestMain(m *testing.M) { framework.Main(m, &shared) }

// cell is the shared cluster's cell.
var cell = framework.Cell{Version: "v1.37", Storage: "etcd", WatchCache: true}
