package top

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/metrics"
)

func TestMeant(t *testing.T) {
	for _, c := range []struct {
		x       float64
		counter bool
		want    bool
	}{
		{0, true, true}, {141, true, true}, {1 << 53, true, true}, {-1, false, true},
		{math.NaN(), false, false}, {math.Inf(1), true, false}, {math.Inf(-1), false, false},
		{-1, true, false}, {1e308, false, false}, {1<<53 + 2, true, false}, {-1e300, false, false},
	} {
		if got := meant(c.x, c.counter); got != c.want {
			t.Errorf("meant(%v, counter %v) = %v", c.x, c.counter, got)
		}
	}
}

// hostileRecording is a real recording with the value of one of its lines
// (the first line that starts with series) replaced by value: what a
// broken or hostile /metrics sends.
func hostileRecording(t *testing.T, name, series, value string) *Values {
	t.Helper()
	raw, err := os.ReadFile("testdata/" + name + ".metrics.txt")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(raw), "\n")
	done := false
	for i, l := range lines {
		if !done && strings.HasPrefix(l, series) {
			lines[i] = l[:strings.LastIndexByte(l, ' ')+1] + value
			done = true
		}
	}
	if !done {
		t.Fatalf("no line %s in %s", series, name)
	}
	sel, err := metrics.ParseSelected(strings.NewReader(strings.Join(lines, "\n")), Families, true)
	if err != nil {
		t.Fatal(err)
	}
	return Extract(sel, nil)
}

// A sample no server can mean, in either read, of a gauge or a counter,
// is not measured: the row is shown (never dropped as no load), its cell
// says why naming the family, the server lists it, the bound that reads it
// is not checked, and -o json carries no non-finite number.
func TestSamplesNoServerCanMean(t *testing.T) {
	const (
		watchers = `apiserver_longrunning_requests{component="apiserver",group="example.com",resource="widgets"`
		events   = `apiserver_watch_events_total{group="example.com",resource="widgets"`
	)
	for _, c := range []struct{ series, value string }{
		{watchers, "NaN"}, {watchers, "+Inf"}, {watchers, "-5"}, {watchers, "1e308"},
		{events, "NaN"}, {events, "+Inf"}, {events, "-141"}, {events, "1e308"}, {events, "9007199254740994"},
	} {
		for _, second := range []bool{false, true} {
			a, _ := recorded(t, "v1.37.2-etcd-cache-on.1", nil)
			b, _ := recorded(t, "v1.37.2-etcd-cache-on.2", nil)
			if second {
				b = hostileRecording(t, "v1.37.2-etcd-cache-on.2", c.series, c.value)
			} else {
				a = hostileRecording(t, "v1.37.2-etcd-cache-on.1", c.series, c.value)
			}
			t0 := time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC)
			s := &Server{Index: 1, Endpoint: "https://127.0.0.1:6443", ReadRequests: 2,
				First: &Sample{At: t0, Values: a}, Second: &Sample{At: t0.Add(5 * time.Second), Values: b}}
			s.Build(nil)
			name := c.series[:strings.IndexByte(c.series, '{')] + " " + c.value
			if !second && c.series == watchers {
				// A gauge is read from the second sample only.
				continue
			}
			w := rowOf(t, s, widgets)
			why := w.Events.Unmeasured
			if c.series == watchers {
				why = w.Watchers.Unmeasured
			}
			if !strings.Contains(why, c.series[:strings.IndexByte(c.series, '{')]) || !strings.Contains(why, "not a number the server can mean") {
				t.Errorf("%s (second %v): widgets says %q", name, second, why)
			}
			if len(s.Unmeasured) == 0 {
				t.Errorf("%s: the server does not name the sample", name)
			}
			r := Assemble([]*Server{s}, 5*time.Second, "watchers", 1)
			zero := 0.0
			checks := CheckBounds(r, Bounds{Watchers: map[string]WatcherBound{"": {Max: 10}}, Terminated: &zero})
			if c.series == watchers && (checks[0].Checked() || !strings.Contains(checks[0].Note, "server 1: apiserver_longrunning_requests")) {
				t.Errorf("%s: --max-watchers %+v, want not checked", name, checks[0])
			}
			if strings.HasPrefix(checks[0].Note, "not checked") {
				t.Errorf("note says not checked itself: %q", checks[0].Note)
			}
			if _, err := json.Marshal(r); err != nil {
				t.Errorf("%s: -o json: %v", name, err)
			}
		}
	}
}

