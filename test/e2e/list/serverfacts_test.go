//go:build e2e

package list

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// Fresh user try 22 #2: the server facts (gates, whether a resource has a
// watch cache) were kept 10 minutes by address and gitVersion, so after
// another server took the address, list said "served by the watch cache"
// and watch "the watch cache holds this watch" of a server that has none
// (storage served the list), and the list RV went back from 788 to 632
// with nothing said. The facts are the facts of one server: its serving
// certificate (free: the TLS handshake has it) and the RV of a consistent
// list seen with them (an RV below it is another storage's). Each command
// runs in a HOME whose facts were filled through the same address by
// another server, and its claims are held to the real server's /metrics:
//
//   - another certificate, the RV going up: the cache-on server after a
//     cache-off one (another server over the same etcd, its own
//     certificate);
//   - the same certificate, the RV going back: a cache-off cluster over
//     another etcd with the first server's certificate (a cluster created
//     anew that kept its certificate), after the cache-on server.
func TestServerFactsAreOfTheServerAtTheAddress(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	on := shared
	onCert := on.APIServers[0].CAFile // the self-signed serving certificate
	onKey := strings.TrimSuffix(onCert, ".crt") + ".key"
	off := framework.StartT(t, framework.APIServerOptions{DisableWatchCache: true,
		Serving: &framework.ServingCert{CAFile: onCert, CertFile: onCert, KeyFile: onKey}})
	other, err := off.AddAPIServer(ctx, framework.APIServerOptions{DisableWatchCache: true})
	if err != nil {
		t.Fatal(err)
	}
	link, err := framework.StartPausableLink(hostPortOf(t, on.APIServers[0].URL))
	if err != nil {
		t.Fatal(err)
	}
	defer link.Close()
	bundle := filepath.Join(t.TempDir(), "both.crt")
	writeBundle(t, bundle, onCert, other.CAFile)
	kc, err := on.WriteKubeconfigFor("facts-link.kubeconfig", "https://"+link.Addr(), bundle, framework.AdminToken)
	if err != nil {
		t.Fatal(err)
	}
	// The cache-on server's RVs are above the other storage's.
	raiseRVAbove(ctx, t, on, off)

	type server struct {
		c     *framework.Cluster
		api   int
		cache bool
	}
	onServer := server{on, 0, true}
	for _, step := range []struct {
		name        string
		before, now server
		rvWentBack  bool
	}{
		{"another certificate", server{off, other.Index, false}, onServer, false},
		{"same certificate, another storage", onServer, server{off, 0, false}, true},
	} {
		t.Run(step.name, func(t *testing.T) {
			if err := link.Retarget(hostPortOf(t, step.before.c.APIServers[step.before.api].URL)); err != nil {
				t.Fatal(err)
			}
			listHome, watchHome := t.TempDir(), t.TempDir()
			for _, home := range []string{listHome, watchHome} {
				if r := framework.RunInHome(t, home, kc, nil, time.Minute, "list", "configmaps", "-n", "default"); r.Code != 0 {
					t.Fatalf("filling the facts through %s: exit %d: %s", link.Addr(), r.Code, r.Stderr)
				}
			}
			if err := link.Retarget(hostPortOf(t, step.now.c.APIServers[step.now.api].URL)); err != nil {
				t.Fatal(err)
			}
			if step.now.cache != hasWatchCache(t, step.now.c, step.now.api, "", "configmaps") {
				t.Fatalf("the server now at the address: watch cache of configmaps %v on /metrics, want %v", !step.now.cache, step.now.cache)
			}

			// list: who served it, held to the server's list counters.
			etcd0, cache0 := listCounts(t, step.now.c, step.now.api)
			r := framework.RunInHome(t, listHome, kc, nil, time.Minute, "list", "configmaps", "-n", "default", "-o", "json")
			etcd1, cache1 := listCounts(t, step.now.c, step.now.api)
			var got struct {
				ResourceVersion string `json:"resourceVersion"`
				ServedBy        struct {
					FirstPageFrom string `json:"firstPageFrom"`
				} `json:"servedBy"`
			}
			if err := json.Unmarshal([]byte(r.Stdout), &got); err != nil || r.Code != 0 {
				t.Fatalf("list: exit %d (%v): %s", r.Code, err, r.Stderr)
			}
			truth := "storage"
			if cache1-cache0 >= 1 && etcd1 == etcd0 {
				truth = "watch cache"
			} else if etcd1-etcd0 < 1 || cache1 != cache0 {
				t.Fatalf("the server's list counters moved etcd %g, watchcache %g: neither alone", etcd1-etcd0, cache1-cache0)
			}
			if got.ServedBy.FirstPageFrom != truth {
				t.Errorf("list at RV %s says served by %q, the server's counters say %s (etcd +%g, watchcache +%g)", got.ResourceVersion, got.ServedBy.FirstPageFrom, truth, etcd1-etcd0, cache1-cache0)
			}
			t.Logf("list through %s, RV %s: %s", link.Addr(), got.ResourceVersion, r.Stderr)
			said := strings.Contains(r.Stderr, "another storage answers at this address")
			if said != step.rvWentBack {
				t.Errorf("list: the RV going back said %v, want %v: %s", said, step.rvWentBack, r.Stderr)
			}

			// watch from an RV ahead: who holds it, held to /metrics.
			w := framework.RunInHome(t, watchHome, kc, nil, time.Minute, "watch", "configmaps", "-n", "default", "--rv", "99999999", "--timeout", "2s")
			want, wrong := "this resource has no watch cache here, so storage serves the watch", "the watch cache holds this watch"
			if step.now.cache {
				want, wrong = wrong, want
			}
			if !strings.Contains(w.Stderr, want) || strings.Contains(w.Stderr, wrong) {
				t.Errorf("watch --rv 99999999 on a server whose watch cache of configmaps is %v: want %q, not %q:\n%s", step.now.cache, want, wrong, w.Stderr)
			}
		})
	}
}

