package top

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/watchrv/kubectl-watchrv/pkg/metrics"
)

// The recordings are two reads of a real kube-apiserver's /metrics, a few
// seconds apart under test/e2e's load (3 informers and 2 raw watches of
// widgets.example.com, 4 selected lists a second of configmaps, 4 widget
// writes a second), kept to the lines of configmaps and widgets
// (test/e2e/framework KeepTopLines; WATCHRV_RECORD_TOP=1 rewrites them).

// recorded parses one recording as top does (ParseSelected).
func recorded(t *testing.T, name string, kinds KindResources) (*Values, map[string]bool) {
	t.Helper()
	f, err := os.Open("testdata/" + name + ".metrics.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sel, err := metrics.ParseSelected(f, Families, true)
	if err != nil {
		t.Fatal(err)
	}
	return Extract(sel, kinds), sel.Declared
}

var (
	widgets    = schema.GroupResource{Group: "example.com", Resource: "widgets"}
	configmaps = schema.GroupResource{Resource: "configmaps"}
)

// interval builds the server of two recordings 5 s apart.
func interval(t *testing.T, first, second string, only ...schema.GroupResource) *Server {
	t.Helper()
	a, _ := recorded(t, first, nil)
	b, _ := recorded(t, second, nil)
	t0 := time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC)
	s := &Server{Index: 1, Endpoint: "https://127.0.0.1:6443", ReadRequests: 2,
		First:  &Sample{Start: t0, At: t0, End: t0, Values: a, Filtered: true},
		Second: &Sample{Start: t0.Add(5 * time.Second), At: t0.Add(5 * time.Second), End: t0.Add(5 * time.Second), Values: b, Filtered: true}}
	s.Build(only)
	return s
}

func rowOf(t *testing.T, s *Server, gr schema.GroupResource) *Row {
	t.Helper()
	for _, r := range s.Rows() {
		if r.GR() == gr {
			return r
		}
	}
	t.Fatalf("no row for %s in %d rows", gr, len(s.Rows()))
	return nil
}

func TestIntervalV1372(t *testing.T) {
	s := interval(t, "v1.37.2-etcd-cache-on.1", "v1.37.2-etcd-cache-on.2")
	if s.Version != "v1.37.2" || s.Seconds != 5 || s.Restarted {
		t.Fatalf("server %+v", s)
	}
	w := rowOf(t, s, widgets)
	// The values of the recorded lines, e.g.
	// apiserver_watch_events_total{group="example.com",resource="widgets",version="v1"} 31, then 141.
	if w.Watchers.V() != 5 || w.Events.D() != 110 || w.Events.PS() != 22 || w.EventBytes.D() != 64312-10202 ||
		w.CacheReceived.D() != 22 || w.Terminated.D() != 0 || !w.Terminated.Known() || w.Capacity.V() != 100 || w.CacheRV.V() != 282 {
		t.Errorf("widgets: %+v", w)
	}
	if *w.Events.First != 31 || *w.Events.Second != 141 || w.Events.Seconds != 5 {
		t.Errorf("widgets events keep both samples and the interval: %+v", w.Events)
	}
	c := rowOf(t, s, configmaps)
	// v1.37 counts the watch cache's lists in apiserver_storage_list_total{storage="watchcache"}.
	if c.Watchers.V() != 2 || c.ListsCache.D() != 22 || c.ListsStorage.D() != 0 || !c.ListsStorage.Known() ||
		c.CacheFetched.D() != 920 || c.CacheReturned.D() != 92 || c.StorageListRatio != nil {
		t.Errorf("configmaps: %+v", c)
	}
	if c.CacheRVBehindNewest == nil || *c.CacheRVBehindNewest != 0 {
		t.Errorf("configmaps cache RV behind the newest: %v", c.CacheRVBehindNewest)
	}
	// The recording has no 410, 429 or 5xx answer: the counters count 0.
	if !c.Code429.Known() || c.Code429.D() != 0 {
		t.Errorf("429: %+v", c.Code429)
	}
	var hidden string
	for _, m := range s.Missing {
		if m.Family == famCacheList {
			hidden = m.Reason
		}
	}
	if !strings.Contains(hidden, "not exposed by v1.37.2") || !strings.Contains(hidden, `storage="watchcache"`) {
		t.Errorf("apiserver_cache_list_total not named as hidden on v1.37: %+v", s.Missing)
	}
}