// A family is missing only when no sample of it was seen, on every
// recording (v1.37 without a watch cache counts its lists in
// apiserver_storage_list_*, which are not missing though the watch
// cache's column of them is n/a).
func TestMissingOnlyWithoutSamples(t *testing.T) {
	files, err := filepath.Glob("testdata/*.1.metrics.txt")
	if err != nil || len(files) < 4 {
		t.Fatalf("recordings: %v %v", files, err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".1.metrics.txt")
		s := interval(t, name+".1", name+".2")
		for _, m := range s.Missing {
			for _, fam := range strings.Split(m.Family, " and ") {
				if s.Second.Values.Series[fam] {
					t.Errorf("%s: %s said missing (%s), but the server sent samples of it", name, fam, m.Reason)
				}
			}
		}
		if strings.HasPrefix(name, "v1.37.2") && strings.HasSuffix(name, "cache-off") {
			c := rowOf(t, s, configmaps)
			if !strings.Contains(c.ListsCache.Missing, `apiserver_storage_list_total{storage="watchcache"}: `+reasonNoCache) || !c.ListsStorage.Known() {
				t.Errorf("%s: lists by the cache %+v, by storage %+v", name, c.ListsCache, c.ListsStorage)
			}
		}
	}
}

// The callouts follow what top measured of each server's watch cache: on
// a server without one, no text sends the user to it.
func TestCalloutsFollowTheWatchCache(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.1.metrics.txt")
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".1.metrics.txt")
		s := interval(t, name+".1", name+".2")
		r := Assemble([]*Server{s}, 5*time.Second, "watchers", 1)
		off := strings.HasSuffix(name, "cache-off")
		storage := 0
		for _, c := range r.Callouts {
			if c.Kind == "most-storage-lists" || c.Kind == "storage-list-ratio" {
				storage++
			}
			texts := c.What + " " + c.Meaning + " " + c.Fix
			if off && (strings.Contains(texts, "from the watch cache") || strings.Contains(texts, "served by the watch cache") || strings.Contains(texts, "serve them from the watch cache")) {
				t.Errorf("%s (no watch cache): callout %s says %q", name, c.Kind, texts)
			}
			if off && c.Kind != "most-watchers" && !strings.Contains(texts, "no watch cache") {
				t.Errorf("%s (no watch cache): callout %s does not say so: %q", name, c.Kind, texts)
			}
		}
		if off && storage == 0 {
			t.Errorf("%s: no callout of the storage lists: %+v", name, r.Callouts)
		}
		if row := rowOf(t, s, configmaps); (row.WatchCache == CacheOff) != off {
			t.Errorf("%s: configmaps watch cache %q", name, row.WatchCache)
		}
	}
}

// A failed read names its request short, never the ~1,100-character URL
// of its name[] query, and unwraps to the failure.
func TestFailedReadNamesTheRequestShort(t *testing.T) {
	q := url.Values{"name[]": Families}
	inner := errors.New("tls: failed to verify certificate: x509: certificate signed by unknown authority")
	err := shortRequest(&url.Error{Op: "Get", URL: "https://127.0.0.1:6443/metrics?" + q.Encode(), Err: inner})
	if got := err.Error(); got != fmt.Sprintf("GET /metrics (%d families): ", len(Families))+inner.Error() || !errors.Is(err, inner) {
		t.Errorf("%q (is the failure: %v)", got, errors.Is(err, inner))
	}
}

// A spread not judged (fewer than two servers measured, or too little
// load) is a note, never one of the rows that matter.
func TestSpreadNotJudgedIsNoCallout(t *testing.T) {
	one := interval(t, "v1.37.2-etcd-cache-on.1", "v1.37.2-etcd-cache-on.2")
	failed := &Server{Index: 2, Endpoint: "127.0.0.1:1", Err: "x", Reason: "TLS"}
	failed.Build(nil)
	r := Assemble([]*Server{one, failed}, 5*time.Second, "watchers", 1)
	if r.Imbalance == nil || r.Imbalance.Watchers.Judged || !strings.Contains(r.Imbalance.Watchers.Verdict, "not judged") {
		t.Fatalf("imbalance %+v", r.Imbalance)
	}
	for _, c := range r.Callouts {
		if strings.Contains(c.What, "not judged") || strings.HasSuffix(c.Kind, "-imbalance") {
			t.Errorf("callout of a spread not judged: %+v", c)
		}
	}
}

