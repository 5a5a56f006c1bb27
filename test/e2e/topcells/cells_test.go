//go:build e2e

// Package topcells runs "kubectl watchrv top" on every cell of the server
// matrix (kube-apiserver v1.30 to v1.37 over etcd, v1.37 over kine; the
// watch cache on and off) under a known load, with a watcher too slow to
// read, and across an API server restart. It is in make test-long: each
// cell starts its own servers.
package topcells

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/top"
	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// starting bounds how many cells start at once (a kube-apiserver's start
// is CPU-bound).
var starting = make(chan struct{}, 3)

// cellsWanted is every cell of the matrix, or WATCHRV_MATRIX_CELLS's.
func cellsWanted(t *testing.T) []framework.Cell {
	env := os.Getenv("WATCHRV_MATRIX_CELLS")
	if env == "" {
		return framework.MatrixCells()
	}
	var out []framework.Cell
	for _, name := range strings.Split(env, ",") {
		c, err := framework.ParseCell(strings.TrimSpace(name))
		if err != nil {
			t.Fatalf("WATCHRV_MATRIX_CELLS: %v", err)
		}
		out = append(out, c)
	}
	return out
}

// forEachCell runs f on every cell, each in its own running cell, at once
// (subtests from goroutines: go test would run only GOMAXPROCS at a time).
func forEachCell(t *testing.T, f func(t *testing.T, cell framework.Cell, c *framework.Cluster)) {
	var wg sync.WaitGroup
	for _, cell := range cellsWanted(t) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.Run(cell.Name(), func(t *testing.T) {
				f(t, cell, startCell(t, cell))
			})
		}()
	}
	wg.Wait()
}

// startCell starts cell for t, at most len(starting) at once.
func startCell(t *testing.T, cell framework.Cell) *framework.Cluster {
	starting <- struct{}{}
	defer func() { <-starting }()
	return framework.StartCell(t, cell.Name())
}

// load is the known load of every cell (framework.Load).
// 60 objects, 4 selected: a storage list reads 15 per object returned,
// clear of the callout's threshold (10) whatever list a sample falls in.
var load = framework.Load{Informers: 3, RawWatches: 2, ListsPerSecond: 4, Objects: 60, Matching: 4, WritesPerSecond: 4}