// A counter lower in the second sample (samples swapped here) has no
// rate, never a negative one, and says so.
func TestCounterWentDown(t *testing.T) {
	s := interval(t, "v1.37.2-etcd-cache-on.2", "v1.37.2-etcd-cache-on.1")
	w := rowOf(t, s, widgets)
	if !w.Events.WentDown || w.Events.Delta != nil || w.Events.PerSecond != nil || w.Events.First == nil {
		t.Errorf("events that went down: %+v", w.Events)
	}
	if w.Active() != true {
		t.Error("a row whose counter went down is not shown")
	}
}

// A new process start time between the samples: no rate at all, even for
// counters that grew, and the server says it restarted.
func TestRestartBetweenSamples(t *testing.T) {
	a, _ := recorded(t, "v1.37.2-etcd-cache-on.1", nil)
	b, _ := recorded(t, "v1.37.2-etcd-cache-on.2", nil)
	later := *b.ProcessStart + 30
	b.ProcessStart = &later
	t0 := time.Now()
	s := &Server{Index: 1, First: &Sample{At: t0, Values: a}, Second: &Sample{At: t0.Add(5 * time.Second), Values: b}}
	s.Build(nil)
	if !s.Restarted || !strings.Contains(s.RestartNote, "restarted between the two samples") {
		t.Fatalf("restart not said: %+v", s)
	}
	w := rowOf(t, s, widgets)
	if w.Events.Known() || !w.Events.Restarted || w.Watchers.V() != 5 {
		t.Errorf("widgets after a restart: events %+v, watchers %+v", w.Events, w.Watchers)
	}
}

// A server without any watch cache names the watch cache's columns as not
// exposed, never 0; a counter family the version registers counts 0.
func TestNoWatchCacheNamed(t *testing.T) {
	v, _ := recorded(t, "v1.37.2-etcd-cache-on.2", nil)
	for gr, rv := range v.Resources {
		for _, f := range []Field{Capacity, CacheRV, CacheReceived, CacheDispatched, Terminated} {
			delete(rv, f)
		}
		v.Resources[gr] = rv
	}
	delete(v.Series, famCapacity)
	for _, f := range []Field{Terminated, CacheReceived, Capacity, ListsCache} {
		if m := v.availability(widgets, f); !strings.Contains(m, reasonNoCache) {
			t.Errorf("field %d: %q", f, m)
		}
	}
	if m := v.availability(widgets, ListsStorage); m != "" {
		t.Errorf("storage lists: %q", m)
	}
	v.Minor, v.GitVersion = 41, "v1.41.0"
	delete(v.Series, famWatchEvents)
	if m := v.availability(widgets, Events); !strings.Contains(m, "outside v1.30-v1.37") {
		t.Errorf("an unknown version's family without series: %q", m)
	}
}

func TestFromPrefix(t *testing.T) {
	cached := map[schema.GroupResource]bool{{Group: "coordination.k8s.io", Resource: "leases"}: true, configmaps: true,
		{Group: "apps", Resource: "events"}: true, {Resource: "events"}: true}
	for prefix, want := range map[string]schema.GroupResource{
		"/configmaps":                           configmaps,
		"/leases":                               {Group: "coordination.k8s.io", Resource: "leases"},
		"/minions":                              {Resource: "nodes"},
		"/services/specs":                       {Resource: "services"},
		"/apiregistration.k8s.io/apiservices":   {Group: "apiregistration.k8s.io", Resource: "apiservices"},
		"/example.com/widgets":                  widgets,
		"/events":                               {}, // two cached resources of that name: not told
		"/nosuch":                               {},
		"/services/specs/extra":                 {},
		"/apiextensions.k8s.io/customresources": {Group: "apiextensions.k8s.io", Resource: "customresources"},
	} {
		got, ok := fromPrefix(prefix, cached)
		if ok != (want != schema.GroupResource{}) || got != want {
			t.Errorf("%s: %v %v, want %v", prefix, got, ok, want)
		}
	}
}

