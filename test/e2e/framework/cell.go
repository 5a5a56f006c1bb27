package framework

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Cell is one server of the matrix (issue 18): a kube-apiserver minor
// version, the storage under it, and whether its watch cache is on. Its
// name reads "v1.33/etcd/cache-off".
type Cell struct {
	Version    string // "v1.30", "v1.33", "v1.35", "v1.36", "v1.37"
	Storage    string // "etcd" (v3.7.3) or "kine" (v0.17.5 on SQLite)
	WatchCache bool
}

// GitVersions is the patch release built for each minor (test/cluster/k8s
// and build.sh): what /version's gitVersion must say.
var GitVersions = map[string]string{
	"v1.30": "v1.30.14",
	"v1.33": "v1.33.13",
	"v1.35": "v1.35.4",
	"v1.36": "v1.36.3",
	"v1.37": "v1.37.2",
}

// Name is the cell's name, e.g. "v1.37/kine/cache-on".
func (c Cell) Name() string {
	cache := "cache-off"
	if c.WatchCache {
		cache = "cache-on"
	}
	return c.Version + "/" + c.Storage + "/" + cache
}

// GitVersion is the full version the cell's kube-apiserver reports.
func (c Cell) GitVersion() string { return GitVersions[c.Version] }

// ParseCell reads a cell name: VERSION/STORAGE/cache-on|cache-off.
func ParseCell(name string) (Cell, error) {
	parts := strings.Split(name, "/")
	if len(parts) != 3 {
		return Cell{}, fmt.Errorf("cell %q: want VERSION/STORAGE/cache-on|cache-off, e.g. v1.33/etcd/cache-off", name)
	}
	c := Cell{Version: parts[0], Storage: parts[1]}
	if _, ok := GitVersions[c.Version]; !ok {
		return Cell{}, fmt.Errorf("cell %q: unknown version %q (known: v1.30, v1.33, v1.35, v1.36, v1.37)", name, c.Version)
	}
	if c.Storage != "etcd" && c.Storage != "kine" {
		return Cell{}, fmt.Errorf("cell %q: unknown storage %q (etcd or kine)", name, c.Storage)
	}
	switch parts[2] {
	case "cache-on":
		c.WatchCache = true
	case "cache-off":
	default:
		return Cell{}, fmt.Errorf("cell %q: %q is neither cache-on nor cache-off", name, parts[2])
	}
	return c, nil
}

// MatrixVersions are the kube-apiserver minors of the matrix, oldest first.
var MatrixVersions = []string{"v1.30", "v1.33", "v1.35", "v1.36", "v1.37"}

// MatrixCells are the cells make test runs: every version over etcd, and
// v1.37 over kine (k3s's storage), each with the watch cache on and off.
// StartCell starts any other combination too (kine under v1.30, ...).
func MatrixCells() []Cell {
	var cells []Cell
	for _, v := range MatrixVersions {
		for _, wc := range []bool{true, false} {
			cells = append(cells, Cell{Version: v, Storage: "etcd", WatchCache: wc})
		}
	}
	for _, wc := range []bool{true, false} {
		cells = append(cells, Cell{Version: "v1.37", Storage: "kine", WatchCache: wc})
	}
	return cells
}

// cellBinaries are the binaries one cell runs.
type cellBinaries struct {
	apiserver string // the kube-apiserver binary
	storage   string // the etcd or kine binary
}

func (c Cell) binaries() (cellBinaries, error) {
	dirs, err := MatrixBinaries()
	if err != nil {
		return cellBinaries{}, err
	}
	api, ok := dirs[c.Version]
	if !ok {
		return cellBinaries{}, fmt.Errorf("cell %s: no kube-apiserver %s in the matrix binaries (test/cluster/build-matrix.sh)", c.Name(), c.Version)
	}
	st, ok := dirs[c.Storage]
	if !ok {
		return cellBinaries{}, fmt.Errorf("cell %s: no %s in the matrix binaries (test/cluster/build-matrix.sh)", c.Name(), c.Storage)
	}
	return cellBinaries{apiserver: filepath.Join(api, "kube-apiserver"), storage: filepath.Join(st, c.Storage)}, nil
}

// StartCellCluster starts the cell's storage and one kube-apiserver with the
// flags of every cluster (cluster.go) plus o; the watch cache setting is the
// cell's. On error everything started so far is stopped.
func StartCellCluster(ctx context.Context, cell Cell, opts Options) (c *Cluster, err error) {
	bins, err := cell.binaries()
	if err != nil {
		return nil, err
	}
	opts.APIServer.DisableWatchCache = !cell.WatchCache
	return start(ctx, clusterBinaries{etcd: bins.storage, apiserver: bins.apiserver, kine: cell.Storage == "kine"}, cell, opts)
}

// StartCell starts the cell named name (e.g. "v1.33/etcd/cache-off") for
// one test and stops it when the test ends. A cell that cannot start fails
// the test: an e2e test is never skipped.
func StartCell(t testing.TB, name string, o ...APIServerOptions) *Cluster {
	t.Helper()
	cell, err := ParseCell(name)
	if err != nil {
		t.Fatal(err)
	}
	var opts Options
	if len(o) > 0 {
		opts.APIServer = o[0]
	}
	opts.Logf = t.Logf
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	c, err := StartCellCluster(ctx, cell, opts)
	if err != nil {
		t.Fatalf("cannot start cell %s: %v", name, err)
	}
	t.Cleanup(c.Stop)
	return c
}
