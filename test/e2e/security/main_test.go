//go:build e2e

// Package security proves, on a real kube-apiserver v1.37.2 over a real
// etcd started here on loopback, the plugin's promise about credentials and
// input: the kubeconfig's credentials go to its server only (no redirect
// carries them elsewhere), a server URL is printed redacted, and a
// namespace or name never changes the path of a request.
package security

import (
	"testing"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

var shared *framework.Cluster

func TestMain(m *testing.M) { framework.Main(m, &shared) }
