package serverinfo

import (
	"context"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
)

// factsServer answers /metrics with the recorded v1.37.2 answer (cache on)
// and counts the reads.
func factsServer(t *testing.T) (*apiclient.Client, *int) {
	t.Helper()
	reads := new(int)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		*reads++
		_, _ = io.WriteString(w, namedAnswer(t, "v1.37.2-etcd-cache-on"))
	}))
	t.Cleanup(srv.Close)
	cl, err := apiclient.NewClient(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	return cl, reads
}

// Fresh user try 22 #2: facts kept by address and version outlived a
// change of server at the address. They are the facts of one server (its
// serving certificate with its version): another one there is read anew,
// and each keeps its own.
func TestFactsAreKeptPerServer(t *testing.T) {
	cl, reads := factsServer(t)
	now := time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC)
	cache := &Cache{Dir: t.TempDir(), Server: "https://127.0.0.1:40001", Now: func() time.Time { return now }}
	a, b := instance{Cert: "aa", GitVersion: "v1.37.2"}, instance{Cert: "bb", GitVersion: "v1.37.2"}
	read := func(id instance) (*Info, int) {
		before := *reads
		in := readFacts(context.Background(), cl, id, 37, "", "configmaps", cache)
		return in, *reads - before
	}
	for i, step := range []struct {
		id     instance
		reads  int
		cached bool
	}{{a, 1, false}, {a, 0, true}, {b, 1, false}, {b, 0, true}, {a, 0, true}} {
		in, n := read(step.id)
		if n != step.reads || (in.GatesReadAt != nil) != step.cached || in.cert != step.id.Cert {
			t.Errorf("step %d (server %s): %d /metrics reads, kept facts %v; want %d, %v", i, step.id.Cert, n, in.GatesReadAt != nil, step.reads, step.cached)
		}
	}
	// No watch cache is a fact kept too (events, whose stored objects of
	// a built-in group are not asked for).
	before := *reads
	readFacts(context.Background(), cl, a, 37, "", "events", cache)
	if in := readFacts(context.Background(), cl, a, 37, "", "events", cache); in.WatchCache != No || in.GatesReadAt == nil || *reads != before+1 {
		t.Errorf("events: watch cache %s, kept %v, %d reads; want no, kept, 1 read", in.WatchCache, in.GatesReadAt != nil, *reads-before)
	}
}

// Fresh user try 22 #10: one age was said for the gates and the
// resource's watch cache, read at different times. Each fact keeps its
// own time: a read for another resource reads the gates again, and the
// first resource's fact keeps its time.
func TestEachFactKeepsItsReadTime(t *testing.T) {
	cl, _ := factsServer(t)
	t0 := time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC)
	now := t0
	cache := &Cache{Dir: t.TempDir(), Server: "https://127.0.0.1:40001", Now: func() time.Time { return now }}
	id := instance{Cert: "aa", GitVersion: "v1.37.2"}
	readFacts(context.Background(), cl, id, 37, "", "configmaps", cache)
	now = t0.Add(6 * time.Minute)
	readFacts(context.Background(), cl, id, 37, "", "secrets", cache)
	now = t0.Add(6*time.Minute + 10*time.Second)
	in := readFacts(context.Background(), cl, id, 37, "", "configmaps", cache)
	if in.GatesReadAt == nil || !in.GatesReadAt.Equal(t0.Add(6*time.Minute)) || in.WatchCacheReadAt == nil || !in.WatchCacheReadAt.Equal(t0) {
		t.Fatalf("gates read at %v, cache at %v; want %v and %v", in.GatesReadAt, in.WatchCacheReadAt, t0.Add(6*time.Minute), t0)
	}
	// The cache fact expires on its own time, the gates on theirs.
	now = t0.Add(CacheTTL + time.Second)
	if in := readFacts(context.Background(), cl, id, 37, "", "configmaps", cache); in.GatesReadAt != nil {
		t.Errorf("a fact older than %s was used", CacheTTL)
	}

	ago := func(d time.Duration) *time.Time { t := time.Now().Add(-d); return &t }
	for _, c := range []struct {
		gates, cache *time.Time
		want         string
	}{
		{ago(10 * time.Second), ago(6*time.Minute + 8*time.Second), "gates from /metrics 10s ago and cache 6m8s ago, kept 10m"},
		{ago(15 * time.Second), ago(15 * time.Second), "gates and cache from /metrics 15s ago, kept 10m"},
	} {
		in := Build("v1.37.2", 37, &MetricsFacts{Gates: map[string]bool{GateWatchList: true}, WatchCache: Yes, Stored: Yes}, "", "configmaps")
		in.GatesReadAt, in.WatchCacheReadAt = c.gates, c.cache
		if s := in.Summary(); !strings.Contains(s, c.want) {
			t.Errorf("Server line %q, want %q", s, c.want)
		}
	}
}

