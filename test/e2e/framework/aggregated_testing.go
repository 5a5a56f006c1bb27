package framework

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"
)

// StartAggregatedT starts a cluster for one test with the aggregated API
// registered (o's ExtraArgs come after the setup's flags), and stops both
// when the test ends. Anything that cannot start fails the test.
func StartAggregatedT(t testing.TB, o APIServerOptions) (*Cluster, *Aggregated) {
	t.Helper()
	agg, err := NewAggregated("")
	if err != nil {
		t.Fatalf("cannot start the aggregated API's extension server and egress proxy: %v", err)
	}
	t.Cleanup(agg.Close) // runs after c.Stop: cleanups run last-in first-out
	o.ExtraArgs = append(agg.APIServerArgs(), o.ExtraArgs...)
	c := StartT(t, o)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := agg.Register(ctx, c); err != nil {
		t.Fatalf("cannot register the aggregated API: %v", err)
	}
	return c, agg
}

// MainAggregated is Main with the aggregated API registered on the shared
// cluster.
func MainAggregated(m *testing.M, shared **Cluster, aggregated **Aggregated) {
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		os.Exit(1)
	}
	agg, err := NewAggregated("")
	if err != nil {
		fail(fmt.Errorf("cannot start the aggregated API's extension server and egress proxy: %w", err))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	c, err := Start(ctx, Options{
		APIServer: APIServerOptions{ExtraArgs: agg.APIServerArgs()},
		Logf:      func(f string, a ...any) { fmt.Printf(f+"\n", a...) },
	})
	if err != nil {
		cancel()
		agg.Close()
		fail(fmt.Errorf("cannot start the real etcd + kube-apiserver: %w", err))
	}
	err = agg.Register(ctx, c)
	cancel()
	if err == nil {
		_, err = PluginBinary()
	}
	if err != nil {
		c.Stop()
		agg.Close()
		fail(err)
	}
	*shared, *aggregated = c, agg
	code := m.Run()
	c.Stop()
	agg.Close()
	os.Exit(code)
}
