package clients

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/audit"
)

// The audit log recorded from a real kube-apiserver v1.37.2 by
// test/e2e/clients (see ../audit/testdata/README.md): a healthy informer
// (admin), the same informer in a relist loop (nobody: its connection cut
// 4 times after its RV was compacted away), a poller (12 lists, a second
// apart), kubectl get -w and the plugin.
const recorded = "../audit/testdata/e2e-audit.log"

func analyze(t *testing.T, data []byte, o Options) Report {
	t.Helper()
	a := New(o)
	st, err := audit.Read(context.Background(), []audit.Source{{Name: "a", R: bytes.NewReader(data)}}, audit.Options{}, func(e *audit.Event) error {
		a.Add(e)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return a.Report([]string{"a"}, st)
}

func recordedLog(t *testing.T) []byte {
	b, err := os.ReadFile(recorded)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func byName(r Report) map[string]Client {
	m := map[string]Client{}
	for _, c := range r.Clients {
		m[c.User+" / "+strings.SplitN(c.UserAgent, " ", 2)[0]] = c
	}
	return m
}

func names(ps []Pattern) string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Name)
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

func TestRecordedClients(t *testing.T) {
	r := analyze(t, recordedLog(t), Options{})
	m := byName(r)
	for name, want := range map[string]struct {
		requests, lists, watches, streaming, gets int64
		patterns                                  string
	}{
		"admin / watchrv-e2e-informer":       {1, 0, 1, 1, 0, ""},
		"nobody / watchrv-e2e-informer":      {8, 0, 8, 5, 0, "relist-loop,stale-reconnect"},
		"admin / watchrv-e2e-poller":         {12, 12, 0, 0, 0, "consistent-read-pressure,polling"},
		"admin / kubectl/v1.32.4":            {4, 1, 1, 0, 2, ""},
		"admin / kubectl-watchrv/v0.0.0-e2e": {6, 1, 1, 0, 4, ""},
	} {
		c, ok := m[name]
		if !ok {
			t.Errorf("%s not found", name)
			continue
		}
		got := []int64{c.Requests, c.Lists.Total, c.Watches.Total, c.Watches.Streaming, c.Gets}
		exp := []int64{want.requests, want.lists, want.watches, want.streaming, want.gets}
		if fmt.Sprint(got) != fmt.Sprint(exp) {
			t.Errorf("%s: requests, lists, watches, streaming, gets = %v, want %v", name, got, exp)
		}
		if p := names(c.Patterns); p != want.patterns {
			t.Errorf("%s: patterns %q, want %q", name, p, want.patterns)
		}
	}
	loop := m["nobody / watchrv-e2e-informer"]
	for _, p := range loop.Patterns {
		switch p.Name {
		case PatternRelistLoop:
			if p.Count != 4 {
				t.Errorf("relist-loop count %d, want 4 (one per cut): %s", p.Count, p.Evidence)
			}
		case PatternStaleReconnect:
			// The 3 watches from the compacted RV: each ended at once and
			// was followed by a streaming relist.
			if p.Count != 3 || !strings.Contains(p.Evidence, "inside the watch stream") {
				t.Errorf("stale-reconnect count %d, want 3: %s", p.Count, p.Evidence)
			}
		}
	}
	w := loop.Watches
	if w.Exact != 3 || w.AtOnce != 4 || w.Early != 4 || w.Open != 0 {
		t.Errorf("looping informer's watches: exact %d, within 1s %d, early %d, open %d; want 3, 4, 4, 0", w.Exact, w.AtOnce, w.Early, w.Open)
	}
	poller := m["admin / watchrv-e2e-poller"]
	if poller.Objects == nil || *poller.Objects != 12 {
		t.Errorf("poller objects %v, want 12 (one configmap in each of 12 RequestResponse lists)", poller.Objects)
	}
	// Ranked by lists, then requests: the poller first.
	if r.Clients[0].UserAgent != "watchrv-e2e-poller" {
		t.Errorf("first client %s, want the poller", r.Clients[0].Name())
	}
	if r.Levels["Metadata"] == 0 || r.Levels["Request"] == 0 || r.Levels["RequestResponse"] == 0 {
		t.Errorf("levels %v", r.Levels)
	}
}

// Without the RequestReceived stage (the usual policy), each request still
// counts once, with the same modes and ends.
func TestWithoutRequestReceived(t *testing.T) {
	all := recordedLog(t)
	var kept [][]byte
	for _, l := range bytes.Split(bytes.TrimRight(all, "\n"), []byte("\n")) {
		if !bytes.Contains(l, []byte(`"stage":"RequestReceived"`)) {
			kept = append(kept, l)
		}
	}
	a, b := analyze(t, all, Options{}), analyze(t, append(bytes.Join(kept, []byte("\n")), '\n'), Options{})
	if a.Requests != b.Requests || len(a.Clients) != len(b.Clients) {
		t.Fatalf("requests %d vs %d, clients %d vs %d", a.Requests, b.Requests, len(a.Clients), len(b.Clients))
	}
	for i := range a.Clients {
		ca, cb := a.Clients[i], b.Clients[i]
		if ca.Name() != cb.Name() || ca.Requests != cb.Requests || ca.Lists != cb.Lists || ca.Watches.Total != cb.Watches.Total || names(ca.Patterns) != names(cb.Patterns) {
			t.Errorf("client %d: %s %d %+v %s vs %s %d %+v %s", i, ca.Name(), ca.Requests, ca.Lists, names(ca.Patterns), cb.Name(), cb.Requests, cb.Lists, names(cb.Patterns))
		}
	}
}

// Who served the poller's 12 consistent lists, by what is known of the
// server: its version and its watch cache. The recorded server ran with
// --watch-cache-sizes=configmaps#0 (no cache for configmaps): every list
// read storage, which only that flag can tell; where the cache's state is
// not known, a list the cache would serve is not known either.
func TestServerVersionRules(t *testing.T) {
	log := recordedLog(t)
	for _, c := range []struct {
		version, cache, sizes string
		patterns              string
		storage, unknown      int64
		evidence              string
	}{
		{"", "", "", "consistent-read-pressure,polling", 0, 12, "pass --server-version"},
		{"v1.30.14", "", "", "consistent-read-pressure,polling", 12, 0, "read etcd up to v1.30"},
		{"v1.37.2", "", "", "consistent-read-pressure,polling", 0, 12, "if it is on, else from storage"},
		{"1.33", "on", "", "polling", 0, 0, ""},
		{"v1.37.2", "true", "", "polling", 0, 0, ""},
		{"v1.37.2", "", "configmaps#0", "consistent-read-pressure,polling", 12, 0, "configmaps has no watch cache"},
		{"v1.37.2", "", "secrets#0", "polling", 0, 0, ""},
		{"v1.37.2", "off", "", "consistent-read-pressure,polling", 12, 0, "runs without a watch cache"},
		{"", "false", "", "consistent-read-pressure,polling", 12, 0, "every list reads storage"},
		{"v1.31.0", "on", "", "polling", 0, 0, ""},
		{"v1.32.13", "", "", "consistent-read-pressure,polling", 0, 12, "read in the source of v1.32"},
	} {
		mode, err := ParseWatchCache(c.cache)
		sizes, err2 := ParseWatchCacheSizes(c.sizes)
		if err != nil || err2 != nil {
			t.Fatal(err, err2)
		}
		p := byName(analyze(t, log, Options{ServerVersion: c.version, WatchCache: mode, WatchCacheSizes: sizes}))["admin / watchrv-e2e-poller"]
		if names(p.Patterns) != c.patterns || p.StorageLists != c.storage || p.StorageUnknown != c.unknown {
			t.Errorf("%+v: patterns %q storage %d unknown %d", c, names(p.Patterns), p.StorageLists, p.StorageUnknown)
		}
		for _, pt := range p.Patterns {
			if pt.Name == PatternConsistentReads && !strings.Contains(pt.Evidence, c.evidence) {
				t.Errorf("%+v: evidence %q", c, pt.Evidence)
			}
			// Without a watch cache resourceVersion=0 reads storage too:
			// the fix must not offer it (fresh try 7).
			noCache := c.cache == "off" || c.cache == "false" || c.sizes == "configmaps#0"
			if pt.Name == PatternConsistentReads && noCache != strings.HasPrefix(pt.Fix, "Without a watch cache") {
				t.Errorf("%+v: fix %q", c, pt.Fix)
			}
		}
	}
	// A size for a name no request is for (kubectl's short name cm, a
	// typo) applies nothing: the report names it (fresh user try 20).
	sizes, _ := ParseWatchCacheSizes("cm#0,configmapz#0,configmaps#5")
	r := analyze(t, log, Options{ServerVersion: "v1.37.2", WatchCacheSizes: sizes})
	if strings.Join(r.SizesUnmatched, ",") != "cm,configmapz" {
		t.Errorf("sizes no request is for: %v, want cm and configmapz", r.SizesUnmatched)
	}
	for _, bad := range []string{"latest", "2.1", "v1", "v1.x"} {
		if ValidateVersion(bad) == nil {
			t.Errorf("--server-version %q accepted", bad)
		}
	}
	for _, bad := range []string{"maybe", "1"} {
		if _, err := ParseWatchCache(bad); err == nil {
			t.Errorf("--watch-cache %q accepted", bad)
		}
	}
	for _, bad := range []string{"configmaps", "configmaps#", "#0", "configmaps#-1", "configmaps#x"} {
		if _, err := ParseWatchCacheSizes(bad); err == nil {
			t.Errorf("--watch-cache-sizes %q accepted", bad)
		}
	}
}

func TestListMode(t *testing.T) {
	for uri, want := range map[string]string{
		"/api/v1/configmaps?limit=500":                                                    modeUnset,
		"/api/v1/configmaps?resourceVersion=0":                                            modeZero,
		"/api/v1/configmaps?resourceVersion=12&resourceVersionMatch=Exact":                modeExact,
		"/api/v1/configmaps?resourceVersion=12&limit=500":                                 modeExact, // legacy exact
		"/api/v1/configmaps?resourceVersion=12":                                           modeNotOlderThan,
		"/api/v1/configmaps?resourceVersion=12&resourceVersionMatch=NotOlderThan&limit=5": modeNotOlderThan,
		"/api/v1/configmaps?resourceVersion=0&resourceVersionMatch=NotOlderThan&limit=5":  modeZero,
		"/api/v1/configmaps?continue=abc&limit=500":                                       modeContinue,
	} {
		q, _ := audit.ParseQuery(uri)
		if got := listMode(q); got != want {
			t.Errorf("%s: %s, want %s", uri, got, want)
		}
	}
}

// A watch's start mode reads its booleans as the API server does (any
// value but "0" and "false" is true): watch=yes&sendInitialEvents=yes is a
// streaming list, not a watch with RV unset (adversary try 20 #13).
func TestWatchModeReadsTheServersBooleans(t *testing.T) {
	const p = "/api/v1/configmaps?resourceVersionMatch=NotOlderThan&"
	for uri, want := range map[string]string{
		p + "watch=1&sendInitialEvents=true":                       "streaming",
		p + "watch=yes&sendInitialEvents=yes":                      "streaming",
		p + "watch&sendInitialEvents":                              "streaming",
		p + "watch=1&sendInitialEvents=&allowWatchBookmarks=no":    "streaming",
		p + "watch=1&sendInitialEvents=False":                      watchChanges,
		p + "watch=1&sendInitialEvents=0&resourceVersion=5":        modeExact,
		p + "watch=1&sendInitialEvents=FALSE&resourceVersion=0":    watchChanges,
		p + "watch=1&sendInitialEvents=0;x&sendInitialEvents=true": "streaming",
		// Not given (or dropped with its ";"): the legacy state, from
		// resourceVersion unset or any decimal 0.
		"/api/v1/configmaps?watch=1":                                       watchState,
		"/api/v1/configmaps?watch=1&resourceVersion=00":                    watchState,
		"/api/v1/configmaps?watch=1&sendInitialEvents=0;x":                 watchState,
		"/api/v1/configmaps?watch=1&resourceVersion=0&allowWatchBookmarks": watchState,
	} {
		q, _ := audit.ParseQuery(uri)
		if got := watchStart(q); got != want {
			t.Errorf("%s: %s, want %s", uri, got, want)
		}
	}
}

// A herd: the looping informer's real lines, copied as three users (new
// auditIDs), relist in the same seconds. Its 4 relists (10:44:42.1, :46.6,
// :52.8, 10:45:02.7) make two herds: the first two within 4.4 s, the last
// two within 9.9 s; each names the 3 clients and counts their 6 relists.
func TestHerd(t *testing.T) {
	var in [][]byte
	for _, l := range bytes.Split(bytes.TrimRight(recordedLog(t), "\n"), []byte("\n")) {
		if !bytes.Contains(l, []byte(`"username":"nobody"`)) {
			continue
		}
		for k, u := range []string{"ds-pod-a", "ds-pod-b", "ds-pod-c"} {
			c := bytes.Replace(l, []byte(`"username":"nobody"`), []byte(`"username":"`+u+`"`), 1)
			c = bytes.Replace(c, []byte(`"auditID":"`), []byte(`"auditID":"`+string(rune('a'+k))), 1)
			in = append(in, c)
		}
	}
	r := analyze(t, append(bytes.Join(in, []byte("\n")), '\n'), Options{})
	if len(r.Clients) != 3 {
		t.Fatalf("%d clients, want 3", len(r.Clients))
	}
	want := [][2]string{{"10:44:42", "10:44:46"}, {"10:44:52", "10:45:02"}}
	if len(r.Herds) != len(want) {
		t.Fatalf("%d herds, want %d: %+v", len(r.Herds), len(want), r.Herds)
	}
	for i, h := range r.Herds {
		if h.Count != 3 || h.First.UTC().Format("15:04:05") != want[i][0] || h.Last.UTC().Format("15:04:05") != want[i][1] ||
			!strings.Contains(h.Evidence, "3 clients relisted 6 times") || !strings.Contains(h.Evidence, "ds-pod-a / watchrv-e2e-informer") {
			t.Errorf("herd %d: %+v", i, h)
		}
	}
	// One client alone is no herd.
	if r := analyze(t, recordedLog(t), Options{}); len(r.Herds) != 0 {
		t.Errorf("herds in the recorded log: %+v", r.Herds)
	}
}

// A herd is found wherever it falls on the clock: three clients relisting
// at :48, :51 and :53 cross a 10-second edge (fixed buckets saw two clients
// on each side, and no herd); relists more than 10 s apart are none.
func TestHerdAcrossABucketEdge(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 44, 48, 0, time.UTC)
	var h herdState
	for i, d := range []time.Duration{0, 3 * time.Second, 5 * time.Second} {
		h.add(t0.Add(d), clientKey{user: fmt.Sprint("u", i)})
	}
	for i, d := range []time.Duration{60, 71, 82} {
		h.add(t0.Add(d*time.Second), clientKey{user: fmt.Sprint("v", i)})
	}
	h.flush(time.Time{})
	if len(h.herds) != 1 || h.herds[0].Count != 3 || !h.herds[0].First.Equal(t0) || !h.herds[0].Last.Equal(t0.Add(5*time.Second)) {
		t.Fatalf("herds %+v, want one of 3 clients from 10:44:48 to :53", h.herds)
	}
}

// The timeline's 410 row counts the in-stream 410s too: the looping
// informer's 3 watches from the compacted RV.
func TestTimelineExpired(t *testing.T) {
	r := analyze(t, recordedLog(t), Options{Top: 10})
	for _, c := range r.Timeline.Clients {
		var lists, watches, expired int64
		for i := range c.Lists {
			lists, watches, expired = lists+c.Lists[i], watches+c.Watches[i], expired+c.Expired[i]
		}
		switch c.Client {
		case "nobody / watchrv-e2e-informer":
			if watches != 8 || expired != 3 || lists != 0 {
				t.Errorf("looping informer: lists %d watches %d 410s %d, want 0 8 3", lists, watches, expired)
			}
		case "admin / watchrv-e2e-poller":
			if lists != 12 || watches != 0 || expired != 0 {
				t.Errorf("poller: lists %d watches %d 410s %d, want 12 0 0", lists, watches, expired)
			}
		}
	}
	if len(r.Timeline.Clients) != len(r.Clients) || r.Timeline.BucketSeconds != 60 {
		t.Errorf("timeline: %d clients (of %d), buckets of %ds", len(r.Timeline.Clients), len(r.Clients), r.Timeline.BucketSeconds)
	}
}
