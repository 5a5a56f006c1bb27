//go:build e2e

// Package watch tests "kubectl watchrv watch" against a real kube-apiserver
// v1.37.2 over a real etcd, both started here on loopback. Every test is
// t.Parallel: each reads and writes a namespace of its own on the shared
// cluster, or starts a cluster of its own, and most of their time is
// waiting on the server (timeouts, restarts).
package watch

import (
	"testing"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

var shared *framework.Cluster

func TestMain(m *testing.M) { framework.Main(m, &shared) }

var newNamespace = framework.Namespace
