//go:build e2e

package matrix

import (
	"context"
	"encoding/json"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// checkCacheRVRead (fresh user try 22 F5): the per-server view's cache RV
// read (an rv=0 list, which a watch cache answers whole whatever its
// limit) costs one key, not the collection, on every cell, through every
// command that reads it, for a namespace, every namespace (-A) and a
// cluster-scoped resource; and it returns what the list of the collection
// at rv=0 returns, read back to back on the quiet cell:
//   - each run's rv=0 reads (one per resource) read under cacheRVReadMax
//     (the list of the collection: ~120 KiB here with the watch cache on);
//   - with the watch cache off, no list of a list or probe run reads more
//     than one object from storage (a list narrowed by name but with no
//     namespace reads every object of the cluster to find it);
//   - the CACHE RV shown is the RV of the collection's rv=0 list read just
//     before and just after the run when those two agree, and between
//     them always.
var checkCacheRVRead = claimCheck{"cache-rv-read", func(t *testing.T, cell framework.Cell, c *framework.Cluster) {
	cs, ns := framework.Namespace(t, c, "cache-rv-read")
	fillNamespace(t, cs.CoreV1().ConfigMaps(ns), cacheRVObjects)
	s := newServer(t, c)
	addr := strings.TrimPrefix(c.APIServers[0].URL, "https://")
	const tooLarge = "Timeout: Too large resource version: 999999999, current: 100"
	for _, k := range []struct {
		name, resource, path string
		args                 []string
		// rv finds the CACHE RV in the run's JSON (nil: not compared).
		rv func([]byte) (uint64, bool)
		// quick: the run takes well under the ~10 s between the cell's
		// own writes (lease renewals), so that some run sees the
		// collection's RV unmoved, and sends lists of one item at most;
		// explain-error --check waits ~3 s on each of its two lists of a
		// future RV (a watch cache waits for it) and sends more: its CACHE
		// RV is held to the bracket only.
		quick bool
	}{
		{"list -n", "configmaps", "/api/v1/namespaces/" + ns + "/configmaps", []string{"list", "configmaps", "-n", ns}, serversCacheRV, true},
		{"list -A", "configmaps", "/api/v1/configmaps", []string{"list", "configmaps", "-A"}, serversCacheRV, true},
		{"list cluster-scoped", "clusterroles", "/apis/rbac.authorization.k8s.io/v1/clusterroles", []string{"list", "clusterroles"}, serversCacheRV, true},
		{"probe -n", "configmaps", "/api/v1/namespaces/" + ns + "/configmaps", []string{"probe", "configmaps", "-n", ns}, serversCacheRV, true},
		{"probe -A", "configmaps", "/api/v1/configmaps", []string{"probe", "configmaps", "-A"}, serversCacheRV, true},
		{"explain-error --check", "configmaps", "/api/v1/namespaces/" + ns + "/configmaps", []string{"explain-error", "--check", "-n", ns, "--resource", "configmaps", tooLarge}, explainCacheRV, false},
		{"probe --all", "", "", []string{"probe", "--all", "--qps", "100"}, nil, false},
	} {
		if k.args[1] == "--all" && !cell.WatchCache {
			// Without a watch cache, every resource's watch from RV 1
			// makes etcd replay its whole history (70 s a cell under make
			// test); the rv=0 read probe --all sends per resource is
			// probe's, checked above on this cell, and probe --all's is
			// checked on every cell with a watch cache.
			continue
		}
		t.Run(k.name, func(t *testing.T) {
			args := append(append([]string{}, k.args...), "--endpoints", addr, "-o", "json", "-v")
			for try := 1; ; try++ {
				var before uint64
				if k.rv != nil {
					before, _ = s.list(k.path, url.Values{"limit": {"1"}, "resourceVersion": {"0"}})
				}
				m0 := s.metrics()
				r := framework.Run(t, c.Kubeconfig, 2*time.Minute, args...)
				m1 := s.metrics()
				if r.Code != 0 && !(k.args[0] == "explain-error" && r.Code == 10) {
					t.Fatalf("exit %d:\n%s", r.Code, r.Stderr)
				}
				reads := rv0Reads(r.Stderr, addr)
				if len(reads) == 0 {
					t.Fatalf("no rv=0 list in -v:\n%s", r.Stderr)
				}
				for u, n := range reads {
					if n > cacheRVReadMax {
						t.Errorf("%s read %.0f bytes, want under %d: the cache RV read costs the collection", u, n, cacheRVReadMax)
					}
				}
				if k.quick && !cell.WatchCache {
					// Every list of the run reads one object at most:
					// its consistent list and a probe's exact lists
					// have a limit of 1, the cache RV read one key.
					fetched := metricSum(m1, "apiserver_storage_list_fetched_objects_total", k.resource) - metricSum(m0, "apiserver_storage_list_fetched_objects_total", k.resource)
					if lists := listsFromStorage(m1, k.resource) - listsFromStorage(m0, k.resource); fetched > lists {
						t.Errorf("the run's %v storage lists read %v %s, want one each at most (a list of one item, the cache RV read of one key)", lists, fetched, k.resource)
					}
				}
				if k.rv == nil {
					return
				}
				after, _ := s.list(k.path, url.Values{"limit": {"1"}, "resourceVersion": {"0"}})
				got, ok := k.rv([]byte(r.Stdout))
				switch {
				case !ok:
					t.Fatalf("no CACHE RV in the JSON:\n%s", r.Stdout)
				case got < before || got > after:
					t.Fatalf("CACHE RV %d, the collection's rv=0 list said %d before and %d after", got, before, after)
				case before == after:
					t.Logf("CACHE RV %d, the collection's rv=0 list's %d before and after (try %d); rv=0 reads %v", got, before, try, reads)
					return
				case !k.quick:
					t.Logf("CACHE RV %d, the collection's rv=0 list's %d before and %d after; rv=0 reads %v", got, before, after, reads)
					return
				case try == 10:
					// A loaded machine (make test runs the cells side by
					// side) stretches a run past the server's own writes
					// (its lease, kine's compaction; on a cell without a
					// watch cache the collection's RV is the store's, which
					// every write anywhere moves): 10 tries were seen to
					// move on v1.37/kine/cache-off. The bracket held on
					// each; the equality could not be tried.
					t.Logf("CACHE RV within the collection's RV before and after on each of 10 runs, which all moved (the last: %d to %d): the cell was never quiet enough to check equality", before, after)
					return
				}
			}
		})
	}
}}

// cacheRVObjects is how many configmaps the namespace holds; cacheRVReadMax
// what one rv=0 read of the per-server view may read (an answer with no
// object is about 100 bytes; one object under 1 KiB).
const (
	cacheRVObjects = 300
	cacheRVReadMax = 4 << 10
)

// fillNamespace creates n configmaps of 1 KB each through client.
func fillNamespace(t *testing.T, client interface {
	Create(context.Context, *corev1.ConfigMap, metav1.CreateOptions) (*corev1.ConfigMap, error)
}, n int) {
	t.Helper()
	data := strings.Repeat("x", 1000)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 4 {
				cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm-" + strconv.Itoa(i)}, Data: map[string]string{"d": data}}
				if _, err := client.Create(context.Background(), cm, metav1.CreateOptions{}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// rv0Line is a -v line of a list at resourceVersion=0 that the server
// answered, with the bytes read.
var rv0Line = regexp.MustCompile(`^-v GET (https://\S+) 200 OK in \S+, ([0-9.]+) (B|KiB|MiB|GiB) read`)

// rv0Reads are the run's rv=0 lists of a collection on addr (the
// per-server view's discovery, an EndpointSlice or lease list, is not
// one: it is sent to the kubeconfig's server), with the bytes each read.
func rv0Reads(stderr, addr string) map[string]float64 {
	out := map[string]float64{}
	for _, line := range strings.Split(stderr, "\n") {
		m := rv0Line.FindStringSubmatch(line)
		if m == nil || !strings.Contains(m[1], "resourceVersion=0") || !strings.HasPrefix(m[1], "https://"+addr+"/") || strings.Contains(m[1], "/leases?") {
			continue
		}
		n, _ := strconv.ParseFloat(m[2], 64)
		out[m[1]] = n * map[string]float64{"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}[m[3]]
	}
	return out
}

// serversCacheRV is the CACHE RV of the one server of list's or probe's
// -o json.
func serversCacheRV(b []byte) (uint64, bool) {
	var doc struct {
		Servers []struct {
			CacheRV    uint64 `json:"cacheResourceVersion,string"`
			CacheKnown bool   `json:"cacheKnown"`
		} `json:"servers"`
	}
	if json.Unmarshal(b, &doc) != nil || len(doc.Servers) != 1 || !doc.Servers[0].CacheKnown {
		return 0, false
	}
	return doc.Servers[0].CacheRV, true
}

// explainCacheRV is the CACHE RV of the one server of explain-error
// --check's -o json.
func explainCacheRV(b []byte) (uint64, bool) {
	var doc struct {
		Servers struct {
			Servers []struct {
				CacheRV    uint64 `json:"cacheResourceVersion,string"`
				CacheKnown bool   `json:"cacheKnown"`
			} `json:"servers"`
		} `json:"servers"`
	}
	if json.Unmarshal(b, &doc) != nil || len(doc.Servers.Servers) != 1 || !doc.Servers.Servers[0].CacheKnown {
		return 0, false
	}
	return doc.Servers.Servers[0].CacheRV, true
}
