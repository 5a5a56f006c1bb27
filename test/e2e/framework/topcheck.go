package framework

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/watchrv/kubectl-watchrv/pkg/top"
)

// RunTopJSON runs "top --once -o json" with args and decodes its report.
// A run that fails or prints no report fails the test.
func RunTopJSON(t testing.TB, kubeconfig string, args ...string) (*top.Report, Result) {
	t.Helper()
	res := Run(t, kubeconfig, 3*time.Minute, append([]string{"top", "--once", "-o", "json"}, args...)...)
	var r top.Report
	if err := json.Unmarshal([]byte(res.Stdout), &r); err != nil {
		t.Fatalf("top -o json (exit %d) printed no report: %v\nstdout: %s\nstderr: %s", res.Code, err, res.Stdout, res.Stderr)
	}
	return &r, res
}

// TopRow is the row of group/resource on server (1-based), or nil.
func TopRow(r *top.Report, server int, group, resource string) *top.Row {
	for _, row := range r.Rows {
		if row.Server == server && row.Group == group && row.Resource == resource {
			return row
		}
	}
	return nil
}

// TopMissing is the reason server gives for not exposing family ("" none).
func TopMissing(s *top.Server, family string) string {
	for _, m := range s.Missing {
		if m.Family == family {
			return m.Reason
		}
	}
	return ""
}

// eventLag bounds how long after its write an event reaches the watch
// cache and its watchers on a loopback server.
const eventLag = 2 * time.Second

