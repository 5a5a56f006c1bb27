//go:build e2e

package ha

import (
	"net"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// The per-server view of servers given by hand (fresh user try 22 F5):
// the EndpointSlices are not read, the identity leases are (one request:
// 3 servers cost 3 x their own + 1, docs/ha.md and docs/performance.md
// said 9 for 10), and each server's cache RV read is one narrowed rv=0
// list that reads one key, not the namespace's 200 configmaps, each
// server's own audit log showing exactly that one request.
func TestServersGivenByHandCostOneLeaseList(t *testing.T) {
	h := shared
	ns := "srv-by-hand"
	prepareNamespace(t, ns, 200)
	var eps []string
	for i := range h.Cluster.APIServers {
		eps = append(eps, net.JoinHostPort("127.0.0."+strconv.Itoa(i+1), strconv.Itoa(h.Port)))
	}
	// list: the consistent list and the cache RV read per server; probe:
	// those and its window search (3 on a fresh harness, more once a
	// window has moved: at least 3).
	for _, c := range []struct {
		cmd       string
		perServer int
		exact     bool
	}{{"list", 2, true}, {"probe", 3, false}} {
		t.Run(c.cmd, func(t *testing.T) {
			before := cacheRVAudit(t, ns)
			r := framework.Run(t, h.DirectKubeconfig(0), time.Minute, c.cmd, "configmaps", "-n", ns, "--endpoints", strings.Join(eps, ","), "-o", "json", "-v")
			if r.Code != 0 {
				t.Fatalf("exit %d: %s", r.Code, r.Stderr)
			}
			rep := decodeServers(t, r)
			sum := 0
			for i, s := range rep.Servers {
				sum += s.Requests
				if s.Requests < c.perServer || (c.exact && s.Requests != c.perServer) || !s.CacheKnown {
					t.Errorf("server %d: %d requests (want %d), cache RV known %v", i, s.Requests, c.perServer, s.CacheKnown)
				}
			}
			leases, slices := strings.Count(r.Stderr, "/leases?"), strings.Count(r.Stderr, "/endpointslices")
			if rep.Discovery.Requests != 1 || rep.Requests != sum+1 || leases != 1 || slices != 0 {
				t.Errorf("requests %d, discovery %d, servers %d; -v: %d lease lists, %d EndpointSlice lists: want the servers' + 1, the identity leases", rep.Requests, rep.Discovery.Requests, sum, leases, slices)
			}
			t.Logf("%s of 3 servers given by hand: %d requests (%d the servers', %d discovery)", c.cmd, rep.Requests, sum, rep.Discovery.Requests)
			for i, ep := range eps {
				reads := 0
				for _, m := range rv0Read.FindAllStringSubmatch(r.Stderr, -1) {
					if !strings.HasPrefix(m[1], "https://"+ep+"/") {
						continue
					}
					reads++
					if m[3] != "B" {
						t.Errorf("server %d: its rv=0 list read %s %s, want under 1 KiB (one key, not the collection): %s", i, m[2], m[3], m[1])
					}
				}
				if reads != 1 {
					t.Errorf("server %d: %d rv=0 lists in -v, want its one cache RV read:\n%s", i, reads, r.Stderr)
				}
			}
			var after []int
			for try := 0; try < 50; try++ {
				if after = cacheRVAudit(t, ns); sumInts(after)-sumInts(before) >= 3 {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			for i := range after {
				if after[i]-before[i] != 1 {
					t.Errorf("server %d: %d narrowed rv=0 lists by its audit log, want 1 (before %v, after %v)", i, after[i]-before[i], before, after)
				}
			}
		})
	}
}

// rv0Read is a -v line of an rv=0 list of configmaps, its URL and the
// bytes it read.
var rv0Read = regexp.MustCompile(`(?m)^-v GET (https://\S+/configmaps\?\S*resourceVersion=0\S*) 200 OK in \S+, ([0-9.]+) (B|KiB|MiB|GiB) read`)

// cacheRVAudit counts, per server, the plugin's completed cache RV reads
// of the configmaps of ns: rv=0 lists narrowed to one name.
func cacheRVAudit(t *testing.T, ns string) []int {
	t.Helper()
	out := make([]int, len(shared.Cluster.APIServers))
	for i, a := range shared.Cluster.APIServers {
		for _, e := range framework.ReadAudit(t, a.AuditLog) {
			if e.UserAgent == pluginUA && e.Stage == "ResponseComplete" && strings.Contains(e.RequestURI, "/namespaces/"+ns+"/configmaps?") &&
				strings.Contains(e.RequestURI, "resourceVersion=0") && strings.Contains(e.RequestURI, "fieldSelector=metadata.name%3Dwatchrv.cache-rv.") {
				out[i]++
			}
		}
	}
	return out
}

func sumInts(v []int) int {
	n := 0
	for _, x := range v {
		n += x
	}
	return n
}
