package framework

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
)

// Main is the TestMain of an e2e package: it starts the package's shared
// cluster into *shared, builds the plugin, runs the tests and stops the
// cluster. A cluster that cannot start fails the package loudly.
func Main(m *testing.M, shared **Cluster) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	c, err := Start(ctx, Options{Logf: func(f string, a ...any) { fmt.Printf(f+"\n", a...) }})
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: cannot start the real etcd + kube-apiserver: %v\n", err)
		os.Exit(1)
	}
	*shared = c
	if _, err := PluginBinary(); err != nil {
		c.Stop()
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		os.Exit(1)
	}
	code := m.Run()
	c.Stop()
	os.Exit(code)
}

// Namespace creates a namespace of the test's own on c and returns the
// harness's admin clientset.
func Namespace(t testing.TB, c *Cluster, name string) (*kubernetes.Clientset, string) {
	t.Helper()
	cs, err := c.Clientset(0)
	if err != nil {
		t.Fatal(err)
	}
	if err := CreateNamespace(context.Background(), cs, name); err != nil {
		t.Fatalf("creating namespace %s: %v", name, err)
	}
	return cs, name
}