// CheckTopLoad holds top's report of one interval on cell to the load that
// ran: exactly the watchers opened on widgets; the events sent to them,
// their bytes and the events into the watch cache within what the writes
// between the samples allow; the lists within what the lister's requests
// between the samples allow, each served list returning Matching objects
// and a storage list reading Objects; and, where the cell has no watch
// cache or its version no such family, the family named, never a 0.
func CheckTopLoad(t testing.TB, cell Cell, r *top.Report, run *LoadRun) {
	t.Helper()
	if len(r.Servers) != 1 || !r.Servers[0].Answered() {
		t.Fatalf("%s: want one answered server, got %+v", cell.Name(), r.Servers)
	}
	s := r.Servers[0]
	if s.Version != cell.GitVersion() {
		t.Errorf("%s: version %q, want %q (kubernetes_build_info)", cell.Name(), s.Version, cell.GitVersion())
	}
	first, second := Window{s.First.Start, s.First.At}, Window{s.Second.Start, s.Second.At}
	widgets := TopRow(r, 1, WidgetsGVR.Group, WidgetsGVR.Resource)
	cms := TopRow(r, 1, "", "configmaps")
	if widgets == nil || cms == nil {
		t.Fatalf("%s: no row for widgets.example.com or configmaps: %+v", cell.Name(), r.Rows)
	}
	l := run.Load
	w := float64(l.Watchers())
	if !widgets.Watchers.Known() || widgets.Watchers.V() != w {
		t.Errorf("%s: widgets watchers %v (%s), want exactly %d (%d informers + %d raw watches)", cell.Name(), pv(widgets.Watchers.Value), widgets.Watchers.Missing, l.Watchers(), l.Informers, l.RawWatches)
	}
	writes := run.WriteBounds(first, second, eventLag)
	// Each write is one event to every watcher; an informer may also get
	// a bookmark in the interval (at most one a minute per watcher).
	events := Bounds{writes.Min * l.Watchers(), writes.Max*l.Watchers() + l.Watchers()}
	if !widgets.Events.Known() || !events.Has(widgets.Events.D()) {
		t.Errorf("%s: widgets events sent %v (%s), want within %s (%s writes x %d watchers, + a bookmark each)", cell.Name(), pv(widgets.Events.Delta), widgets.Events.Missing, events, writes, l.Watchers())
	}
	// From v1.34 the bytes are those sent to each watcher: a widget's JSON
	// per event sent. Before, each event's object is measured once per
	// encoding (with the watch cache, once for every watcher): a widget's
	// JSON at least once and at most once per watcher for each write.
	perEvent, perWrite := widgets.EventBytes.D()/widgets.Events.D(), widgets.EventBytes.D()/(widgets.Events.D()/w)
	if encoded := cell.Version == "v1.30" || cell.Version == "v1.33"; encoded != (s.EventBytes == "encoded") {
		t.Errorf("%s: event bytes %q", cell.Name(), s.EventBytes)
	} else if !widgets.EventBytes.Known() || (!encoded && (perEvent < 100 || perEvent > 5000)) || (encoded && (perWrite < 100 || perWrite > 5000*w)) {
		t.Errorf("%s: widgets event bytes %v for %v events (%.0f each, %.0f per write): want a widget's JSON size", cell.Name(), pv(widgets.EventBytes.Delta), pv(widgets.Events.Delta), perEvent, perWrite)
	}
	checkCacheFields(t, cell, widgets, writes)
	lists := run.ListBounds(first, second)
	// v1.33 to v1.36 read etcd's current RV before each consistent list the
	// watch cache serves, with a storage list of no object: one more
	// storage list per list served by the cache.
	rvReads := cell.WatchCache && (cell.Version == "v1.33" || cell.Version == "v1.35" || cell.Version == "v1.36")
	served := cms.Lists()
	if rvReads {
		served = cms.ListsCache.D()
		if math.Abs(cms.ListsStorage.D()-served) > 1 || cms.StorageFetched.D() != 0 || !s.CurrentRVReads {
			t.Errorf("%s: %v lists from the watch cache, %v storage lists reading %v objects (said: %v): want one storage list of no object per list served by the cache", cell.Name(), served, cms.ListsStorage.D(), cms.StorageFetched.D(), s.CurrentRVReads)
		}
	} else if s.CurrentRVReads {
		t.Errorf("%s: current-RV reads said to count as storage lists", cell.Name())
	}
	if !lists.Has(served) {
		t.Errorf("%s: configmaps lists %v (cache %s, storage %s), want within %s", cell.Name(), served, pv(cms.ListsCache.Delta), pv(cms.ListsStorage.Delta), lists)
	}
	if !cms.ListsStorage.Known() {
		t.Errorf("%s: configmaps storage lists not known: %s", cell.Name(), cms.ListsStorage.Missing)
	}
	// Each list returns Matching objects and, served by storage, reads
	// every object of the namespace. A list's counters are increments one
	// after another, so a sample can fall between them: the objects may be
	// off by a list's worth from the lists counted at each of the two
	// samples.
	k, n := float64(l.Matching), float64(l.Objects)
	within := func(got, per, lists float64) bool { return math.Abs(got-per*lists) <= 2*per }
	if sl := cms.ListsStorage.D(); !rvReads && (!within(cms.StorageReturned.D(), k, sl) || !within(cms.StorageFetched.D(), n, sl)) {
		t.Errorf("%s: %v storage lists of configmaps read %v objects and returned %v: want %v read (%d each: every object of the namespace) and %v returned (%d each), give or take a list at each sample",
			cell.Name(), sl, pv(cms.StorageFetched.Delta), pv(cms.StorageReturned.Delta), n*sl, l.Objects, k*sl, l.Matching)
	}
	if cell.WatchCache {
		if cl := cms.ListsCache.D(); !cms.ListsCache.Known() || !within(cms.CacheReturned.D(), k, cl) {
			t.Errorf("%s: %v watch-cache lists of configmaps returned %v objects (%s), want %v give or take one list", cell.Name(), pv(cms.ListsCache.Delta), pv(cms.CacheReturned.Delta), cms.ListsCache.Missing, k*cl)
		}
	}
	checkMissingByCell(t, cell, s, r)
}

// checkCacheFields: the watch cache's columns of the written resource.
func checkCacheFields(t testing.TB, cell Cell, row *top.Row, writes Bounds) {
	t.Helper()
	if !cell.WatchCache {
		for name, x := range map[string]top.Rate{"events received": row.CacheReceived, "dispatched": row.CacheDispatched, "terminated": row.Terminated, "cache lists": row.ListsCache} {
			if x.Known() || !strings.Contains(x.Missing, "watch cache is off") {
				t.Errorf("%s (no watch cache): widgets %s %v, missing %q: want it named as not exposed, never a number", cell.Name(), name, pv(x.Delta), x.Missing)
			}
		}
		if row.Capacity.Known() || row.Capacity.Missing == "" {
			t.Errorf("%s: widgets capacity %v: want n/a", cell.Name(), pv(row.Capacity.Value))
		}
		return
	}
	if !row.CacheReceived.Known() || !writes.Has(row.CacheReceived.D()) {
		t.Errorf("%s: widgets events into the watch cache %v (%s), want within %s (the writes)", cell.Name(), pv(row.CacheReceived.Delta), row.CacheReceived.Missing, writes)
	}
	if !row.Terminated.Known() || row.Terminated.D() != 0 {
		t.Errorf("%s: widgets terminated watchers %v (%s), want 0 (every watcher reads)", cell.Name(), pv(row.Terminated.Delta), row.Terminated.Missing)
	}
	if !row.Capacity.Known() || row.Capacity.V() < 100 {
		t.Errorf("%s: widgets capacity %v (%s): a watch cache has at least 100", cell.Name(), pv(row.Capacity.Value), row.Capacity.Missing)
	}
}

