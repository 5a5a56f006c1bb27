//go:build e2e

// Package matrix starts every cell of the server matrix (kube-apiserver
// v1.30, v1.33, v1.35, v1.36, v1.37 over etcd v3.7.3, v1.37 over kine v0.17.5 on
// SQLite; each with the watch cache on and off) and checks on each the
// facts that differ between them (shared/reference/rv-semantics.md, "Other
// versions and other storage"): the ground truth the plugin's texts and the
// oracle are held to; then, on the cell where each showed, that the texts
// issue 18 found wrong are now chosen from what the plugin knows of the
// server (claims_test.go). Cells run in parallel; each starts once.
package matrix

import (
	"fmt"
	"sort"
	"sync"
	"testing"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// starting bounds how many cells start at once: a kube-apiserver's start
// is CPU-bound, and ten at once on two cores miss their readiness deadline.
var starting = make(chan struct{}, 3)

// startCell starts cell for test t (bounded, see starting), once its
// turn came (see startOrder).
func startCell(t *testing.T, cell framework.Cell, turn <-chan struct{}) *framework.Cluster {
	t.Helper()
	<-turn
	defer func() { <-starting }()
	return framework.StartCell(t, cell.Name())
}

// firstToStart are the cells that run longest after their start (a 100 s
// watch beside the checks; a second API server; kine's lost change): they
// start first, so that the matrix ends with the quick ones.
var firstToStart = []string{"v1.37/etcd/cache-off", "v1.30/etcd/cache-on", "v1.37/kine/cache-off"}

// startOrder gives each cell its turn to start: those of firstToStart
// first, then the others in the matrix's order; a turn comes when a start
// slot is free.
func startOrder(cells []framework.Cell) map[string]chan struct{} {
	rank := map[string]int{}
	for i, n := range firstToStart {
		rank[n] = i - len(firstToStart)
	}
	order := append([]framework.Cell(nil), cells...)
	sort.SliceStable(order, func(i, j int) bool { return rank[order[i].Name()] < rank[order[j].Name()] })
	turns := map[string]chan struct{}{}
	for _, c := range order {
		turns[c.Name()] = make(chan struct{})
	}
	go func() {
		for _, c := range order {
			starting <- struct{}{}
			close(turns[c.Name()])
		}
	}()
	return turns
}

// forEachCell runs f on every cell of the matrix, each in its own running
// cell, all at once. The subtests are started from goroutines rather than
// marked t.Parallel: go test runs at most GOMAXPROCS parallel tests (2
// here), and the cells spend most of their time waiting on servers.
func forEachCell(t *testing.T, f func(t *testing.T, cell framework.Cell, c *framework.Cluster)) (ran []framework.Cell) {
	var wg sync.WaitGroup
	cells := cellsWanted(t)
	turns := startOrder(cells)
	for _, cell := range cells {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.Run(cell.Name(), func(t *testing.T) { f(t, cell, startCell(t, cell, turns[cell.Name()])) })
		}()
	}
	wg.Wait()
	return cells
}

// TestCellNames: every name StartCell takes reads back to itself, and a
// wrong one is refused with the form it wants.
func TestCellNames(t *testing.T) {
	for _, v := range framework.MatrixVersions {
		for _, st := range []string{"etcd", "kine"} {
			for _, wc := range []string{"cache-on", "cache-off"} {
				name := fmt.Sprintf("%s/%s/%s", v, st, wc)
				cell, err := framework.ParseCell(name)
				if err != nil || cell.Name() != name {
					t.Fatalf("%s: %v, %+v", name, err, cell)
				}
			}
		}
	}
	for _, bad := range []string{"v1.31/etcd/cache-on", "v1.37/mysql/cache-on", "v1.37/etcd/on", "v1.37/etcd"} {
		if _, err := framework.ParseCell(bad); err == nil {
			t.Fatalf("%s: accepted", bad)
		}
	}
}
