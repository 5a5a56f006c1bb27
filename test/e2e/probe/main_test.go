//go:build e2e

// Package probe tests "kubectl watchrv probe" against a real kube-apiserver
// v1.37.2 over a real etcd, both started here on loopback.
package probe

import (
	"testing"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

var shared *framework.Cluster

func TestMain(m *testing.M) { framework.Main(m, &shared) }

var newNamespace = framework.Namespace