// checkMissingByCell: the families the cell's version does not expose are
// named with it, and top read the families by the version's names.
func checkMissingByCell(t testing.TB, cell Cell, s *top.Server, r *top.Report) {
	t.Helper()
	const cacheRV, cacheList = "apiserver_watch_cache_resource_version", "apiserver_cache_list_total"
	switch {
	case cell.WatchCache && cell.Version == "v1.30":
		if m := TopMissing(s, cacheRV); !strings.Contains(m, "not exposed by v1.30.14") {
			t.Errorf("%s: %s missing %q: v1.30.14 has no such gauge, want it named", cell.Name(), cacheRV, m)
		}
	case cell.WatchCache:
		if m := TopMissing(s, cacheRV); m != "" {
			t.Errorf("%s: %s said missing (%s)", cell.Name(), cacheRV, m)
		}
	}
	if cell.Version == "v1.37" {
		if m := TopMissing(s, cacheList); !strings.Contains(m, "not exposed by v1.37.2") {
			t.Errorf("%s: %s missing %q, want it named (hidden in v1.37)", cell.Name(), cacheList, m)
		}
	}
	// Only v1.37's client_golang honours name[].
	if want := cell.Version == "v1.37"; s.First.Filtered != want || s.Second.Filtered != want || r.Cost.Filtered != want {
		t.Errorf("%s: filtered %v/%v (cost %v), want %v: only kube-apiserver v1.37 filters /metrics by name[]", cell.Name(), s.First.Filtered, s.Second.Filtered, r.Cost.Filtered, want)
	}
	if r.Cost.Reads != 2 || r.Cost.Bytes != s.First.Bytes+s.Second.Bytes {
		t.Errorf("%s: cost %+v, want 2 reads of %d bytes", cell.Name(), r.Cost, s.First.Bytes+s.Second.Bytes)
	}
}

// RowSummary is one row in a line, for a test's log.
func RowSummary(row *top.Row) string {
	if row == nil {
		return "<none>"
	}
	return fmt.Sprintf("%s watchers=%v events=%v bytes=%v cacheIn=%v terminated=%v lists=%v|%v read=%v/%v",
		row.Name(), pv(row.Watchers.Value), pv(row.Events.Delta), pv(row.EventBytes.Delta), pv(row.CacheReceived.Delta), pv(row.Terminated.Delta),
		pv(row.ListsCache.Delta), pv(row.ListsStorage.Delta), pv(row.StorageFetched.Delta), pv(row.StorageReturned.Delta))
}

// pv writes an optional number ("-" when absent).
func pv(p *float64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf("%g", *p)
}

// TopMetrics reads API server api's /metrics as top asks for it (a name[]
// per family top reads) and returns the text as the server sent it.
func (c *Cluster) TopMetrics(ctx context.Context, api int) (string, error) {
	cfg := c.RESTConfig(api)
	cfg.NegotiatedSerializer = scheme.Codecs.WithoutConversion()
	rc, err := rest.UnversionedRESTClientFor(cfg)
	if err != nil {
		return "", err
	}
	req := rc.Get().AbsPath("/metrics")
	for _, f := range top.Families {
		req = req.Param("name[]", f)
	}
	b, err := req.DoRaw(ctx)
	return string(b), err
}

// KeepTopLines keeps, exactly as the server wrote them, the HELP and TYPE
// lines of top's families and their samples that name no resource or one
// of resources (group/resource, e.g. "example.com/widgets", "/configmaps"),
// in whichever label style the server uses: the recordings of
// pkg/top/testdata.
func KeepTopLines(text string, resources []string) string {
	var keys []string
	for _, gr := range resources {
		g, r, _ := strings.Cut(gr, "/")
		legacy := r
		if g != "" {
			legacy = r + "." + g
		}
		keys = append(keys, `resource="`+r+`"`, `resource="`+legacy+`"`, `resource_prefix="/`+strings.TrimPrefix(g+"/"+r, "/")+`"`)
	}
	keys = append(keys, `kind="Widget"`, `kind="ConfigMap"`)
	wanted := map[string]bool{}
	for _, f := range top.Families {
		wanted[f] = true
	}
	var b strings.Builder
	for _, line := range strings.SplitAfter(text, "\n") {
		if strings.HasPrefix(line, "# HELP ") || strings.HasPrefix(line, "# TYPE ") {
			if f := strings.Fields(line); len(f) >= 3 && wanted[f[2]] {
				b.WriteString(line)
			}
			continue
		}
		end := strings.IndexAny(line, "{ ")
		if end < 0 {
			continue
		}
		name, rest := line[:end], line[end:]
		base := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(name, "_bucket"), "_sum"), "_count")
		if !wanted[name] && !wanted[base] {
			continue
		}
		if !strings.Contains(rest, "resource=") && !strings.Contains(rest, "resource_prefix=") && !strings.Contains(rest, "kind=") {
			b.WriteString(line)
			continue
		}
		for _, k := range keys {
			if strings.Contains(rest, k) {
				b.WriteString(line)
				break
			}
		}
	}
	return b.String()
}