// Fresh user try 22 #2: the list RV went back from 788 to 632 and nothing
// said so. The RV of a consistent list is kept with the facts; one below
// it is another storage's: said, and every server's facts kept with a
// higher RV are dropped (the run's own are then read again).
func TestAnRVGoingBackDropsTheFacts(t *testing.T) {
	cl, reads := factsServer(t)
	now := time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC)
	cache := &Cache{Dir: t.TempDir(), Server: "https://127.0.0.1:40001", Now: func() time.Time { return now }}
	a, b := instance{Cert: "aa", GitVersion: "v1.37.2"}, instance{Cert: "bb", GitVersion: "v1.37.2"}
	read := func(id instance, resource string) *Info {
		return readFacts(context.Background(), cl, id, 37, "", resource, cache)
	}
	if back := cache.SeenRV(read(a, "configmaps"), "788"); back != nil {
		t.Fatalf("the first RV: %+v", back)
	}
	now = now.Add(time.Minute)
	if back := cache.SeenRV(read(a, "configmaps"), "790"); back != nil {
		t.Fatalf("an RV above: %+v", back)
	}
	// The same server, another storage: its own facts go.
	back := cache.SeenRV(read(a, "configmaps"), "632")
	if back == nil || !back.Dropped || back.Before != 788 || back.RV != 632 || back.Ago != time.Minute {
		t.Fatalf("RV 632 after 788 (kept 1m ago): %+v", back)
	}
	if txt := back.Text(); !strings.Contains(txt, "632") || !strings.Contains(txt, "788") || !strings.Contains(txt, "another storage") || !strings.Contains(txt, "read again") {
		t.Errorf("the text: %s", txt)
	}
	before := *reads
	if in := read(a, "configmaps"); in.GatesReadAt != nil || *reads != before+1 {
		t.Errorf("dropped facts were used again")
	}
	cache.SeenRV(read(a, "configmaps"), "632")
	// Another server (another certificate) whose RV is below: said, the
	// first server's facts dropped, its own (just read) kept.
	in := read(b, "configmaps")
	if back := cache.SeenRV(in, "500"); back == nil || back.Dropped || back.Before != 632 {
		t.Fatalf("RV 500 of another server after 632: %+v", back)
	}
	if s := cache.load(a); s != nil {
		t.Errorf("the facts of the server whose RV was above are kept")
	}
	if in := read(b, "configmaps"); in.GatesReadAt == nil {
		t.Errorf("the facts of the server just read are not kept")
	}
	// Another resource's RVs are its own (--etcd-servers-overrides puts
	// events in another etcd, with RVs far below).
	if back := cache.SeenRV(read(b, "events"), "12"); back != nil {
		t.Errorf("events' RV compared with configmaps': %+v", back)
	}
	// A resource not known to be the server's own: its RVs are its server's.
	agg := Build("v1.37.2", 37, &MetricsFacts{Gates: map[string]bool{}, WatchCache: No, Stored: No}, "", "pods.metrics.k8s.io").of(b)
	if back := cache.SeenRV(agg, "1"); back != nil {
		t.Errorf("an aggregated resource's RV was noted: %+v", back)
	}
}

// Adversary try 23 F4: the cache's file was named after the server's
// host, kept as it came but for characters other than letters, digits,
// "_" and "." ("http://.." through a proxy-url wrote
// CACHE_DIR/serverinfo.json, "http://." CACHE_DIR/watchrv/serverinfo.json).
// Whatever the host, the file is in its own directory right below
// CACHE_DIR/watchrv, one per server URL, with a name any file system
// takes.
func TestTheCacheFileOfAnyHostStaysUnderItsDirectory(t *testing.T) {
	hosts := []string{"..", ".", "a/../..", "", "/", "../../../etc", `..\..`, "...", "a" + strings.Repeat("é", 300),
		strings.Repeat("x", 5000), "\x1b[31m..\x00\n", "127.0.0.1:8443", "127.0.0.1_8443", "%2e%2e", "\xff\xfe.."}
	dir := t.TempDir()
	root := filepath.Join(dir, "watchrv")
	seen := map[string]string{}
	for _, host := range hosts {
		for _, scheme := range []string{"http://", "https://"} {
			c := &Cache{Dir: dir, Server: scheme + host}
			p := c.path()
			name := filepath.Base(filepath.Dir(p))
			if filepath.Dir(filepath.Dir(p)) != root || filepath.Clean(p) != p || filepath.Base(p) != "serverinfo.json" ||
				name == "." || name == ".." || strings.ContainsAny(name, `/\`) || len(name) > 255 {
				t.Errorf("server %q: file %q, want serverinfo.json in a directory of its own right below %s", c.Server, p, root)
			}
			for _, r := range name {
				if r < 0x20 || r > 0x7e {
					t.Errorf("server %q: the directory's name %q holds %q", c.Server, name, r)
				}
			}
			if other, ok := seen[p]; ok {
				t.Errorf("servers %q and %q share the file %s", other, c.Server, p)
			}
			seen[p] = c.Server
			c.write(&cacheFile{})
			if _, err := os.Stat(p); err != nil {
				t.Errorf("server %q: the file was not written where path says: %v", c.Server, err)
			}
		}
	}
	// Nothing was written anywhere else.
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Dir(filepath.Dir(p)) != root {
			t.Errorf("a file outside %s/*/: %s", root, p)
		}
		return nil
	})
}