// A server's minor version is its build_info "minor" label, or its
// git_version's when the label is not there.
func TestMinorOf(t *testing.T) {
	for _, c := range []struct {
		minor, git string
		want       int
	}{
		{"37", "v1.37.2", 37}, {"37+", "", 37}, {"", "v1.37.2", 37}, {"", "v1.30.14-gke.100", 30},
		{"", "v1.33", 33}, {"", "", 0}, {"", "v2.1.0", 0}, {"x", "v1.35.4", 35},
	} {
		if got := minorOf(c.minor, c.git); got != c.want {
			t.Errorf("minorOf(%q, %q) = %d, want %d", c.minor, c.git, got, c.want)
		}
	}
}

// Every note of a bound not checked is the reason alone: the one who
// prints it says "not checked" once.
func TestCheckNotesSayNotCheckedOnce(t *testing.T) {
	a, _ := recorded(t, "v1.30.14-etcd-cache-off.1", kubeKinds)
	b, _ := recorded(t, "v1.30.14-etcd-cache-off.2", kubeKinds)
	t0 := time.Now()
	s := &Server{Index: 1, First: &Sample{At: t0, Values: a}, Second: &Sample{At: t0.Add(5 * time.Second), Values: b}}
	s.Build(nil)
	failed := &Server{Index: 2, Err: "x"}
	zero := 0.0
	for _, servers := range [][]*Server{{s}, {s, failed}} {
		r := Assemble(servers, 5*time.Second, "watchers", 1)
		for _, c := range CheckBounds(r, Bounds{Terminated: &zero, StorageListRatio: &zero, Rejected: &zero, Watchers: map[string]WatcherBound{"": {Max: 1}}}) {
			if !c.Checked() && (c.Note == "" || strings.Contains(strings.ToLower(c.Note), "not checked")) {
				t.Errorf("%d server(s): %s note %q", len(servers), c.Bound, c.Note)
			}
		}
	}
}

// withoutFamily is a recording with every line of family fam left out, as
// a server that does not expose it (--disabled-metrics, another version)
// answers.
func withoutFamily(t *testing.T, name, fam string) *Values {
	t.Helper()
	raw, err := os.ReadFile("testdata/" + name + ".metrics.txt")
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, l := range strings.Split(string(raw), "\n") {
		f := strings.TrimPrefix(strings.TrimPrefix(l, "# HELP "), "# TYPE ")
		if f == fam || strings.HasPrefix(f, fam+" ") || strings.HasPrefix(f, fam+"{") || strings.HasPrefix(f, fam+"_bucket") || strings.HasPrefix(f, fam+"_sum") || strings.HasPrefix(f, fam+"_count") {
			continue
		}
		kept = append(kept, l)
	}
	sel, err := metrics.ParseSelected(strings.NewReader(strings.Join(kept, "\n")), Families, true)
	if err != nil {
		t.Fatal(err)
	}
	return Extract(sel, nil)
}