// Fresh user try 22 #9: list of a CRD said "watch cache for
// widgets.example.com: on", probe seconds later that its cache was "not
// known to be this API server" (it read no facts, and ignored list's).
// Every command that names who serves decides from the same facts: kept
// by list, or read as list reads them. Held to the server's /metrics.
func TestEveryCommandNamesTheServerOfACustomResourceAsListDoes(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := shared.CreateWidgetCRD(ctx); err != nil {
		t.Fatal(err)
	}
	_, ns := newNamespace(t, shared, "facts-crd")
	for i := 0; i < 3; i++ {
		if err := shared.CreateWidget(ctx, ns, fmt.Sprintf("w-%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if !hasWatchCache(t, shared, 0, "example.com", "widgets") {
		t.Fatalf("the server's /metrics has no watch cache of widgets")
	}
	listHome := t.TempDir()
	if l := framework.RunInHome(t, listHome, shared.Kubeconfig, nil, time.Minute, "list", "widgets", "-n", ns); l.Code != 0 || !strings.Contains(l.Stdout, "watch cache for widgets.example.com: on") {
		t.Fatalf("list: exit %d:\n%s%s", l.Code, l.Stdout, l.Stderr)
	}
	host := hostPortOf(t, shared.APIServers[0].URL)
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"probe", []string{"probe", "widgets", "-n", ns}, "the watch cache of this API server"},
		{"probe --endpoints", []string{"probe", "widgets", "-n", ns, "--endpoints", host}, ""},
		{"list --endpoints", []string{"list", "widgets", "-n", ns, "--endpoints", host}, ""},
	} {
		for _, home := range []struct{ name, dir string }{{"facts kept by list", listHome}, {"no facts kept", t.TempDir()}} {
			t.Run(c.name+"/"+home.name, func(t *testing.T) {
				r := framework.RunInHome(t, home.dir, shared.Kubeconfig, nil, time.Minute, c.args...)
				out := r.Stdout + r.Stderr
				if r.Code != 0 || strings.Contains(out, "not known to be this API server") || !strings.Contains(out, c.want) {
					t.Errorf("exit %d: the server's /metrics shows its watch cache of widgets; want %q and never \"not known to be this API server\":\n%s", r.Code, c.want, out)
				}
			})
		}
	}
}

