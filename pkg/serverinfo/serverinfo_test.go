package serverinfo

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
)

// namedAnswer is what a server that honours name[] (v1.37.2) answers to
// serverinfo's request, taken from a recorded real /metrics text: the
// lines of the three families asked for, whole, as promhttp's filter keeps
// them (v1.37.2-etcd-cache-on.metrics-named.txt is such an answer, recorded
// as it came).
func namedAnswer(t *testing.T, name string) string {
	t.Helper()
	if b, err := os.ReadFile("testdata/" + name + ".metrics-named.txt"); err == nil {
		return string(b)
	}
	b, err := os.ReadFile("testdata/" + name + ".metrics.txt")
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for _, l := range strings.SplitAfter(string(b), "\n") {
		n := strings.TrimPrefix(strings.TrimPrefix(l, "# HELP "), "# TYPE ")
		if strings.HasPrefix(n, familyObjects+" ") || strings.HasPrefix(n, familyObjects+"{") ||
			strings.HasPrefix(n, familyFeatureEnabled+" ") || strings.HasPrefix(n, familyFeatureEnabled+"{") ||
			strings.HasPrefix(n, familyCacheCapacity+" ") || strings.HasPrefix(n, familyCacheCapacity+"{") {
			out.WriteString(l)
		}
	}
	return out.String()
}

func recordedVersion(t *testing.T, name string) (string, int) {
	t.Helper()
	vb, err := os.ReadFile("testdata/" + name + ".version.json")
	if err != nil {
		t.Fatal(err)
	}
	git, minor, err := ParseVersion(vb)
	if err != nil {
		t.Fatal(err)
	}
	return git, minor
}

// recordedInfo builds the Info Read builds on a recorded real server
// (testdata: /version and /metrics, saved by test/e2e/matrix with
// WATCHRV_RECORD_SERVERINFO=1), for configmaps: from the named answer on
// v1.37, from the version's defaults before (not asked: such a /metrics
// ignores name[]).
func recordedInfo(t *testing.T, name string) *Info {
	t.Helper()
	git, minor := recordedVersion(t, name)
	if minor < filterMinor {
		return Build(git, minor, nil, "not asked", "configmaps")
	}
	s := scanMetrics(strings.NewReader(namedAnswer(t, name)), MetricsCap, "", "configmaps")
	if s.err != nil || s.unfiltered || s.cut {
		t.Fatalf("%s: %+v", name, s)
	}
	return Build(git, minor, s.facts(), "", "configmaps")
}

func TestRecordedServers(t *testing.T) {
	cases := []struct {
		name       string
		version    string
		minor      int
		cache      Tri
		seen, gate map[string]bool
	}{
		// Not asked: the version's defaults, the cache unknown.
		{"v1.30.14-etcd-cache-on", "v1.30.14", 30, Unknown, nil,
			map[string]bool{GateConsistentListFromCache: false, GateWatchList: false, GateListFromCacheSnapshot: false}},
		{"v1.33.13-etcd-cache-on", "v1.33.13", 33, Unknown, nil,
			map[string]bool{GateConsistentListFromCache: true, GateWatchList: false, GateListFromCacheSnapshot: false}},
		{"v1.37.2-etcd-cache-on", "v1.37.2", 37, Yes,
			map[string]bool{GateWatchList: true, GateListFromCacheSnapshot: true},
			map[string]bool{GateConsistentListFromCache: true, GateWatchList: true, GateListFromCacheSnapshot: true}},
		// v1.37: ConsistentListFromCache graduated and is gone from
		// /metrics: its default (on), not off.
		{"v1.37.2-etcd-cache-off", "v1.37.2", 37, No,
			map[string]bool{GateWatchList: true, GateListFromCacheSnapshot: true},
			map[string]bool{GateConsistentListFromCache: true, GateWatchList: true, GateListFromCacheSnapshot: true}},
		{"v1.37.2-kine-cache-off", "v1.37.2", 37, No,
			map[string]bool{GateWatchList: true, GateListFromCacheSnapshot: true},
			map[string]bool{GateConsistentListFromCache: true, GateWatchList: true, GateListFromCacheSnapshot: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := recordedInfo(t, c.name)
			if in.Version != c.version || in.Minor != c.minor || in.WatchCache != c.cache || in.Storage != "unknown" {
				t.Fatalf("got %+v", in)
			}
			for g, v := range c.seen {
				if got, ok := in.GatesSeen[g]; !ok || got != v {
					t.Errorf("seen %s = %v (%v), want %v", g, got, ok, v)
				}
			}
			for g, v := range c.gate {
				if in.Gate(g) != v {
					t.Errorf("gate %s = %v, want %v", g, in.Gate(g), v)
				}
			}
			if c.seen != nil && len(in.Assumed) != 0 {
				t.Errorf("assumed %q with /metrics read", in.Assumed)
			}
			if c.seen == nil && (len(in.Assumed) == 0 || in.Note() == "") {
				t.Errorf("nothing said to be assumed without /metrics: %+v", in)
			}
		})
	}
}