// TestTopCells: on every cell, top reports exactly the watchers opened and
// the events, lists and storage reads within what the interval allows;
// names each family the cell does not expose; --check
// --max-storage-list-ratio exits 14 where the selected lists read storage;
// and a watcher too slow to read shows as closed where the watch cache
// closes it (the cells with a watch cache), named as not exposed where
// there is none.
func TestTopCells(t *testing.T) {
	forEachCell(t, func(t *testing.T, cell framework.Cell, c *framework.Cluster) {
		ctx := context.Background()
		run, err := framework.StartLoad(ctx, c, 0, "top-load", load)
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second)
		raw1, err := c.TopMetrics(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		r, res := framework.RunTopJSON(t, c.Kubeconfig, "--interval", "5s", "--check", "--max-storage-list-ratio", "5", "widgets.example.com", "configmaps")
		raw2, err := c.TopMetrics(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		run.Stop()
		cms := framework.TopRow(r, 1, "", "configmaps")
		t.Logf("widgets: %s", framework.RowSummary(framework.TopRow(r, 1, "example.com", "widgets")))
		t.Logf("configmaps: %s", framework.RowSummary(cms))
		framework.CheckTopLoad(t, cell, r, run)
		framework.CheckTopLabels(t, cell, raw2)
		framework.RecordTopMetrics(t, cell, raw1, raw2)
		if errs := run.Errs(); len(errs) > 0 {
			t.Errorf("the load's own requests failed: %v", errs)
		}
		checkRatio(t, cell, r, res, cms)
		checkSlowWatcher(t, cell, c)
	})
}

// checkRatio: where the lists were served by storage (they read objects:
// every object of the namespace for the few selected, 60 for 4, a ratio of
// 15), --check
// --max-storage-list-ratio 5 exits 14 and the lists are called out, with
// the cell's reason; where the watch cache served them, it passes.
func checkRatio(t *testing.T, cell framework.Cell, r *top.Report, res framework.Result, cms *top.Row) {
	t.Helper()
	if cms == nil {
		return
	}
	if cms.StorageFetched.D() == 0 {
		if res.Code != 0 {
			t.Errorf("no storage list, ratio within bounds: exit %d, %s", res.Code, res.Stderr)
		}
		return
	}
	if res.Code != 14 || !strings.Contains(res.Stderr, "--max-storage-list-ratio 5: configmaps: ") {
		t.Errorf("storage lists read 15 objects per object returned: exit %d, stderr %q; want 14 naming the bound", res.Code, res.Stderr)
	}
	var found bool
	for _, co := range r.Callouts {
		if co.Kind == "storage-list-ratio" && co.Resource == "configmaps" {
			found = true
			if cached := !strings.Contains(co.Meaning, "has no watch cache for configmaps"); cached != cell.WatchCache {
				t.Errorf("the callout's reason does not match the cell's watch cache: %q", co.Meaning)
			}
		}
	}
	if !found {
		t.Errorf("lists of configmaps that read storage are not called out: %+v", r.Callouts)
	}
}

// checkSlowWatcher opens a watch of configmaps that is never read and
// writes 60 configmaps of 100 KB while top measures.
func checkSlowWatcher(t *testing.T, cell framework.Cell, c *framework.Cluster) {
	t.Helper()
	ctx := context.Background()
	cs, err := c.Clientset(0)
	if err != nil {
		t.Fatal(err)
	}
	if err := framework.CreateNamespace(ctx, cs, "top-slow"); err != nil {
		t.Fatal(err)
	}
	w, err := framework.OpenSlowWatcher(ctx, c.RESTConfig(0), "/api/v1/namespaces/top-slow/configmaps?watch=1")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	written := make(chan error, 1)
	go func() {
		time.Sleep(2 * time.Second)
		// Enough bytes to fill the socket buffers and the watcher's
		// channel even when a busy machine slows the writes down.
		written <- c.WriteBigConfigMaps(ctx, 0, "top-slow", "big", 150, 100_000)
	}()
	r, res := framework.RunTopJSON(t, c.Kubeconfig, "--interval", "20s", "--check", "--max-terminated", "0", "configmaps")
	if err := <-written; err != nil {
		t.Fatal(err)
	}
	row := framework.TopRow(r, 1, "", "configmaps")
	t.Logf("slow watcher: configmaps %s; exit %d", framework.RowSummary(row), res.Code)
	if row == nil {
		t.Fatal("no configmaps row")
	}
	if cell.WatchCache {
		if row.Terminated.D() < 1 || res.Code != 14 {
			t.Errorf("the watch cache closes a watcher that does not read: terminated %s, exit %d (%s)", framework.RowSummary(row), res.Code, res.Stderr)
		}
		if cell.Name() == "v1.37/etcd/cache-on" {
			slowWatcherHuman(t, c)
		}
		return
	}
	if row.Terminated.Known() || !strings.Contains(row.Terminated.Missing, "watch cache is off") || res.Code != 1 || !strings.Contains(res.Stderr, "could not be checked") {
		t.Errorf("no watch cache: terminated %q, exit %d (%s); want it named, and the bound not checked (exit 1)", row.Terminated.Missing, res.Code, res.Stderr)
	}
}

// slowWatcherHuman: the same again, in the human view (the output
// docs/top.md shows): the row's CLOSED count and the callout first.
func slowWatcherHuman(t *testing.T, c *framework.Cluster) {
	t.Helper()
	ctx := context.Background()
	w, err := framework.OpenSlowWatcher(ctx, c.RESTConfig(0), "/api/v1/namespaces/top-slow/configmaps?watch=1")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	written := make(chan error, 1)
	go func() {
		time.Sleep(2 * time.Second)
		written <- c.WriteBigConfigMaps(ctx, 0, "top-slow", "again", 60, 100_000)
	}()
	res := framework.Run(t, c.Kubeconfig, 3*time.Minute, "top", "--once", "--interval", "15s", "configmaps", "widgets.example.com")
	if err := <-written; err != nil {
		t.Fatal(err)
	}
	if res.Code != 0 || !strings.Contains(res.Stdout, "1. watchers of configmaps closed as too slow: 1 in ") {
		t.Errorf("human view of a closed watcher: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	t.Logf("top, a watcher closed as too slow:\n%s", res.Stdout)
}
