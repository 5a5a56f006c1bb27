//go:build e2e

// Package explain checks, on the cells of the server matrix where their
// truth depends on the watch cache and the storage, the sentences of
// explain-error that name who serves what: against the server's own 410
// and against its list counters (/metrics), as the matrix oracle checks
// numbers.
package explain

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// cells are where the words differ: the cache off over etcd on three
// releases and over kine, the cache on where consistent reads come from it
// (v1.37) and where they do not (v1.30: ConsistentListFromCache off).
var cells = []string{
	"v1.37/etcd/cache-off", "v1.37/kine/cache-off", "v1.33/etcd/cache-off", "v1.35/etcd/cache-off",
	"v1.37/etcd/cache-on", "v1.30/etcd/cache-on",
}

// cacheServes finds a clause that has the watch cache serve a request.
var cacheServes = regexp.MustCompile(`(served|read) (from|by) the watch cache[^;.)]*`)

// explanation is the part of "explain-error -o json" checked here.
type explanation struct {
	Kind       string   `json:"kind"`
	Confidence string   `json:"confidence"`
	Notes      []string `json:"notes"`
	Summary    string   `json:"summary"`
	What       string   `json:"what"`
	Why        string   `json:"why"`
	ClientGo   string   `json:"clientGo"`
	Fix        string   `json:"fix"`
	Check      *struct {
		Verdict  string `json:"verdict"`
		ServedBy string `json:"servedBy"`
	} `json:"check"`
	// Servers is explain-error --check --endpoints's own part.
	Servers *struct {
		Servers []struct {
			Endpoint   string `json:"endpoint"`
			WatchCache string `json:"watchCache"`
		} `json:"servers"`
		Findings []string `json:"findings"`
	} `json:"servers"`
}

func explain(t *testing.T, c *framework.Cluster, stdin []byte, args ...string) explanation {
	t.Helper()
	r := framework.RunInput(t, c.Kubeconfig, stdin, 2*time.Minute, append([]string{"explain-error", "-o", "json"}, args...)...)
	var e explanation
	if err := json.Unmarshal([]byte(r.Stdout), &e); err != nil {
		t.Fatalf("explain-error %v: exit %d, not JSON (%v): %s %s", args, r.Code, err, r.Stdout, r.Stderr)
	}
	return e
}

// consistentReadsFromCache counts the consistent reads of configmaps the
// watch cache served (0 where the counter does not exist: no cache, or a
// release before it).
func consistentReadsFromCache(t *testing.T, c *framework.Cluster) float64 {
	t.Helper()
	hc, err := rest.HTTPClientFor(c.RESTConfig(0))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := hc.Get(c.RESTConfig(0).Host + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/metrics: %s", resp.Status)
	}
	var sum float64
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "apiserver_watch_cache_consistent_read_total{") && strings.Contains(line, `resource="configmaps"`) && strings.Contains(line, `success="true"`) {
			f := strings.Fields(line)
			v, _ := strconv.ParseFloat(f[len(f)-1], 64)
			sum += v
		}
	}
	return sum
}