// withCache is in with the resource's watch cache known (as where a run
// read /metrics): the rules of old releases are tested with it.
func withCache(in *Info, c Tri) *Info {
	out := *in
	out.WatchCache = c
	return &out
}

// Claims 1 and 3, and issue 25's H41/H44: who serves each page of a list,
// chosen from the recorded servers.
func TestListServedOnRecordedServers(t *testing.T) {
	v130 := withCache(recordedInfo(t, "v1.30.14-etcd-cache-on"), Yes)
	v137 := recordedInfo(t, "v1.37.2-etcd-cache-on")
	v137off := recordedInfo(t, "v1.37.2-etcd-cache-off")
	v133 := withCache(recordedInfo(t, "v1.33.13-etcd-cache-on"), Yes)
	v133unknown := recordedInfo(t, "v1.33.13-etcd-cache-on")
	cases := []struct {
		in                *Info
		rv, match         string
		limit             int64
		want, wantNot     string
		first, continues  Server
		contWant, contNot string
	}{
		{v130, "", "", 500, "storage (etcd, or a shim such as kine), not the watch cache (ConsistentListFromCache is off on v1.30.14)", "caught up", ByStorage, ByStorage, "serves no continue token", "snapshot"},
		{v130, "0", "", 500, "whatever the watch cache holds (no storage round trip)", "stale", ByWatchCache, ByStorage, "", ""},
		{v130, "5", "NotOlderThan", 500, "on v1.30.14 a list with a limit and an RV other than 0 bypasses the watch cache", "waits", ByStorage, ByStorage, "", ""},
		{v130, "5", "NotOlderThan", 0, "which first waits for it", "bypasses", ByWatchCache, ByStorage, "", ""},
		{v130, "5", "Exact", 500, "ListFromCacheSnapshot is off on v1.30.14", "snapshots while", ByStorage, ByStorage, "", ""},
		{v133, "", "", 500, "the watch cache once it has caught up", "not the watch cache", ByWatchCache, ByStorage, "off on v1.33.13", "snapshot at"},
		{v133unknown, "", "", 500, "if this resource has one: not known here", "", ByEither, ByStorage, "", ""},
		{v133, "5", "NotOlderThan", 500, "which first waits for it", "bypasses", ByWatchCache, ByStorage, "", ""},
		{v133, "5", "Exact", 500, "ListFromCacheSnapshot is off on v1.33.13", "snapshots while", ByStorage, ByStorage, "", ""},
		{v137, "", "", 500, "the watch cache once it has caught up", "", ByWatchCache, ByWatchCache, "from its snapshot at the list's RV", ""},
		{v137, "5", "Exact", 500, "snapshots while they reach back", "", ByEither, ByEither, "snapshot", ""},
		{v137off, "0", "", 500, "no watch cache on this server, so rv=0 reads the newest state", "round trip", ByStorage, ByStorage, "no watch cache", ""},
		{v137off, "", "", 500, "no watch cache", "caught up", ByStorage, ByStorage, "", ""},
	}
	// Up to v1.36 the watch cache reads the current RV for a consistent
	// read with a one-item storage list (seen on v1.33.13); v1.37 does not.
	if !v133.ListServed("", "", 500).RVFromStorageList || !v133unknown.ListServed("", "", 500).RVFromStorageList ||
		v137.ListServed("", "", 500).RVFromStorageList || v130.ListServed("", "", 500).RVFromStorageList || v133.ListServed("0", "", 500).RVFromStorageList {
		t.Errorf("the current-RV list of a consistent read from the watch cache: v1.33 %v, v1.37 %v, v1.30 %v",
			v133.ListServed("", "", 500).RVFromStorageList, v137.ListServed("", "", 500).RVFromStorageList, v130.ListServed("", "", 500).RVFromStorageList)
	}
	for _, c := range cases {
		got := c.in.ListServed(c.rv, c.match, c.limit)
		if !strings.Contains(got.First, c.want) || (c.wantNot != "" && strings.Contains(got.First, c.wantNot)) || got.FirstFrom != c.first {
			t.Errorf("%s cache %s rv=%q match=%q limit=%d: page 1 %q from %q, want %q (%s) and not %q", c.in.Version, c.in.WatchCache, c.rv, c.match, c.limit, got.First, got.FirstFrom, c.want, c.first, c.wantNot)
		}
		if got.ContinueFrom != c.continues || !strings.Contains(got.Continue, c.contWant) || (c.contNot != "" && strings.Contains(got.Continue, c.contNot)) {
			t.Errorf("%s cache %s rv=%q: continue pages %q from %q, want %q (%s)", c.in.Version, c.in.WatchCache, c.rv, got.Continue, got.ContinueFrom, c.contWant, c.continues)
		}
	}
}

