//go:build e2e

package ha

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestTopImbalance: 80 watches placed on server 1 only (its own address,
// as a client that stayed on it since a rolling restart) show in top
// --servers as that server's row, none on the others, and the watchers'
// spread across the servers is judged imbalanced and called out.
func TestTopImbalance(t *testing.T) {
	ctx := context.Background()
	run, err := framework.StartLoad(ctx, shared.Cluster, 0, "ha-top", framework.Load{Informers: 5, RawWatches: 75})
	if err != nil {
		t.Fatal(err)
	}
	defer run.Stop()
	r, res := framework.RunTopJSON(t, shared.Kubeconfig, "--servers", "--interval", "2s", "widgets.example.com")
	if res.Code != 0 || len(r.Servers) != 3 {
		t.Fatalf("exit %d, %d servers: %s", res.Code, len(r.Servers), res.Stderr)
	}
	for i, s := range r.Servers {
		if !s.Answered() || s.Endpoint != shared.EndpointAddr(i) {
			t.Fatalf("server %d: %+v", i+1, s)
		}
		want := 0.0
		if i == 0 {
			want = 80
		}
		row := framework.TopRow(r, i+1, "example.com", "widgets")
		if row == nil || !row.Watchers.Known() || row.Watchers.V() != want {
			t.Errorf("server %d: widgets %s, want exactly %v watchers", i+1, framework.RowSummary(row), want)
		}
	}
	im := r.Imbalance
	if im == nil || im.Watchers.Balanced || !strings.Contains(im.Watchers.Verdict, "imbalanced: server 1 holds 80 of 80 watchers") {
		t.Errorf("imbalance %+v", im)
	}
	found := false
	for _, c := range r.Callouts {
		if c.Kind == "watch-imbalance" && strings.Contains(c.Fix, "--goaway-chance") {
			found = true
		}
	}
	if !found {
		t.Errorf("no watch-imbalance callout: %+v", r.Callouts)
	}
	human := framework.Run(t, shared.Kubeconfig, time.Minute, "top", "--servers", "--interval", "2s")
	if human.Code != 0 || !containsAll(human.Stdout, "SERVER", "Watchers across servers:", "imbalanced: server 1 holds", "198.51.100.3") {
		t.Errorf("human: exit %d\n%s\n%s", human.Code, human.Stdout, human.Stderr)
	}
	t.Logf("%s", human.Stdout)
}
