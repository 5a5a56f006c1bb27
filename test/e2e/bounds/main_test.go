//go:build e2e

// Package bounds attacks the wire's classes across commands: every body
// read within its cap, every timeout holding while a body still comes,
// every paged walk ending (fault servers of test/e2e/framework, under a
// memory limit); discovery failures reported as what they are (a proxy
// that cuts /api or /apis in front of the real server); and the request
// ledger, whose count must equal the real server's audit log.
package bounds

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

var (
	sharedOnce sync.Once
	sharedC    *framework.Cluster
	sharedErr  error
)

// cluster is the package's real etcd + kube-apiserver, started by the
// first test that needs one (the fault servers need none). A cluster that
// cannot start fails the test.
func cluster(t *testing.T) *framework.Cluster {
	t.Helper()
	sharedOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
		defer cancel()
		sharedC, sharedErr = framework.Start(ctx, framework.Options{Logf: t.Logf})
	})
	if sharedErr != nil {
		t.Fatalf("cannot start the real etcd + kube-apiserver: %v", sharedErr)
	}
	return sharedC
}

func TestMain(m *testing.M) {
	if _, err := framework.PluginBinary(); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		os.Exit(1)
	}
	code := m.Run()
	if sharedC != nil {
		sharedC.Stop()
	}
	os.Exit(code)
}