// Claims 4 and 6 from the recorded servers: no bookmarks (so no stall
// check) without a watch cache; the ~3 s TooLarge wait only where the
// cache serves the list.
func TestTextsOnRecordedServers(t *testing.T) {
	v130 := withCache(recordedInfo(t, "v1.30.14-etcd-cache-on"), Yes)
	kine := recordedInfo(t, "v1.37.2-kine-cache-off")
	if !v130.BookmarksExpected() || kine.BookmarksExpected() {
		t.Errorf("bookmarks expected: v1.30 cache on %v, cache off %v", v130.BookmarksExpected(), kine.BookmarksExpected())
	}
	if w := v130.TooLargeWait(500); !strings.HasPrefix(w, "at once") {
		t.Errorf("v1.30 list with a limit: %q", w)
	}
	if w := v130.TooLargeWait(0); !strings.Contains(w, "~3 s") {
		t.Errorf("v1.30 list without a limit: %q", w)
	}
	if w := kine.TooLargeWait(0); !strings.HasPrefix(w, "at once") {
		t.Errorf("no watch cache: %q", w)
	}
	if h := v130.StreamingRefusedHint(); !strings.Contains(h, "off by default on v1.30.14") || !strings.Contains(h, "flags are fine") {
		t.Errorf("streaming refused on v1.30: %q", h)
	}
	if s := kine.StorageName(); strings.HasPrefix(s, "etcd") {
		t.Errorf("storage named %q without knowing it", s)
	}
}

// Where /metrics is forbidden: the version's defaults, said to be assumed.
func TestForbiddenMetricsTakesDefaults(t *testing.T) {
	vb, err := os.ReadFile("testdata/v1.30.14-etcd-cache-on.version.json")
	if err != nil {
		t.Fatal(err)
	}
	git, minor, _ := ParseVersion(vb)
	in := Build(git, minor, nil, ForbiddenNote, "configmaps")
	if in.Gate(GateConsistentListFromCache) || in.Gate(GateWatchList) || in.WatchCache != Unknown {
		t.Fatalf("got %+v", in)
	}
	joined := strings.Join(in.Assumed, "\n")
	for _, want := range []string{ForbiddenNote, "ConsistentListFromCache: taken as v1.30's default (off)", "watch cache of configmaps not known"} {
		if !strings.Contains(joined, want) {
			t.Errorf("assumed %q lacks %q", in.Assumed, want)
		}
	}
	if s := in.ListServed("0", "", 500); !strings.Contains(s.First, "not known here") || s.FirstFrom != ByEither {
		t.Errorf("rv=0 with the cache unknown: %+v", s)
	}
	if in.TooLargeWait(0) != "" {
		t.Errorf("a wait claimed with the cache unknown: %q", in.TooLargeWait(0))
	}
}

// The defaults table follows k8s.io/apiserver's versioned feature specs.
func TestDefaultsByVersion(t *testing.T) {
	cases := []struct {
		gate  string
		minor int
		on    bool
	}{
		{GateConsistentListFromCache, 30, false}, {GateConsistentListFromCache, 31, true}, {GateConsistentListFromCache, 37, true},
		{GateWatchList, 30, false}, {GateWatchList, 32, true}, {GateWatchList, 33, false}, {GateWatchList, 35, true},
		{GateListFromCacheSnapshot, 33, false}, {GateListFromCacheSnapshot, 34, true}, {GateListFromCacheSnapshot, 30, false},
	}
	for _, c := range cases {
		if on, _ := DefaultOf(c.gate, c.minor); on != c.on {
			t.Errorf("%s on v1.%d: %v, want %v", c.gate, c.minor, on, c.on)
		}
	}
}

