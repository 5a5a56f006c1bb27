//go:build e2e

package matrix

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

var update = flag.Bool("update", false, "rewrite docs/servers.md from what every cell showed (make servers-doc)")

// checksMade counts the oracle's checks (each a comparison of a printed
// number or verdict with brute force), over every cell and seed.
var checksMade atomic.Int64

// sheet is what each cell showed, behaviour by behaviour: the source of
// docs/servers.md. Only facts that do not depend on timing or the seed go
// in it (which server serves a read, a status code, a verdict), so that the
// page can be checked against any run.
var sheet = struct {
	sync.Mutex
	facts    map[string]map[string]string // behaviour -> cell name -> what it showed
	captures map[string]string            // cell name -> a command and its output
}{facts: map[string]map[string]string{}, captures: map[string]string{}}

// capture keeps one real output of the plugin on cell for the page (the
// first seed's; not compared: its numbers change with every run).
func capture(cell framework.Cell, cmd, out string) {
	sheet.Lock()
	defer sheet.Unlock()
	if _, ok := sheet.captures[cell.Name()]; !ok {
		sheet.captures[cell.Name()] = "$ kubectl watchrv " + cmd + "\n" + strings.TrimRight(out, "\n")
	}
}

// record notes what cell showed for behaviour. Two different answers of
// one cell (two seeds) are both kept, so that a flaky fact shows.
func record(cell framework.Cell, behaviour, showed string) {
	sheet.Lock()
	defer sheet.Unlock()
	m := sheet.facts[behaviour]
	if m == nil {
		m = map[string]string{}
		sheet.facts[behaviour] = m
	}
	if old, ok := m[cell.Name()]; ok && old != showed && !strings.Contains(old, showed) {
		showed = old + " / " + showed
	}
	m[cell.Name()] = showed
}