// A bound is never "ok" on a family the server does not expose: with each
// family of the recordings left out in turn, every bound that reads a
// family the server then lists as not exposed is NOT CHECKED naming it (a
// missing family gives no rows, whose sum would pass). A bound that was
// checked on the whole recording and is not any more names a family the
// server lists (a counter the version registers counts 0 without series;
// without kubernetes_build_info the version is unknown).
func TestABoundOnAFamilyNotExposedIsNotChecked(t *testing.T) {
	zero, ratio := 0.0, 1000.0
	bounds := Bounds{Watchers: map[string]WatcherBound{"": {Max: 100000}, "widgets": {Given: "widgets", GR: widgets, Max: 100000}}, Terminated: &zero, StorageListRatio: &ratio, Rejected: &zero}
	for _, rec := range []string{"v1.37.2-etcd-cache-on", "v1.30.14-etcd-cache-on"} {
		full := interval(t, rec+".1", rec+".2")
		base := CheckBounds(Assemble([]*Server{full}, 5*time.Second, "watchers", 1), bounds)
		for _, fam := range Families {
			t0 := time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC)
			s := &Server{Index: 1, Endpoint: "https://127.0.0.1:6443", ReadRequests: 2,
				First:  &Sample{Start: t0, At: t0, End: t0, Values: withoutFamily(t, rec+".1", fam), Filtered: true},
				Second: &Sample{Start: t0.Add(5 * time.Second), At: t0.Add(5 * time.Second), End: t0.Add(5 * time.Second), Values: withoutFamily(t, rec+".2", fam), Filtered: true}}
			s.Build(nil)
			listed := map[string]bool{}
			for _, m := range s.Missing {
				listed[m.Family] = true
			}
			for i, c := range CheckBounds(Assemble([]*Server{s}, 5*time.Second, "watchers", 1), bounds) {
				var reads []string
				for _, f := range boundFields[c.Bound] {
					reads = append(reads, s.Second.Values.family(f))
				}
				if c.Bound == BoundRejected {
					reads = append(reads, famAPFRejected)
				}
				for _, r := range reads {
					if listed[r] && (c.Checked() || !strings.Contains(c.Note, r)) {
						t.Errorf("%s without %s: --max-%s %s checked (%v, note %q), though the server lists %s as not exposed", rec, fam, c.Bound, c.Resource, c.Value, c.Note, r)
					}
				}
				if base[i].Checked() && !c.Checked() {
					named := false
					for f := range listed {
						named = named || strings.Contains(c.Note, f)
					}
					if !named {
						t.Errorf("%s without %s: --max-%s %s not checked for a reason the server does not list: %q", rec, fam, c.Bound, c.Resource, c.Note)
					}
				}
			}
		}
	}
}

// A bound crossed on the servers that expose its family stays crossed when
// another server does not expose it: what that server has can only add
// (adversary try 8: the crossing was hidden as NOT CHECKED).
func TestACrossedBoundStaysCrossedBesideAServerWithoutItsFamily(t *testing.T) {
	rec := "v1.37.2-etcd-cache-on"
	one := interval(t, rec+".1", rec+".2")
	t0 := time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC)
	two := &Server{Index: 2, Endpoint: "https://127.0.0.2:6443", ReadRequests: 2,
		First:  &Sample{Start: t0, At: t0, End: t0, Values: withoutFamily(t, rec+".1", famLongRunning), Filtered: true},
		Second: &Sample{Start: t0.Add(5 * time.Second), At: t0.Add(5 * time.Second), End: t0.Add(5 * time.Second), Values: withoutFamily(t, rec+".2", famLongRunning), Filtered: true}}
	two.Build(nil)
	r := Assemble([]*Server{one, two}, 5*time.Second, "watchers", 1)
	checks := CheckBounds(r, Bounds{Watchers: map[string]WatcherBound{"widgets": {Given: "widgets", GR: widgets, Max: 4}}})
	if len(checks) != 1 || !checks[0].Crossed || !checks[0].Checked() {
		t.Fatalf("5 watchers on server 1 over a bound of 4, server 2 without %s: %+v; want crossed", famLongRunning, checks)
	}
	within := CheckBounds(r, Bounds{Watchers: map[string]WatcherBound{"widgets": {Given: "widgets", GR: widgets, Max: 100}}})
	if within[0].Checked() || !strings.Contains(within[0].Note, famLongRunning) {
		t.Fatalf("within the bound on server 1 only: %+v; want NOT CHECKED naming %s", within, famLongRunning)
	}
}

