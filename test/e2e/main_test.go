//go:build e2e

// Package e2e runs the plugin against a real kube-apiserver v1.37.2 over a
// real etcd, both started here on loopback and stopped at the end.
package e2e

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// shared is the cluster most tests use; tests that need other API server
// flags, restarts or compaction start their own.
var shared *framework.Cluster

func TestMain(m *testing.M) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	c, err := framework.Start(ctx, framework.Options{Logf: func(f string, a ...any) { fmt.Printf(f+"\n", a...) }})
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: cannot start the real etcd + kube-apiserver: %v\n", err)
		os.Exit(1)
	}
	shared = c
	if _, err := framework.PluginBinary(); err != nil {
		c.Stop()
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		os.Exit(1)
	}
	code := m.Run()
	c.Stop()
	os.Exit(code)
}

// newNamespace creates a namespace of the test's own on c.
func newNamespace(t *testing.T, c *framework.Cluster, name string) (*kubernetes.Clientset, string) {
	t.Helper()
	cs, err := c.Clientset(0)
	if err != nil {
		t.Fatal(err)
	}
	if err := framework.CreateNamespace(context.Background(), cs, name); err != nil {
		t.Fatalf("creating namespace %s: %v", name, err)
	}
	return cs, name
}
