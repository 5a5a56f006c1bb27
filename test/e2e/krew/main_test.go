//go:build e2e

// Package krew proves the release for real: `make dist` builds the same
// bytes twice from one commit, krew v0.4.3 validates the release manifest,
// installs the plugin from it and this machine's archive, kubectl finds and
// runs it against a real kube-apiserver v1.37.2, krew uninstalls it, and a
// manifest with a wrong sha256 is refused.
//
// WATCHRV_RELEASE_PLATFORMS picks what is built: "host" (the default, make
// test) builds this machine's archive only, twice; "all" (make
// release-check, and CI) builds every platform of plugin.yaml twice and
// installs each archive with krew's KREW_OS/KREW_ARCH. The same tests run in
// both: the matrix is a wider input, not a test that is skipped.
package krew

import (
	"testing"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

var shared *framework.Cluster

func TestMain(m *testing.M) { framework.Main(m, &shared) }
