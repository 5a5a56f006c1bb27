//go:build e2e

// Package proof holds the cross-command proofs: the plugin only reads
// (audit log), and bad input is always refused clearly.
package proof

import (
	"testing"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

var shared *framework.Cluster

func TestMain(m *testing.M) { framework.Main(m, &shared) }