// Fresh user try 22 #10: the Server line gave one age, the oldest kept
// fact's, to the gates and to a watch-cache fact read seconds before. Each
// fact keeps the time it was read: a read for another resource reads the
// gates again, and the first resource's fact keeps its own time.
func TestEachServerFactKeepsTheTimeItWasRead(t *testing.T) {
	home := t.TempDir()
	type window struct{ from, to time.Time }
	run := func(args ...string) (window, framework.Result) {
		from := time.Now()
		r := framework.RunInHome(t, home, shared.Kubeconfig, nil, time.Minute, args...)
		if r.Code != 0 {
			t.Fatalf("%v: exit %d: %s", args, r.Code, r.Stderr)
		}
		return window{from, time.Now()}, r
	}
	cmRead, _ := run("list", "configmaps", "-n", "default")
	time.Sleep(3 * time.Second)
	eventsRead, _ := run("list", "events", "-A")
	in := func(at *time.Time, w window) bool { return at != nil && !at.Before(w.from) && !at.After(w.to) }
	for _, c := range []struct {
		resource   string
		cacheRead  window
		wantInLine string // a regular expression
	}{
		// One age where both were read at once; else each its own
		// (the cache's at least the 3 s between the reads older).
		{"events", eventsRead, `gates and cache from /metrics \d+s ago, kept 10m`},
		{"configmaps", cmRead, `gates from /metrics (\d+)s ago and cache (\d+)s ago, kept 10m`},
	} {
		_, r := run("list", c.resource, "-A", "-o", "json")
		var got struct {
			Server struct {
				GatesReadAt      *time.Time `json:"gatesReadAt"`
				WatchCacheReadAt *time.Time `json:"watchCacheReadAt"`
			} `json:"server"`
		}
		if err := json.Unmarshal([]byte(r.Stdout), &got); err != nil {
			t.Fatalf("list %s: %v: %s", c.resource, err, r.Stdout)
		}
		if !in(got.Server.GatesReadAt, eventsRead) || !in(got.Server.WatchCacheReadAt, c.cacheRead) {
			t.Errorf("list %s: gates read at %v (the events read was %v to %v), its watch cache at %v (its read was %v to %v)", c.resource,
				got.Server.GatesReadAt, eventsRead.from, eventsRead.to, got.Server.WatchCacheReadAt, c.cacheRead.from, c.cacheRead.to)
		}
		_, h := run("list", c.resource, "-A")
		m := regexp.MustCompile(c.wantInLine).FindStringSubmatch(h.Stdout)
		if m == nil {
			t.Errorf("list %s: the Server line does not match %q:\n%s", c.resource, c.wantInLine, h.Stdout)
		} else if len(m) == 3 && atoi(m[2]) < atoi(m[1])+2 {
			t.Errorf("list %s: the cache fact, read 3 s before the gates, is said %ss old and the gates %ss", c.resource, m[2], m[1])
		}
	}
}

func hostPortOf(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// writeBundle writes the certificates of files into one CA file.
func writeBundle(t *testing.T, path string, files ...string) {
	t.Helper()
	var all []byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	if err := os.WriteFile(path, all, 0o600); err != nil {
		t.Fatal(err)
	}
}

// raiseRVAbove writes configmaps to c until its storage's revision is well
// above low's.
func raiseRVAbove(ctx context.Context, t *testing.T, c, low *framework.Cluster) {
	t.Helper()
	cs, ns := newNamespace(t, c, "facts-rv")
	for i := 0; ; i++ {
		hi, err := c.EtcdRevision(ctx)
		if err != nil {
			t.Fatal(err)
		}
		lo, err := low.EtcdRevision(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if hi > lo+100 {
			return
		}
		if i > 5000 {
			t.Fatalf("revision %d still not above %d", hi, lo)
		}
		for j := 0; j < 50; j++ {
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "rv-"}}
			if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// metricsLines is the server's /metrics as top asks for it, line by line.
func metricsLines(t *testing.T, c *framework.Cluster, api int) []string {
	t.Helper()
	m, err := c.TopMetrics(context.Background(), api)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(m, "\n")
}

// hasWatchCache: the server's /metrics has a watch_cache_capacity series
// of group/resource.
func hasWatchCache(t *testing.T, c *framework.Cluster, api int, group, resource string) bool {
	t.Helper()
	for _, l := range metricsLines(t, c, api) {
		if strings.HasPrefix(l, "watch_cache_capacity{") && strings.Contains(l, `group="`+group+`"`) && strings.Contains(l, `resource="`+resource+`"`) {
			return true
		}
	}
	return false
}

// listCounts is the server's apiserver_storage_list_total of configmaps,
// from etcd and from the watch cache.
func listCounts(t *testing.T, c *framework.Cluster, api int) (etcd, cache float64) {
	t.Helper()
	for _, l := range metricsLines(t, c, api) {
		if !strings.HasPrefix(l, "apiserver_storage_list_total{") || !strings.Contains(l, `resource="configmaps"`) {
			continue
		}
		var v float64
		if _, err := fmt.Sscanf(l[strings.LastIndexByte(l, ' ')+1:], "%g", &v); err != nil {
			continue
		}
		if strings.Contains(l, `storage="watchcache"`) {
			cache += v
		} else {
			etcd += v
		}
	}
	return etcd, cache
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