// The class of the test above, over every bound and every way a second
// server can lack a value: a bound that one server crosses by itself stays
// crossed beside a server without a family, or whose counters went down
// (adversary try 8 found it for watchers; the ratio and the rejections
// returned NOT CHECKED at the first gap).
func TestEveryCrossedBoundStaysCrossedBesideAServerWithoutAValue(t *testing.T) {
	zero := 0.0
	// What server 1 has crosses these: its watchers, its ratio where it
	// read storage, its rejections (0 > -1: the logic, not a real flag).
	ratio, rejected := 0.5, -1.0
	bounds := Bounds{Watchers: map[string]WatcherBound{"": {Max: 0}, "widgets": {Given: "widgets", GR: widgets, Max: 0}}, Terminated: &zero, StorageListRatio: &ratio, Rejected: &rejected}
	tried := map[string]int{}
	for _, rec := range []string{"v1.37.2-etcd-cache-on", "v1.30.14-etcd-cache-on"} {
		alone := CheckBounds(Assemble([]*Server{interval(t, rec+".1", rec+".2")}, 5*time.Second, "watchers", 1), bounds)
		t0 := time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC)
		seconds := map[string]*Server{}
		for _, fam := range Families {
			two := &Server{Index: 2, Endpoint: "https://127.0.0.2:6443", ReadRequests: 2,
				First:  &Sample{Start: t0, At: t0, End: t0, Values: withoutFamily(t, rec+".1", fam), Filtered: true},
				Second: &Sample{Start: t0.Add(5 * time.Second), At: t0.Add(5 * time.Second), End: t0.Add(5 * time.Second), Values: withoutFamily(t, rec+".2", fam), Filtered: true}}
			two.Build(nil)
			seconds["without "+fam] = two
		}
		down := interval(t, rec+".2", rec+".1") // every counter went down
		down.Index, down.Endpoint = 2, "https://127.0.0.2:6443"
		seconds["counters went down"] = down
		// A server that gave no interval (adversary try 11: "not
		// checked", exit 12 where 14 was due).
		seconds["did not answer"] = &Server{Index: 2, Endpoint: "https://127.0.0.2:6443", Err: "dial tcp 127.0.0.2:6443: connect: connection refused", Reason: "Unreachable"}
		for why, two := range seconds {
			both := CheckBounds(Assemble([]*Server{interval(t, rec+".1", rec+".2"), two}, 5*time.Second, "watchers", 1), bounds)
			for i, c := range both {
				if !alone[i].Crossed {
					continue
				}
				tried[c.Bound]++
				if !c.Crossed || !c.Checked() {
					t.Errorf("%s, server 2 %s: --max-%s %s crossed on server 1 alone (%v), beside it %v, note %q; want crossed", rec, why, c.Bound, c.Resource, *alone[i].Value, c.Value, c.Note)
				}
			}
		}
	}
	for _, b := range []string{BoundWatchers, BoundStorageListRatio, BoundRejected} {
		if tried[b] == 0 {
			t.Errorf("--max-%s was never crossed on server 1 alone: the test did not try it", b)
		}
	}
}

// A watchers bound summed over the servers names as many as were
// measured, not as many as were asked: a server that was not read adds
// nothing to the sum.
func TestWatchersOverTheServersMeasured(t *testing.T) {
	rec := "v1.37.2-etcd-cache-on"
	one := interval(t, rec+".1", rec+".2")
	failed := &Server{Index: 2, Endpoint: "https://127.0.0.2:6443", Err: "connection refused"}
	r := Assemble([]*Server{one, failed}, 5*time.Second, "watchers", 1)
	checks := CheckBounds(r, Bounds{Watchers: map[string]WatcherBound{"widgets": {Given: "widgets", GR: widgets, Max: 4}}})
	if len(checks) != 1 || strings.Contains(checks[0].Where, "over 2 servers") {
		t.Fatalf("one server measured of two: %+v; want no 'over 2 servers'", checks)
	}
	again := interval(t, rec+".1", rec+".2")
	again.Index = 2
	r = Assemble([]*Server{one, again}, 5*time.Second, "watchers", 1)
	if checks := CheckBounds(r, Bounds{Watchers: map[string]WatcherBound{"widgets": {Given: "widgets", GR: widgets, Max: 4}}}); len(checks) != 1 || !strings.Contains(checks[0].Where, "over 2 servers") {
		t.Fatalf("two servers measured: %+v; want 'over 2 servers'", checks)
	}
}

// APF rejections measured on one server and not on another are "not
// measured" on that other only: the notes show the first's.
func TestAPFNotMeasuredNamesTheServer(t *testing.T) {
	one := interval(t, "v1.37.2-etcd-cache-on.1", "v1.37.2-etcd-cache-on.2")
	failed := &Server{Index: 2, Endpoint: "https://127.0.0.2:6443", Err: "connection refused"}
	r := Assemble([]*Server{one, failed}, 5*time.Second, "watchers", 1)
	q := QuietOf(r)
	found := false
	for _, u := range q.Unmeasured {
		if strings.HasPrefix(u, "APF rejections") {
			found = true
			if u != "APF rejections (server 2: not read)" {
				t.Errorf("unmeasured %q, want it of server 2 only", u)
			}
		}
	}
	if !found {
		t.Errorf("APF not said unmeasured on server 2: %+v", q)
	}
}