// RecordTopMetrics writes two recordings of cell's /metrics (KeepTopLines
// of configmaps and widgets) to pkg/top/testdata when WATCHRV_RECORD_TOP
// is set: the unit tests of pkg/top read them.
func RecordTopMetrics(t testing.TB, cell Cell, first, second string) {
	t.Helper()
	if os.Getenv("WATCHRV_RECORD_TOP") == "" {
		return
	}
	cache := map[bool]string{true: "cache-on", false: "cache-off"}[cell.WatchCache]
	base := filepath.Join(RepoRoot(), "pkg", "top", "testdata", cell.GitVersion()+"-"+cell.Storage+"-"+cache)
	for i, text := range []string{first, second} {
		kept := KeepTopLines(text, []string{"/configmaps", "example.com/widgets"})
		if err := os.WriteFile(fmt.Sprintf("%s.%d.metrics.txt", base, i+1), []byte(kept), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("recorded %s.{1,2}.metrics.txt", base)
}

// CheckTopLabels holds a cell's raw /metrics (TopMetrics, with the load
// running) to the names and labels top reads for its version (read from
// k8s.io/apiserver v0.30.14 to v0.37.2): watch events by kind up to v1.33
// and by resource after; storage lists by a storage label from v1.37; the
// stored objects' family; what v1.37 hides. Each is checked on the raw
// text, apart from top's parser.
func CheckTopLabels(t testing.TB, cell Cell, text string) {
	t.Helper()
	has := func(s string) bool { return strings.Contains(text, s) }
	minor := cell.Version
	byKind := minor == "v1.30" || minor == "v1.33"
	if got := has(`apiserver_watch_events_total{group="example.com",kind="Widget"`); got != byKind {
		t.Errorf("%s: watch events of widgets labelled by kind: %v, want %v", cell.Name(), got, byKind)
	}
	if got := has(`apiserver_watch_events_total{group="example.com",resource="widgets"`); got == byKind {
		t.Errorf("%s: watch events of widgets labelled by resource: %v, want %v", cell.Name(), got, !byKind)
	}
	storageLabel := minor == "v1.37"
	if got := has(`apiserver_storage_list_total{group="",index="",resource="configmaps",storage=`); got != storageLabel {
		t.Errorf("%s: storage lists with a storage label: %v, want %v", cell.Name(), got, storageLabel)
	}
	// The watch cache's own metrics exist only where it runs; v1.37 hides
	// apiserver_cache_list_total (deprecated in 1.37.0).
	if got, want := has("\n# TYPE apiserver_cache_list_total "), cell.WatchCache && minor != "v1.37"; got != want {
		t.Errorf("%s: apiserver_cache_list_total declared: %v, want %v", cell.Name(), got, want)
	}
	newObjects, oldObjects := has("\n# TYPE apiserver_resource_objects "), has("\n# TYPE apiserver_storage_objects ")
	if newObjects != (minor != "v1.30" && minor != "v1.33") || oldObjects != (minor != "v1.37") {
		t.Errorf("%s: apiserver_resource_objects %v, apiserver_storage_objects %v", cell.Name(), newObjects, oldObjects)
	}
	if cell.WatchCache {
		if got := has("\n# TYPE apiserver_watch_cache_resource_version "); got == (minor == "v1.30") {
			t.Errorf("%s: apiserver_watch_cache_resource_version declared: %v", cell.Name(), got)
		}
	} else if has("\nwatch_cache_capacity{") {
		t.Errorf("%s: a cell without watch cache has watch_cache_capacity series", cell.Name())
	}
	for _, f := range []string{"kubernetes_build_info{", "process_start_time_seconds ", `apiserver_longrunning_requests{component="apiserver",group="example.com",resource="widgets"`} {
		if !has("\n" + f) {
			t.Errorf("%s: no %s in /metrics", cell.Name(), f)
		}
	}
}