// Issue 23: the facts are read from the named answer and the read stops
// as soon as they are complete; a server that ignores name[] is detected
// at its first line; nothing is read past MetricsCap.
func TestScanMetricsStopsEarly(t *testing.T) {
	named := namedAnswer(t, "v1.37.2-etcd-cache-on")
	s := scanMetrics(strings.NewReader(named), MetricsCap, "", "configmaps")
	if s.facts().WatchCache != Yes || !s.complete() || s.read >= int64(len(named)) {
		t.Errorf("configmaps: cache %s, complete %v, read %d of %d", s.facts().WatchCache, s.complete(), s.read, len(named))
	}
	// A resource the server has no cache for: decided where its series
	// would be in the server's order.
	s = scanMetrics(strings.NewReader(named), MetricsCap, "", "configmapz")
	if s.facts().WatchCache != No {
		t.Errorf("configmapz: %s", s.facts().WatchCache)
	}
	s = scanMetrics(strings.NewReader(named), MetricsCap, "apps", "deployments")
	if s.facts().WatchCache != Yes {
		t.Errorf("deployments.apps: %s", s.facts().WatchCache)
	}
	s = scanMetrics(strings.NewReader(named), MetricsCap, "zz.example.com", "widgets")
	if s.facts().WatchCache != No || !s.eof {
		t.Errorf("a CRD the server does not serve: %s (eof %v)", s.facts().WatchCache, s.eof)
	}
	// No resource: the gates alone, then stop.
	s = scanMetrics(strings.NewReader(named), MetricsCap, "", "")
	if !s.complete() || s.facts().Gates[GateWatchList] != true {
		t.Errorf("gates only: %+v", s)
	}
}

func TestScanMetricsDetectsAnUnfilteredServer(t *testing.T) {
	// A v1.30.14 /metrics (recorded): it ignores name[] and starts with a
	// family not asked for.
	b, err := os.ReadFile("testdata/v1.30.14-etcd-cache-on.metrics.txt")
	if err != nil {
		t.Fatal(err)
	}
	s := scanMetrics(bytes.NewReader(b), MetricsCap, "", "configmaps")
	if !s.unfiltered || s.read > 4096 {
		t.Errorf("unfiltered %v after %d bytes", s.unfiltered, s.read)
	}
}

// endless writes feature gate lines forever, each gate once (a server
// that never ends its answer, or one far larger than the cap).
type endless struct{ n int }

func (e *endless) Read(p []byte) (int, error) {
	line := "kubernetes_feature_enabled{name=\"AAA" + strings.Repeat("x", e.n%50) + strconv.Itoa(e.n) + "\",stage=\"BETA\"} 1\n"
	if e.n == 0 {
		line = "# TYPE kubernetes_feature_enabled gauge\n"
	}
	e.n++
	return copy(p, line), nil
}

func TestScanMetricsStopsAtTheCap(t *testing.T) {
	s := scanMetrics(&endless{}, MetricsCap, "", "configmaps")
	if !s.cut || s.read > MetricsCap+1 || s.facts().WatchCache != Unknown {
		t.Errorf("cut %v after %d bytes, cache %s", s.cut, s.read, s.facts().WatchCache)
	}
	for _, bad := range []string{
		"kubernetes_feature_enabled{name=\"WatchList\" 1\n",
		"kubernetes_feature_enabled{name=\"WatchList\",stage=\"BETA\"} x\n",
		"kubernetes_feature_enabled{name=WatchList} 1\n",
		"kubernetes_feature_enabled{name=\"a\\",
		strings.Repeat("k", maxMetricsLine+1) + "\n",
	} {
		if s := scanMetrics(strings.NewReader(bad), MetricsCap, "", "configmaps"); s.err == nil {
			t.Errorf("%.60q: accepted", bad)
		}
	}
}

// Read on a server recorded as v1.30.14: /version only (its /metrics
// ignores name[]); on v1.37.2: the named request, nothing else.
func TestReadAsksOnlyWhatTheServerFilters(t *testing.T) {
	for _, c := range []struct {
		name  string
		paths []string
	}{
		{"v1.30.14-etcd-cache-on", []string{"/version"}},
		{"v1.37.2-etcd-cache-on", []string{"/version", "/metrics?name%5B%5D=kubernetes_feature_enabled&name%5B%5D=watch_cache_capacity"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			vb, _ := os.ReadFile("testdata/" + c.name + ".version.json")
			var got []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got = append(got, r.URL.RequestURI())
				if r.URL.Path == "/version" {
					_, _ = w.Write(vb)
					return
				}
				_, _ = io.WriteString(w, namedAnswer(t, c.name))
			}))
			defer srv.Close()
			cl, err := apiclient.NewClient(&rest.Config{Host: srv.URL})
			if err != nil {
				t.Fatal(err)
			}
			in := Read(context.Background(), cl, "", "configmaps", nil)
			if strings.Join(got, " ") != strings.Join(c.paths, " ") {
				t.Errorf("requests %q, want %q", got, c.paths)
			}
			if (in.WatchCache == Yes) != (len(c.paths) == 2) {
				t.Errorf("watch cache %s", in.WatchCache)
			}
		})
	}
}

