//go:build e2e

package top

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// testLoad is the load of every load test: 3 informers and 2 raw watches
// on widgets, 4 lists a second of 40 configmaps selecting 4, 4 writes a
// second.
var testLoad = framework.Load{Informers: 3, RawWatches: 2, ListsPerSecond: 4, Objects: 40, Matching: 4, WritesPerSecond: 4}

// TestTopLoad: top reports exactly the watchers opened, and the events,
// lists and storage reads within what the requests between its two samples
// allow.
func TestTopLoad(t *testing.T) {
	ctx := context.Background()
	run, err := framework.StartLoad(ctx, shared, 0, "top-load", testLoad)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Stop()
	time.Sleep(time.Second)
	raw1, err := shared.TopMetrics(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	r, res := framework.RunTopJSON(t, shared.Kubeconfig, "--interval", "5s", "widgets.example.com", "configmaps")
	if res.Code != 0 {
		t.Fatalf("exit %d: %s", res.Code, res.Stderr)
	}
	t.Logf("widgets: %s", framework.RowSummary(framework.TopRow(r, 1, "example.com", "widgets")))
	t.Logf("configmaps: %s", framework.RowSummary(framework.TopRow(r, 1, "", "configmaps")))
	framework.CheckTopLoad(t, cell, r, run)
	raw2, err := shared.TopMetrics(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	framework.CheckTopLabels(t, cell, raw2)
	framework.RecordTopMetrics(t, cell, raw1, raw2)
	human := framework.Run(t, shared.Kubeconfig, time.Minute, "top", "--interval", "3s", "-o", "wide", "widgets.example.com", "configmaps")
	if human.Code != 0 || !strings.Contains(human.Stdout, "CACHE IN/S") || !regexp.MustCompile(`\nwidgets\.example\.com +5 `).MatchString(human.Stdout) {
		t.Errorf("top -o wide: exit %d\n%s%s", human.Code, human.Stdout, human.Stderr)
	}
	t.Logf("top -o wide:\n%s", human.Stdout)
	if errs := run.Errs(); len(errs) > 0 {
		t.Fatalf("the load's own requests failed: %v", errs)
	}
}