// ParseSelected keeps only the families asked for and reports what the
// text declared: a server that ignores name[] is told apart.
func TestParseSelectedTellsUnfiltered(t *testing.T) {
	text := "# HELP other_total x\n# TYPE other_total counter\nother_total 3\n" +
		"# HELP apiserver_watch_events_sizes x\n# TYPE apiserver_watch_events_sizes histogram\n" +
		`apiserver_watch_events_sizes_bucket{group="",resource="pods",version="v1",le="+Inf"} 2` + "\n" +
		`apiserver_watch_events_sizes_sum{group="",resource="pods",version="v1"} 900` + "\n" +
		`apiserver_watch_events_sizes_count{group="",resource="pods",version="v1"} 2` + "\n"
	sel, err := metrics.ParseSelected(strings.NewReader(text), Families, true)
	if err != nil {
		t.Fatal(err)
	}
	if fams, declared := sel.Families, sel.Declared; fams["other_total"] != nil || !declared["other_total"] || len(fams) != 1 {
		t.Errorf("families %v, declared %v", fams, declared)
	}
	v := Extract(sel, nil)
	if v.Resources[schema.GroupResource{Resource: "pods"}][EventBytes] != 900 {
		t.Errorf("bytes: %v", v.Resources)
	}
	if _, err := metrics.ParseSelected(strings.NewReader(strings.Repeat("x", metrics.MaxSelectedLine+2)), Families, true); !errors.Is(err, metrics.ErrLineTooLong) {
		t.Errorf("a line without end: %v", err)
	}
}

func TestReportCalloutsAndChecks(t *testing.T) {
	s := interval(t, "v1.37.2-etcd-cache-on.1", "v1.37.2-etcd-cache-on.2")
	r := Assemble([]*Server{s}, 5*time.Second, "events", 1)
	if len(r.Rows) == 0 || r.Rows[0].GR() != widgets {
		t.Fatalf("sorted by events, widgets first: %+v", r.Rows)
	}
	if len(r.Callouts) != 1 || r.Callouts[0].Kind != "most-watchers" || r.Callouts[0].Resource != "widgets.example.com" {
		t.Errorf("callouts %+v", r.Callouts)
	}
	four, zero := 4.0, 0.0
	checks := CheckBounds(r, Bounds{Watchers: map[string]WatcherBound{"widgets": {Given: "widgets", GR: widgets, Max: 4}}, Terminated: &zero, Rejected: &four})
	if len(checks) != 3 || !checks[0].Crossed || *checks[0].Value != 5 || checks[1].Crossed || !checks[1].Checked() || checks[2].Crossed {
		t.Errorf("checks %+v", checks)
	}
	if r.Cost.Reads != 2 || !r.Cost.Filtered || r.Cost.Families != len(Families) {
		t.Errorf("cost %+v", r.Cost)
	}
}

func TestHistory(t *testing.T) {
	s := interval(t, "v1.37.2-etcd-cache-on.1", "v1.37.2-etcd-cache-on.2")
	h := NewHistory(3)
	for i := 0; i < 5; i++ {
		h.Add(Assemble([]*Server{s}, 5*time.Second, "watchers", i+1))
	}
	if got := h.Of(rowOf(t, s, widgets)); len(got) != 3 || got[2] != 5 {
		t.Errorf("history %v", got)
	}
}

