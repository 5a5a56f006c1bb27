//go:build e2e

package top

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestTopSlowWatcherTerminated: a client that stops reading a watch of
// configmaps while they are written is closed by the watch cache, and top
// counts it, calls it out, names the resource, and --check
// --max-terminated 0 exits 14.
func TestTopSlowWatcherTerminated(t *testing.T) {
	ctx := context.Background()
	_, ns := framework.Namespace(t, shared, "top-slow")
	w, err := framework.OpenSlowWatcher(ctx, shared.RESTConfig(0), "/api/v1/namespaces/"+ns+"/configmaps?watch=1")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	written := make(chan error, 1)
	go func() {
		time.Sleep(2 * time.Second) // after top's first sample
		written <- shared.WriteBigConfigMaps(ctx, 0, ns, "big", 60, 100_000)
	}()
	r, res := framework.RunTopJSON(t, shared.Kubeconfig, "--interval", "15s", "--check", "--max-terminated", "0", "configmaps")
	if err := <-written; err != nil {
		t.Fatal(err)
	}
	row := framework.TopRow(r, 1, "", "configmaps")
	t.Logf("configmaps: %s", framework.RowSummary(row))
	if row == nil || !row.Terminated.Known() || row.Terminated.D() < 1 {
		t.Fatalf("top counts no watcher closed as too slow: %s\nstderr: %s", framework.RowSummary(row), res.Stderr)
	}
	if res.Code != 14 || !strings.Contains(res.Stderr, "--max-terminated 0: configmaps 1") {
		t.Errorf("--check --max-terminated 0: exit %d, stderr %q: want 14 naming the bound and configmaps", res.Code, res.Stderr)
	}
	if len(r.Callouts) == 0 || r.Callouts[0].Kind != "terminated" || !strings.Contains(r.Callouts[0].What, "watchers of configmaps closed as too slow") {
		t.Errorf("the first callout is not the closed watcher: %+v", r.Callouts)
	}
	human := framework.Run(t, shared.Kubeconfig, time.Minute, "top", "--once", "--interval", "1s", "configmaps")
	if human.Code != 0 || !strings.Contains(human.Stdout, "CLOSED") {
		t.Errorf("human view: exit %d\n%s%s", human.Code, human.Stdout, human.Stderr)
	}
}
