//go:build e2e

// Package ha proves the harness's HA control plane: three real
// kube-apiservers on one etcd and one port, behind a round-robin balancer,
// advertised under documentation-range addresses that only the test CONNECT
// proxy reaches, one of them able to fall behind on demand. The plugin's HA
// tests build on exactly what these tests check.
package ha

import (
	"testing"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

var shared *framework.HA

// lagging is the server whose etcd link the tests pause.
const lagging = 2

func TestMain(m *testing.M) { framework.MainHA(m, &shared, framework.HAOptions{Servers: 3}) }