// Issue 23: an earlier run's facts are reused for CacheTTL, for the same
// gitVersion and a resource that was asked for: the second run sends
// /version only; another resource, an older file or another version read
// /metrics again.
func TestFactsCache(t *testing.T) {
	vb, _ := os.ReadFile("testdata/v1.37.2-etcd-cache-on.version.json")
	version := vb
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.URL.Path)
		if r.URL.Path == "/version" {
			_, _ = w.Write(version)
			return
		}
		_, _ = io.WriteString(w, namedAnswer(t, "v1.37.2-etcd-cache-on"))
	}))
	defer srv.Close()
	cl, err := apiclient.NewClient(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC)
	cache := &Cache{Dir: t.TempDir(), Server: srv.URL, Now: func() time.Time { return now }}
	read := func(resource string) (*Info, string) {
		got = nil
		in := Read(context.Background(), cl, "", resource, cache)
		return in, strings.Join(got, " ")
	}
	if in, reqs := read("configmaps"); reqs != "/version /metrics" || in.GatesReadAt != nil || in.WatchCacheReadAt != nil || in.WatchCache != Yes {
		t.Fatalf("first run: %s, %+v", reqs, in)
	}
	now = now.Add(time.Minute)
	in, reqs := read("configmaps")
	if reqs != "/version" || in.WatchCache != Yes || in.GatesReadAt == nil || in.WatchCacheReadAt == nil || !in.Gate(GateWatchList) || len(in.Assumed) != 0 {
		t.Fatalf("second run: %s, %+v", reqs, in)
	}
	if s := in.Summary(); !strings.Contains(s, "from /metrics") || !strings.Contains(s, "ago") {
		t.Errorf("a cached fact does not say when it was read: %q", s)
	}
	if _, reqs := read("secrets"); reqs != "/version /metrics" {
		t.Errorf("a resource not asked before: %s", reqs)
	}
	if _, reqs := read("secrets"); reqs != "/version" {
		t.Errorf("secrets, asked before: %s", reqs)
	}
	now = now.Add(CacheTTL)
	if _, reqs := read("configmaps"); reqs != "/version /metrics" {
		t.Errorf("after CacheTTL: %s", reqs)
	}
	version = []byte(strings.ReplaceAll(string(vb), "v1.37.2", "v1.37.3"))
	if in, reqs := read("configmaps"); reqs != "/version /metrics" || in.Version != "v1.37.3" {
		t.Errorf("another version: %s", reqs)
	}
	// What was not read from /metrics is never kept.
	forbidden := &Cache{Dir: t.TempDir(), Server: "https://x"}
	forbidden.store(instance{GitVersion: "v1.37.2"}, "configmaps", nil)
	if forbidden.load(instance{GitVersion: "v1.37.2"}) != nil {
		t.Errorf("nothing read, yet something kept")
	}
}

// A whole /metrics (a server that ignores name[]) read for a check: the
// other families are skipped, not the end of the read, and the facts are
// found where they are.
func TestWholeMetricsReadsPastOtherFamilies(t *testing.T) {
	whole := "# HELP apiserver_request_total x\n# TYPE apiserver_request_total counter\napiserver_request_total{code=\"200\"} 5\n" +
		"# HELP kubernetes_feature_enabled x\n# TYPE kubernetes_feature_enabled gauge\nkubernetes_feature_enabled{name=\"ConsistentListFromCache\",stage=\"BETA\"} 1\nkubernetes_feature_enabled{name=\"WatchList\",stage=\"BETA\"} 0\n" +
		"# HELP process_cpu_seconds_total x\n# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total 3\n" +
		"# HELP watch_cache_capacity x\n# TYPE watch_cache_capacity gauge\nwatch_cache_capacity{resource=\"pods\"} 100\n"
	if s := scanMetrics(strings.NewReader(whole), MetricsCap, "", "configmaps"); !s.unfiltered {
		t.Fatalf("the filtered read must stop at a family not asked for")
	}
	s := scanMetricsOf(strings.NewReader(whole), 64<<20, "", "configmaps", true)
	if s.err != nil || s.unfiltered || !s.gates["ConsistentListFromCache"] || s.gates["WatchList"] || s.cache != No {
		t.Fatalf("whole read: err %v, unfiltered %v, gates %v, cache %v; want the gates and no watch cache for configmaps", s.err, s.unfiltered, s.gates, s.cache)
	}
}
