package serverinfo

import (
	"os"
	"strings"
	"testing"
)

// recordedInfo builds the Info of a recorded real server (testdata:
// /version and the parts of /metrics serverinfo reads, saved by
// test/e2e/matrix with WATCHRV_RECORD_SERVERINFO=1), for configmaps.
func recordedInfo(t *testing.T, name string) *Info {
	t.Helper()
	vb, err := os.ReadFile("testdata/" + name + ".version.json")
	if err != nil {
		t.Fatal(err)
	}
	git, minor, err := ParseVersion(vb)
	if err != nil {
		t.Fatal(err)
	}
	mf, err := os.Open("testdata/" + name + ".metrics.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer mf.Close()
	f, err := ParseMetrics(mf)
	if err != nil {
		t.Fatal(err)
	}
	return Build(git, minor, FactsOf(f, "", "configmaps"), "", "configmaps")
}

func TestRecordedServers(t *testing.T) {
	cases := []struct {
		name       string
		version    string
		minor      int
		cache      Tri
		seen, gate map[string]bool
	}{
		{"v1.30.14-etcd-cache-on", "v1.30.14", 30, Yes,
			map[string]bool{GateConsistentListFromCache: false, GateWatchList: false},
			map[string]bool{GateConsistentListFromCache: false, GateWatchList: false, GateListFromCacheSnapshot: false}},
		{"v1.33.13-etcd-cache-on", "v1.33.13", 33, Yes,
			map[string]bool{GateConsistentListFromCache: true, GateWatchList: false, GateListFromCacheSnapshot: false},
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
			if len(in.Assumed) != 0 {
				t.Errorf("assumed %q with /metrics read", in.Assumed)
			}
		})
	}
}

// Claims 1 and 3: who serves a list, chosen from the recorded servers.
func TestListSourceOnRecordedServers(t *testing.T) {
	v130 := recordedInfo(t, "v1.30.14-etcd-cache-on")
	v137off := recordedInfo(t, "v1.37.2-etcd-cache-off")
	v133 := recordedInfo(t, "v1.33.13-etcd-cache-on")
	cases := []struct {
		in            *Info
		rv, match     string
		limit         int64
		want, wantNot string
	}{
		{v130, "", "", 500, "served by storage (etcd, or a shim such as kine), not the watch cache (ConsistentListFromCache is off on v1.30.14)", "caught up"},
		{v130, "0", "", 500, "whatever the watch cache holds", "storage round trip,"},
		{v130, "5", "NotOlderThan", 500, "on v1.30.14 a list with a limit and an RV other than 0 bypasses the watch cache", "waits"},
		{v130, "5", "NotOlderThan", 0, "which first waits for it", "bypasses"},
		{v130, "5", "Exact", 500, "ListFromCacheSnapshot is off on v1.30.14", "snapshots while"},
		{v133, "", "", 500, "served by the watch cache once it has caught up", "not the watch cache"},
		{v133, "5", "NotOlderThan", 500, "which first waits for it", "bypasses"},
		{v133, "5", "Exact", 500, "ListFromCacheSnapshot is off on v1.33.13", "snapshots while"},
		{v137off, "0", "", 500, "no watch cache on this server, so rv=0 reads the newest state", "watch cache holds"},
		{v137off, "", "", 500, "no watch cache", "caught up"},
	}
	for _, c := range cases {
		got := c.in.ListSource(c.rv, c.match, c.limit)
		if !strings.Contains(got, c.want) || strings.Contains(got, c.wantNot) {
			t.Errorf("%s rv=%q match=%q limit=%d: %q, want %q and not %q", c.in.Version, c.rv, c.match, c.limit, got, c.want, c.wantNot)
		}
	}
}

// Claims 4 and 6 from the recorded servers: no bookmarks (so no stall
// check) without a watch cache; the ~3 s TooLarge wait only where the
// cache serves the list.
func TestTextsOnRecordedServers(t *testing.T) {
	v130 := recordedInfo(t, "v1.30.14-etcd-cache-on")
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
	if h := v130.StreamingRefusedHint(); !strings.Contains(h, "off on this v1.30.14 server (kubernetes_feature_enabled)") || !strings.Contains(h, "flags are fine") {
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
	if s := in.ListSource("0", "", 500); !strings.Contains(s, "not known here") {
		t.Errorf("rv=0 with the cache unknown: %q", s)
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
