//go:build e2e

package topcells

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestTopRestartBetweenSamples: the API server restarts between top's
// two samples. Its counters start again from 0: top says the server
// restarted (its process start time changed), gives no rate for the
// interval, and never a negative one; the gauges are the new process's.
func TestTopRestartBetweenSamples(t *testing.T) {
	c := framework.StartT(t, framework.APIServerOptions{})
	ctx := context.Background()
	run, err := framework.StartLoad(ctx, c, 0, "top-restart", framework.Load{ListsPerSecond: 2, Objects: 10, Matching: 2, WritesPerSecond: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer run.Stop()
	restarted := make(chan error, 1)
	go func() {
		time.Sleep(3 * time.Second) // after top's first sample
		restarted <- c.RestartAPIServer(ctx, 0)
	}()
	r, res := framework.RunTopJSON(t, c.Kubeconfig, "--interval", "40s", "configmaps", "widgets.example.com")
	if err := <-restarted; err != nil {
		t.Fatal(err)
	}
	if res.Code != 0 || len(r.Servers) != 1 {
		t.Fatalf("exit %d: %s", res.Code, res.Stderr)
	}
	s := r.Servers[0]
	if !s.Restarted || !strings.Contains(s.RestartNote, "restarted between the two samples") {
		t.Fatalf("the restart is not said: %+v", s)
	}
	for _, row := range r.Rows {
		for name, x := range map[string]*float64{"events": row.Events.Delta, "lists": row.ListsCache.Delta, "storage lists": row.ListsStorage.Delta, "received": row.CacheReceived.Delta} {
			if x != nil {
				t.Errorf("%s %s: a rate (%v) across a restart", row.Name(), name, *x)
			}
		}
		if row.Events.First == nil || !(row.Events.Restarted || row.Events.WentDown) {
			t.Errorf("%s events: %+v, want both samples and the restart", row.Name(), row.Events)
		}
	}
	human := framework.Run(t, c.Kubeconfig, time.Minute, "top", "--interval", "1s", "configmaps")
	if human.Code != 0 || strings.Contains(human.Stdout, "-1") {
		t.Errorf("after the restart: exit %d\n%s", human.Code, human.Stdout)
	}
}