func TestParseWatcherBound(t *testing.T) {
	for in, want := range map[string]float64{"services=320": 320, "12": 12, " pods = 3 ": 3} {
		if _, n, err := ParseWatcherBound(in); err != nil || n != want {
			t.Errorf("%q: %v %v", in, n, err)
		}
	}
	for _, bad := range []string{"=3", "pods=", "pods=-1", "pods=x", "3.5", "v1/services=6", "apps/v1/deployments=1"} {
		if _, _, err := ParseWatcherBound(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	// A group/version path is named as one, with the form kubectl takes
	// (adversary try 8: the advice was pods/log's, "give the type alone (v1)").
	if _, _, err := ParseWatcherBound("v1/services=6"); err == nil || !strings.Contains(err.Error(), "is a path, not a resource") || strings.Contains(err.Error(), "(v1)") {
		t.Errorf("v1/services=6: %v", err)
	}
}

// kubeKinds maps the kinds of the recordings, as the RESTMapper does.
func kubeKinds(group, kind string) (string, bool) {
	r, ok := map[string]string{"/ConfigMap": "configmaps", "example.com/Widget": "widgets"}[group+"/"+kind]
	return r, ok
}

// v1.30.14 labels watch events by kind, the watch cache's lists by storage
// prefix, every other series by "resource.group"; it has no cache RV gauge
// and stores objects in apiserver_storage_objects.
func TestIntervalV13014(t *testing.T) {
	a, _ := recorded(t, "v1.30.14-etcd-cache-on.1", kubeKinds)
	b, _ := recorded(t, "v1.30.14-etcd-cache-on.2", kubeKinds)
	t0 := time.Now()
	s := &Server{Index: 1, First: &Sample{At: t0, Values: a}, Second: &Sample{At: t0.Add(5 * time.Second), Values: b}}
	s.Build(nil)
	if s.Version != "v1.30.14" || s.EventBytes != "encoded" || b.ObjectsFamily != famObjectsLegacy || b.StorageLabel {
		t.Fatalf("server %+v, values %+v", s, b)
	}
	w := rowOf(t, s, widgets)
	// apiserver_watch_events_total{group="example.com",kind="Widget",version="v1"} 17, then 132.
	if w.Watchers.V() != 5 || w.Events.D() != 115 || w.EventBytes.D() != 12355-2640 || !w.Objects.Known() {
		t.Errorf("widgets: %+v", w)
	}
	// apiserver_cache_list_total{index="",resource_prefix="/example.com/widgets"} 3, twice.
	if !w.ListsCache.Known() || w.ListsCache.D() != 0 || *w.ListsCache.Second != 3 {
		t.Errorf("widgets cache lists by storage prefix: %+v", w.ListsCache)
	}
	c := rowOf(t, s, configmaps)
	if c.ListsStorage.D() != 22 || *c.ListsCache.Second != 2 || !strings.Contains(c.CacheRV.Missing, "not exposed by v1.30.14") {
		t.Errorf("configmaps: storage lists %+v, cache lists %+v, cache RV %+v", c.ListsStorage, c.ListsCache, c.CacheRV)
	}
	if c.StorageListRatio == nil || *c.StorageListRatio != 10 {
		t.Errorf("configmaps: 40 read for 4 returned, ratio %v", c.StorageListRatio)
	}
	unmapped, _ := recorded(t, "v1.30.14-etcd-cache-on.2", nil)
	if !strings.Contains(strings.Join(unmapped.Unmapped, " "), `apiserver_watch_events_total{kind="Widget.example.com"}`) {
		t.Errorf("a kind without a mapper is not named: %v", unmapped.Unmapped)
	}
}

// v1.30.14 without a watch cache: every column of the cache is named as
// not exposed, storage lists count.
func TestIntervalV13014NoCache(t *testing.T) {
	a, _ := recorded(t, "v1.30.14-etcd-cache-off.1", kubeKinds)
	b, _ := recorded(t, "v1.30.14-etcd-cache-off.2", kubeKinds)
	t0 := time.Now()
	s := &Server{Index: 1, First: &Sample{At: t0, Values: a}, Second: &Sample{At: t0.Add(5 * time.Second), Values: b}}
	s.Build(nil)
	c := rowOf(t, s, configmaps)
	for _, x := range []Rate{c.ListsCache, c.Terminated, c.CacheReceived} {
		if x.Known() || !strings.Contains(x.Missing, reasonNoCache) {
			t.Errorf("configmaps: %+v", x)
		}
	}
	if c.Capacity.Known() || c.ListsStorage.D() == 0 {
		t.Errorf("configmaps: capacity %+v, storage lists %+v", c.Capacity, c.ListsStorage)
	}
	r := Assemble([]*Server{s}, 5*time.Second, "watchers", 1)
	zero := 0.0
	checks := CheckBounds(r, Bounds{Terminated: &zero})
	if len(checks) != 1 || checks[0].Checked() || !strings.Contains(checks[0].Note, reasonNoCache) {
		t.Errorf("--max-terminated without a watch cache: %+v", checks)
	}
	found := false
	for _, co := range r.Callouts {
		found = found || (co.Kind == "storage-list-ratio" && strings.Contains(co.Meaning, "has no watch cache for configmaps"))
	}
	if !found {
		t.Errorf("callouts %+v", r.Callouts)
	}
}

// Every recording (each cell of the matrix recorded under the same load):
// the 5 watches of widgets, events sent to them, and the watch cache's
// columns known exactly where the cell has a watch cache.
func TestEveryRecording(t *testing.T) {
	files, err := filepath.Glob("testdata/*.1.metrics.txt")
	if err != nil || len(files) < 4 {
		t.Fatalf("recordings: %v %v", files, err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".1.metrics.txt")
		t.Run(name, func(t *testing.T) {
			a, _ := recorded(t, name+".1", kubeKinds)
			b, _ := recorded(t, name+".2", kubeKinds)
			t0 := time.Now()
			s := &Server{Index: 1, First: &Sample{At: t0, Values: a}, Second: &Sample{At: t0.Add(5 * time.Second), Values: b}}
			s.Build([]schema.GroupResource{widgets, configmaps})
			w := rowOf(t, s, widgets)
			if !strings.HasPrefix(name, s.Version+"-") || w.Watchers.V() != 5 || w.Events.D() <= 0 || !w.EventBytes.Known() {
				t.Errorf("version %q, widgets %s", s.Version, rowText(w))
			}
			cached := strings.HasSuffix(name, "cache-on")
			if w.CacheReceived.Known() != cached || w.Terminated.Known() != cached || w.Capacity.Known() != cached {
				t.Errorf("watch cache %v, widgets %s", cached, rowText(w))
			}
			if c := rowOf(t, s, configmaps); c.Lists() <= 0 || !c.ListsStorage.Known() {
				t.Errorf("configmaps lists %v", c.Lists())
			}
		})
	}
}

func rowText(r *Row) string {
	b, _ := json.Marshal(r)
	return string(b)
}

// A counter that went down between the samples (the series recreated, a
// restart the server's start time does not show) holds no difference: the
// bound that reads it is not checked (exit 1), never "ok: 0 <= max" (a CI
// gate that passes on what it did not measure).
func TestABoundOnACounterThatWentDownIsNotChecked(t *testing.T) {
	s := &Server{Index: 1, First: &Sample{Values: &Values{}}, Second: &Sample{Values: &Values{}}, APF: []APFRate{{APFKey: APFKey{PriorityLevel: "workload-low"}, Rejected: newRate(900, 800, 5, false)}}}
	row := &Row{Server: 1, ListsStorage: newRate(10, 12, 5, false), StorageFetched: newRate(900, 800, 5, false), StorageReturned: newRate(1, 2, 5, false)}
	r := &Report{Servers: []*Server{s}, Rows: []*Row{row}}
	for name, c := range map[string]Check{"rejected": checkRejected(r, 10), "storage-list ratio": checkRatio(r, 1)} {
		if c.Value != nil || c.Crossed || !strings.Contains(c.Note, "went down") {
			t.Errorf("%s: value %v, crossed %v, note %q; want not checked, saying the counter went down", name, c.Value, c.Crossed, c.Note)
		}
	}
}

// "Nothing stands out" claims only what was measured: after a restart
// (the recorded samples, a new process start time) no claim holds and
// each is named not measured; on the recorded interval itself the claims
// measured as zero hold and none is unmeasured.
func TestQuietClaimsOnlyWhatWasMeasured(t *testing.T) {
	a, _ := recorded(t, "v1.37.2-etcd-cache-on.1", nil)
	b, _ := recorded(t, "v1.37.2-etcd-cache-on.2", nil)
	t0 := time.Now()
	plain := &Server{Index: 1, First: &Sample{At: t0, Values: a}, Second: &Sample{At: t0.Add(5 * time.Second), Values: b}}
	plain.Build(nil)
	q := QuietOf(&Report{Servers: []*Server{plain}, Rows: plain.Rows()})
	if len(q.Unmeasured) != 0 {
		t.Errorf("an interval of one process: %q said not measured", q.Unmeasured)
	}
	later := *b.ProcessStart + 30
	b2 := *b
	b2.ProcessStart = &later
	restarted := &Server{Index: 1, First: &Sample{At: t0, Values: a}, Second: &Sample{At: t0.Add(5 * time.Second), Values: &b2}}
	restarted.Build(nil)
	q = QuietOf(&Report{Servers: []*Server{restarted}, Rows: restarted.Rows()})
	if len(q.Held) != 0 || len(q.Unmeasured) != len(quietClaims) {
		t.Errorf("after a restart: held %q, not measured %q; want nothing held, every claim not measured", q.Held, q.Unmeasured)
	}
}

// A server that does not expose apiserver_request_total (kube-apiserver
// --disabled-metrics): the recorded samples of v1.37.2 without its lines.
// Its codes are not measured, never 0, the family is named, and "nothing
// stands out" does not claim them.
func TestRequestsNotExposedAreNotZero(t *testing.T) {
	strip := func(name string) *Values {
		b, err := os.ReadFile("testdata/" + name + ".metrics.txt")
		if err != nil {
			t.Fatal(err)
		}
		var kept []string
		for _, l := range strings.Split(string(b), "\n") {
			if !strings.Contains(l, famRequests) {
				kept = append(kept, l)
			}
		}
		sel, err := metrics.ParseSelected(strings.NewReader(strings.Join(kept, "\n")), Families, true)
		if err != nil {
			t.Fatal(err)
		}
		return Extract(sel, nil)
	}
	t0 := time.Now()
	s := &Server{Index: 1, First: &Sample{At: t0, Values: strip("v1.37.2-etcd-cache-on.1")}, Second: &Sample{At: t0.Add(5 * time.Second), Values: strip("v1.37.2-etcd-cache-on.2")}}
	s.Build(nil)
	c := rowOf(t, s, configmaps)
	if c.Code410.Known() || !strings.Contains(c.Code410.Missing, famRequests) {
		t.Errorf("410s without apiserver_request_total: %+v", c.Code410)
	}
	named := false
	for _, m := range s.Missing {
		named = named || m.Family == famRequests
	}
	if !named {
		t.Errorf("apiserver_request_total not named missing: %+v", s.Missing)
	}
	q := QuietOf(&Report{Servers: []*Server{s}, Rows: s.Rows()})
	if !strings.Contains(strings.Join(q.Unmeasured, ","), "410/429/5xx answers") || strings.Contains(strings.Join(q.Held, ","), "410") {
		t.Errorf("quiet claims held %q, not measured %q", q.Held, q.Unmeasured)
	}
}