// TestWhoServesWhatOnEveryCell: H42 and H43 of issue 25.
//
// H42: with the cache off, the server's own 410 to a watch from a
// compacted RV ("The resourceVersion for the provided watch is too old.")
// was explained as "the watch cache is not serving this watch" and, in the
// same answer, with a relist "served from the watch cache". No paragraph
// may now have the watch cache serve anything there.
//
// H43: --check on a TooLarge RV said its current RV was "a consistent read,
// straight from etcd". It names who served that read from the server's
// facts; the server's counter of consistent reads the watch cache served
// says whether that is true.
func TestWhoServesWhatOnEveryCell(t *testing.T) {
	for _, name := range cells {
		t.Run(name, func(t *testing.T) {
			cell, err := framework.ParseCell(name)
			if err != nil {
				t.Fatal(err)
			}
			c := framework.StartCell(t, name)
			ctx := context.Background()
			cs, ns := framework.Namespace(t, c, "explain")
			w := framework.ConfigMapWriter{T: t, Clientset: cs, Namespace: ns}
			start := framework.RVNum(t, w.Create("a", nil).ResourceVersion)
			if !cell.WatchCache {
				// Past the compaction: etcd compacts at once; kine keeps
				// the last 1,000 revisions whoever asks.
				writes := 3
				if cell.Storage == "kine" {
					writes = 1050
				}
				if err := framework.CreateConfigMaps(ctx, cs, ns, "fill", writes, 8, 8); err != nil {
					t.Fatal(err)
				}
				cur, err := c.EtcdRevision(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if err := c.Compact(ctx, cur); err != nil {
					t.Fatal(err)
				}
				wr := framework.Run(t, c.Kubeconfig, time.Minute, "watch", "configmaps", "-n", ns, "--rv", strconv.FormatUint(start, 10), "--timeout", "10s")
				if !strings.Contains(wr.Stdout+wr.Stderr, "The resourceVersion for the provided watch is too old") {
					t.Fatalf("want the server's 410 from storage, got exit %d: %s%s", wr.Code, wr.Stdout, wr.Stderr)
				}
				e := explain(t, c, []byte(wr.Stdout+wr.Stderr))
				if e.Kind != "EtcdCompactedWatch" {
					t.Fatalf("kind %s, want EtcdCompactedWatch: %+v", e.Kind, e)
				}
				for field, text := range map[string]string{"summary": e.Summary, "what": e.What, "why": e.Why, "clientGo": e.ClientGo, "fix": e.Fix} {
					if m := cacheServes.FindString(text); m != "" {
						t.Errorf("cache off, %s says %q: %s", field, m, text)
					}
				}
				if !strings.Contains(e.ClientGo, "no watch cache") {
					t.Errorf("the relist's server is not named from the fact: %s", e.ClientGo)
				}
				// The watch cache's wording of the same 410, checked here:
				// the request tried now is refused by storage, so the
				// text's "from the watch cache" is not kept at high
				// confidence.
				wc := explain(t, c, nil, "--check", "--resource", "configmaps", "-n", ns, fmt.Sprintf("too old resource version: %d (%d)", start, start+2))
				// And the server's /metrics shows no watch cache for it
				// (a fresh user: "high", blaming a cache the server lacks).
				if !strings.Contains(strings.Join(wc.Notes, "\n"), "this server has no watch cache for configmaps now") {
					t.Errorf("cache off, the watch cache's 410 --check does not say the server has no watch cache: %q", wc.Notes)
				}
				if wc.Kind != "WatchCacheWindow" || wc.Confidence != "low" || !strings.Contains(strings.Join(wc.Notes, "\n"), "is refused by this server as EtcdCompactedWatch") {
					t.Errorf("cache off, the watch cache's 410 --check: kind %s, confidence %s, notes %q: want low, with storage's refusal named", wc.Kind, wc.Confidence, wc.Notes)
				}
			}
			cur, err := c.EtcdRevision(ctx)
			if err != nil {
				t.Fatal(err)
			}
			// TooLarge's why: a watch from a too-new RV is held silently
			// where the watch cache or etcd serves it; kine without a watch
			// cache ends it at once.
			fw := framework.Run(t, c.Kubeconfig, time.Minute, "watch", "configmaps", "-n", ns, "--rv", strconv.FormatInt(cur+100000, 10), "--timeout", "6s")
			t.Logf("watch from a too-new RV: %s, exit %d", fw.Duration.Round(time.Millisecond), fw.Code)
			switch {
			case (cell.WatchCache || cell.Storage == "etcd") && fw.Duration < 5*time.Second:
				t.Errorf("the watch cache or etcd should hold a watch from a too-new RV: it ended after %s: %s", fw.Duration, fw.Stderr)
			case cell.Storage == "kine" && fw.Duration > 5*time.Second:
				t.Errorf("kine without a watch cache should end a watch from a too-new RV at once: it took %s", fw.Duration)
			}
			before := consistentReadsFromCache(t, c)
			e := explain(t, c, nil, "--check", "--resource", "configmaps", "-n", ns, fmt.Sprintf("Timeout: Too large resource version: %d, current: %d", cur+100000, cur))
			served := consistentReadsFromCache(t, c) - before
			if e.Check == nil {
				t.Fatalf("no check: %+v", e)
			}
			t.Logf("consistent reads from the watch cache +%v; verdict: %s", served, e.Check.Verdict)
			byCache := strings.Contains(e.Check.ServedBy, "served by the watch cache")
			switch {
			case strings.Contains(e.Check.Verdict, "straight from etcd"):
				t.Errorf("the verdict names etcd: %s", e.Check.Verdict)
			case byCache != (served > 0):
				t.Errorf("the verdict says %q, and the watch cache served %v consistent read(s)", e.Check.ServedBy, served)
			case !byCache && !strings.Contains(e.Check.ServedBy, "served by storage (etcd, or a shim such as kine)"):
				t.Errorf("storage served it, and the verdict says %q", e.Check.ServedBy)
			}
		})
	}
}