// cellsWanted is WATCHRV_MATRIX_CELLS (comma-separated cell names) when
// set, else every cell: a developer runs one or two cells while building;
// make test runs them all.
func cellsWanted(t *testing.T) []framework.Cell {
	all := framework.MatrixCells()
	env := os.Getenv("WATCHRV_MATRIX_CELLS")
	if env == "" {
		return all
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

// behaviours are the page's tables, in order, with the words above each.
// stable marks the behaviours make test holds the page to on every run of
// all cells: what a server serves and answers. The others (bookmark timing,
// where the cache's window happens to start, what kind of depth a short
// series gets) are written by make servers-doc and not compared.
var behaviours = []struct {
	key, title, why string
	stable          bool
}{
	{"gates", "Feature gates (`kubernetes_feature_enabled` on /metrics)", "What the server says it has on; a gate missing from the list is the version's default (graduated), not off.", true},
	{"read consistent (RV unset)", "Who serves a consistent list (RV unset)", "Witnessed by `apiserver_cache_list_total` / `apiserver_storage_list_total` of a resource nothing else lists.", true},
	{"read rv=0", "Who serves a list with `resourceVersion=0`", "", true},
	{"read exact", "Who serves an exact-RV list (`resourceVersionMatch=Exact`)", "Measured at an RV the watch cache has just reached, where it keeps a snapshot. From v1.35 the cache serves an exact list only while it keeps a snapshot at or below the RV: at an older RV storage serves it (seen on v1.36.3 after 80 s and 150 writes), so `clients` counts such lists as not known. Where storage serves it, an exact list of a compacted RV fails with 410 even while a watch from the same RV works (served by the cache).", true},
	{"streaming list", "A raw streaming list (`sendInitialEvents=true`)", "", true},
	{"watch state end", "The end of a watch's state (RV unset, and `resourceVersion=0`)", "A watch from RV unset or 0 sends the state as `ADDED` in key order; where the server ends it with the bookmark annotated `k8s.io/initial-events-end: \"true\"`, `watch` notes it (`initial state complete at RV X`) and resumes from it; where none comes, no RV of the state is a resume point.", true},
	{"streaming configmaps", "`kubectl watchrv streaming configmaps`", "The plugin's verdict; checked against a real client-go informer on the same server (next table).", true},
	{"client-go informer syncs from", "A real client-go informer syncs from", "`watchlist`: from the streaming list; `list`: it fell back to list+watch.", true},
	{"bookmarks", "A quiet watch with `allowWatchBookmarks=true` (75 s)", "Where no bookmark comes, silence is normal: it is not a stalled stream.", false},
	{"compaction", "A compaction at the current RV (watch cache off)", "kine clamps every compaction to current RV - `--compact-min-retain` (1000).", true},
	{"watch across compaction", "A watch from just below a change of an object whose previous version is compacted (watch cache off)", "kine drops PrevKv there and the API server ends the watch with a 500; etcd delivers the event.", true},
	{"probe source", "Who answers 410 below probe's oldest RV (`probe configmaps -o json` `source`)", "", false},
	{"explain list-exact at a compacted RV", "An exact list at a compacted RV", "", true},
	{"explain-error --check list-exact", "`explain-error --check --operation list-exact` of that error", "What the check tried, and what re-running the exact list found.", true},
	{"explain watch at a compacted RV", "A watch from a compacted RV", "", false},
	{"explain-error --check watch", "`explain-error --check --operation watch` of that error", "", false},
	{"watch --follow from a compacted RV", "`watch --follow --rv R` from a compacted RV R", "Either way, the events and the gap reports printed add up to the state the harness's write log says is alive.", false},
	{"probe --metrics limit", "`probe configmaps --metrics`: what limits the window", "", false},
	{"apiserver_watch_cache_resource_version", "`apiserver_watch_cache_resource_version` on /metrics", "", true},
	{"probe --interval depth", "`probe --interval` depth: what kind of number it prints", "`measured`: the oldest RV was seen as current during the series; `estimate`: extrapolated from a rate, and said to be one; bounds come from object timestamps. Each was checked against the harness's write log.", false},
}

const serversHeader = `# Servers the plugin is checked on

<!-- Generated by test/e2e/matrix (make servers-doc); TestMatrix checks this page against every run of all cells. Do not edit by hand. -->

Every behaviour below was measured by ` + "`make test`" + ` (test/e2e/matrix) on real
servers started on loopback: kube-apiserver v1.30.14, v1.33.13, v1.35.4, v1.36.3 and
v1.37.2 over etcd v3.7.3, and v1.37.2 over kine v0.17.5 on SQLite (k3s's
storage), each with the watch cache on and off (` + "`--watch-cache=false`" + `).
The same suite's oracle writes a logged history on each cell and checks
every number and verdict the plugin prints (` + "`list`, `probe`, `probe --metrics`, `probe --interval`, `streaming`, `explain-error --check`" + `)
against the server's own answers; a mismatch names the cell, the seed and
the command. ` + "`make test`" + ` runs one seed per cell; ` + "`make oracle SEEDS=20`" + ` runs
twenty, and from the fourth seed on every other history restarts the API
server in its middle. The facts themselves, with the reasons behind them,
are in [concepts](concepts.md).

`

// markdown renders the sheet: one table per behaviour, a row per version
// and storage, a column per watch cache setting.
func markdown(ran map[string]bool) string {
	sheet.Lock()
	defer sheet.Unlock()
	var b strings.Builder
	b.WriteString(serversHeader)
	b.WriteString("## The matrix\n\n| cell | kube-apiserver | storage | watch cache |\n| --- | --- | --- | --- |\n")
	for _, c := range framework.MatrixCells() {
		if !ran[c.Name()] {
			fmt.Fprintf(&b, "| `%s` | %s | not run when this page was written | |\n", c.Name(), c.GitVersion())
			continue
		}
		wc := "off"
		if c.WatchCache {
			wc = "on"
		}
		st := "etcd v3.7.3"
		if c.Storage == "kine" {
			st = "kine v0.17.5 (SQLite)"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", c.Name(), c.GitVersion(), st, wc)
	}
	b.WriteString("\n## What each cell showed\n")
	for _, beh := range behaviours {
		b.WriteString(behaviourTable(beh.key, beh.title, beh.why, nil))
	}
	b.WriteString("\n## Captured output, per cell\n\nWhat `probe` printed on each cell after the oracle's history (its numbers change with every run; the page's tables above do not).\n")
	for _, c := range framework.MatrixCells() {
		if out, ok := sheet.captures[c.Name()]; ok {
			fmt.Fprintf(&b, "\n#### `%s`\n\n```console\n%s\n```\n", c.Name(), out)
		}
	}
	var known []string
	for key, m := range sheet.facts {
		if strings.HasPrefix(key, "known mismatch: ") {
			cells := make([]string, 0, len(m))
			why := ""
			for c, w := range m {
				cells, why = append(cells, "`"+c+"`"), w
			}
			sort.Strings(cells)
			known = append(known, fmt.Sprintf("- `%s` (%s): %s", strings.TrimPrefix(key, "known mismatch: "), why, strings.Join(cells, ", ")))
		}
	}
	if len(known) > 0 {
		sort.Strings(known)
		b.WriteString("\n## Known wrong, not fixed yet\n\nThe oracle found the plugin wrong here; the issue that tracks each is named.\n\n")
		b.WriteString(strings.Join(known, "\n") + "\n")
	}
	return b.String()
}

// behaviourTable is one behaviour's table (empty when no cell showed it):
// a row per version and storage, a column per watch cache setting. The
// caller holds sheet's lock.
func behaviourTable(key, title, why string, skip map[string]bool) string {
	m := map[string]string{}
	for c, v := range sheet.facts[key] {
		if !skip[c] {
			m[c] = v
		}
	}
	if len(m) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n### %s\n\n", title)
	if why != "" {
		b.WriteString(why + "\n\n")
	}
	b.WriteString("| server | watch cache on | watch cache off |\n| --- | --- | --- |\n")
	for _, r := range []string{"v1.30/etcd", "v1.33/etcd", "v1.35/etcd", "v1.36/etcd", "v1.37/etcd", "v1.37/kine"} {
		on, off := m[r+"/cache-on"], m[r+"/cache-off"]
		if on == "" && off == "" {
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", r, cellText(on), cellText(off))
	}
	return b.String()
}

func cellText(s string) string {
	if s == "" {
		return "-"
	}
	return strings.ReplaceAll(s, "|", "\\|")
}

// checkServersPage writes docs/servers.md (-update) or checks that its
// stable tables are what this run showed; only a run with no failure, of
// every cell the page shows, speaks for it.
func checkServersPage(t *testing.T, ran []framework.Cell, oneSeed bool) {
	t.Logf("oracle: %d checks on %d cells", checksMade.Load(), len(ran))
	names := map[string]bool{}
	for _, c := range ran {
		names[c.Name()] = true
	}
	if !oneSeed || t.Failed() {
		return
	}
	path := filepath.Join(framework.RepoRoot(), "docs", "servers.md")
	want := markdown(names)
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("docs/servers.md: %v (make servers-doc writes it)", err)
	}
	// A cell the page says was not run when it was written is left out
	// of the comparison (make servers-doc adds it).
	// The page is compared only on a run of every cell it shows.
	skip := map[string]bool{}
	for _, c := range framework.MatrixCells() {
		switch {
		case strings.Contains(string(got), "| `"+c.Name()+"` | "+c.GitVersion()+" | not run when this page was written |"):
			skip[c.Name()] = true
		case !names[c.Name()]:
			return
		}
	}
	sheet.Lock()
	defer sheet.Unlock()
	for _, beh := range behaviours {
		if !beh.stable {
			continue
		}
		if table := behaviourTable(beh.key, beh.title, beh.why, skip); !strings.Contains(string(got), table) {
			t.Errorf("docs/servers.md: the table %q is not what the cells showed in this run (make servers-doc rewrites the page; review the diff). This run:\n%s", beh.title, table)
		}
	}
}
