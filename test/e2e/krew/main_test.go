//go:build e2e

// Package krew proves the release for real: `make dist` builds the same
// bytes twice from one commit, krew v0.4.3 validates the release manifest,
// installs the plugin from it and the linux/amd64 archive, kubectl finds and
// runs it against a real kube-apiserver v1.37.2, krew uninstalls it, and a
// manifest with a wrong sha256 is refused.
package krew

import (
	"testing"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

var shared *framework.Cluster

func TestMain(m *testing.M) { framework.Main(m, &shared) }
