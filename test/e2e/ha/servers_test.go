//go:build e2e

package ha

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/internal/text"

	"k8s.io/client-go/rest"

	"github.com/watchrv/kubectl-watchrv/pkg/render"
	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

const pluginUA = "kubectl-watchrv/" + framework.PluginVersion

// rawRV sends one GET of configmaps in ns to server i (directly, a plain
// http.Client: no retry) with query q and returns metadata.resourceVersion.
func rawRV(t *testing.T, i int, ns, q string) uint64 {
	t.Helper()
	code, body := rawGet(t, i, fmt.Sprintf("/api/v1/namespaces/%s/configmaps?%s", ns, q))
	if code != http.StatusOK {
		t.Fatalf("server %d: %s: HTTP %d %s", i, q, code, body)
	}
	var l struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal([]byte(body), &l); err != nil {
		t.Fatal(err)
	}
	n, err := strconv.ParseUint(l.Metadata.ResourceVersion, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func rawGet(t *testing.T, i int, path string) (int, string) {
	t.Helper()
	cfg := shared.Cluster.RESTConfig(i)
	cfg.UserAgent = "watchrv-ha-raw"
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := hc.Get(cfg.Host + path)
	if err != nil {
		t.Fatalf("server %d: GET %s: %v", i, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// rawWatchFirst opens a watch from rv on server i and returns the HTTP
// code and the first line (an event) read within 2 s ("" when silent).
func rawWatchFirst(t *testing.T, i int, ns string, rv uint64) string {
	t.Helper()
	cfg := shared.Cluster.RESTConfig(i)
	cfg.UserAgent = "watchrv-ha-raw"
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/api/v1/namespaces/%s/configmaps?watch=1&resourceVersion=%d", cfg.Host, ns, rv), nil)
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("server %d: watch from %d: %v", i, rv, err)
	}
	defer resp.Body.Close()
	buf := make([]byte, 4096)
	n, _ := resp.Body.Read(buf)
	return strconv.Itoa(resp.StatusCode) + " " + string(buf[:n])
}

func decodeServers(t *testing.T, r framework.Result) render.ServersReport {
	t.Helper()
	var rep render.ServersReport
	if err := json.Unmarshal([]byte(r.Stdout), &rep); err != nil {
		t.Fatalf("decoding -o json (exit %d, stderr %s): %v\n%s", r.Code, r.Stderr, err, r.Stdout)
	}
	return rep
}

func prepareNamespace(t *testing.T, ns string, n int) int64 {
	t.Helper()
	ctx := context.Background()
	cs, err := shared.Cluster.Clientset(0)
	if err != nil {
		t.Fatal(err)
	}
	if err := framework.CreateNamespace(ctx, cs, ns); err != nil {
		t.Fatal(err)
	}
	var last int64
	for k := 0; k < n; k++ {
		last = createConfigMap(t, ctx, 0, ns, fmt.Sprintf("cm-%d", k))
	}
	for i := range shared.Cluster.APIServers {
		if _, err := shared.WaitConfigMapCacheRV(ctx, i, ns, last, 30*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	return last
}

// The per-server view through the balancer finds the three servers in the
// EndpointSlices, reaches each one through the proxy at its advertised
// address, and reports what raw requests to each server report: the
// current RV (bracketed by raw consistent lists before and after), the
// cache RV and lag, and an oldest RV that a raw watch confirms (it starts
// there; one below, it gets 410). Each server's configmaps requests in its
// own audit log are exactly the requests the plugin reported for it.
func TestServersProbeMatchesRawRequests(t *testing.T) {
	h := shared
	ns := "srv-exact"
	prepareNamespace(t, ns, 5)
	before := rawRV(t, 0, ns, "limit=1")
	auditBefore := configMapAudit(t, ns)
	r := framework.Run(t, h.Kubeconfig, 2*time.Minute, "probe", "configmaps", "-n", ns, "--servers", "-o", "json")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	rep := decodeServers(t, r)
	after := rawRV(t, 0, ns, "limit=1")
	if rep.Discovery.From != "endpointslice" || strings.Join(rep.Discovery.Endpoints, ",") != strings.Join(h.EndpointAddrs(), ",") {
		t.Fatalf("discovery = %+v, want %v from the EndpointSlices", rep.Discovery, h.EndpointAddrs())
	}
	if len(rep.Servers) != 3 || rep.Verdict.Answered != 3 {
		t.Fatalf("want 3 answering servers, got %+v", rep.Verdict)
	}
	for i, s := range rep.Servers {
		if s.Endpoint != h.EndpointAddr(i) || s.Error != "" {
			t.Fatalf("server %d: %+v", i, s)
		}
		if s.CurrentRV < before || s.CurrentRV > after {
			t.Errorf("server %d: current RV %d outside the raw consistent lists [%d, %d]", i, s.CurrentRV, before, after)
		}
		cache := rawRV(t, i, ns, "resourceVersion=0&limit=1")
		if s.CacheRV > cache || (before == after && s.CacheRV != cache) {
			t.Errorf("server %d: cache RV %d, a raw rv=0 list after it says %d (current %d..%d)", i, s.CacheRV, cache, before, after)
		}
		if !s.LagKnown || s.Lag != s.CurrentRV-min(s.CurrentRV, s.CacheRV) || s.Lag > after-before {
			t.Errorf("server %d: lag %d (known %v), current %d, cache %d: a server that follows etcd lags by no more than the writes during the run (%d)", i, s.Lag, s.LagKnown, s.CurrentRV, s.CacheRV, after-before)
		}
		if !s.WindowKnown || s.Width != s.CurrentRV-s.Oldest {
			t.Fatalf("server %d: window %+v", i, s)
		}
		if got := rawWatchFirst(t, i, ns, s.Oldest); strings.Contains(got, `"code":410`) || !strings.HasPrefix(got, "200") {
			t.Errorf("server %d: a raw watch from the oldest RV %d did not start: %s", i, s.Oldest, got)
		}
		if s.Oldest > 1 {
			if got := rawWatchFirst(t, i, ns, s.Oldest-1); !strings.Contains(got, `"code":410`) {
				t.Errorf("server %d: a raw watch from %d (below the oldest) did not get 410: %s", i, s.Oldest-1, got)
			}
		}
	}
	// Requests: every server's configmaps requests, by its own audit log.
	want := make([]int, 3)
	total := rep.Discovery.Requests
	for i, s := range rep.Servers {
		want[i] = auditBefore[i] + s.Requests
		total += s.Requests
	}
	if rep.Requests != total {
		t.Errorf("requests %d, want the servers' plus discovery's %d", rep.Requests, total)
	}
	var got []int
	for try := 0; try < 50; try++ {
		if got = configMapAudit(t, ns); fmt.Sprint(got) == fmt.Sprint(want) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("configmaps requests of the plugin per server by the audit logs: %v, want %v (before %v)", got, want, auditBefore)
	}
	t.Logf("per-server probe: %d requests (%d discovery), servers %d/%d/%d, in %.0f ms", rep.Requests, rep.Discovery.Requests, rep.Servers[0].Requests, rep.Servers[1].Requests, rep.Servers[2].Requests, rep.Millis)
	single := framework.Run(t, h.Kubeconfig, time.Minute, "probe", "configmaps", "-n", ns, "-o", "json")
	var one render.ProbeReport
	if err := json.Unmarshal([]byte(single.Stdout), &one); err != nil || single.Code != 0 {
		t.Fatalf("single probe: exit %d %v %s", single.Code, err, single.Stderr)
	}
	t.Logf("single-server probe through the balancer: %d requests in %.0f ms", one.Requests, one.Millis)
	for i, s := range rep.Servers {
		if s.Requests > one.Requests+1 {
			t.Errorf("server %d cost %d requests, a single probe %d: the per-server probe adds only the cache-RV read", i, s.Requests, one.Requests)
		}
	}
}

// configMapAudit counts, per server, the plugin's completed requests on
// the configmaps of ns.
func configMapAudit(t *testing.T, ns string) []int {
	t.Helper()
	out := make([]int, len(shared.Cluster.APIServers))
	for i, a := range shared.Cluster.APIServers {
		for _, e := range framework.ReadAudit(t, a.AuditLog) {
			if e.UserAgent == pluginUA && e.Stage == "ResponseComplete" && strings.Contains(e.RequestURI, "/namespaces/"+ns+"/configmaps") {
				out[i]++
			}
		}
	}
	return out
}

// pauseLagging pauses the lagging server's etcd link, writes n configmaps
// through server 0 and waits for server 1 to see them; it returns the RV
// of the last write and resumes the link when the test ends.
func pauseLagging(t *testing.T, ns string, n int) int64 {
	t.Helper()
	ctx := context.Background()
	link := shared.EtcdLink(lagging)
	link.Pause()
	t.Cleanup(link.Resume)
	var last int64
	for k := 0; k < n; k++ {
		last = createConfigMap(t, ctx, 0, ns, fmt.Sprintf("lag-%d", k))
	}
	if _, err := shared.WaitConfigMapCacheRV(ctx, 1, ns, last, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	return last
}

// With the lagging server cut off from etcd, the view names it: its
// consistent list gets no answer (a row with the reason and a hint), its
// cache RV is exactly what a raw rv=0 list on it says, its lag is measured
// against the others' current RV and is the largest, and a reconnect from
// the newest RV is answered 504 by it and by no other server.
func TestServersNameTheLaggingServer(t *testing.T) {
	h := shared
	ns := "srv-lag"
	prepareNamespace(t, ns, 3)
	paused := time.Now()
	last := pauseLagging(t, ns, 5)
	r := framework.Run(t, h.Kubeconfig, time.Minute, "--request-timeout", "2s", "probe", "configmaps", "-n", ns, "--servers", "-o", "json")
	rawCache := rawRV(t, lagging, ns, "resourceVersion=0&limit=1")
	shared.EtcdLink(lagging).Resume()
	t.Logf("etcd link of server %d paused for %s", lagging, time.Since(paused).Round(time.Millisecond))
	if r.Code != 12 {
		t.Fatalf("exit %d, want 12 (two servers answered, one failed its consistent list): %s", r.Code, r.Stderr)
	}
	rep := decodeServers(t, r)
	lag := rep.Servers[lagging]
	if lag.Endpoint != h.EndpointAddr(lagging) || lag.CurrentKnown || lag.Reason == "" || lag.Hint == "" {
		t.Fatalf("the lagging server's row: %+v", lag)
	}
	if !lag.CacheKnown || lag.CacheRV != rawCache || lag.CacheRV >= uint64(last) {
		t.Fatalf("the lagging server's cache RV %d (known %v), a raw rv=0 list on it says %d, the last write was %d", lag.CacheRV, lag.CacheKnown, rawCache, last)
	}
	v := rep.Verdict
	if v.LargestLagServer != h.EndpointAddr(lagging) || v.LargestLag != v.NewestCurrent-lag.CacheRV || lag.Lag != v.LargestLag || lag.LagAgainst == "" {
		t.Fatalf("verdict %+v, lagging row %+v", v, lag)
	}
	if v.NewestCurrent < uint64(last) {
		t.Fatalf("newest current RV %d is older than the last write %d", v.NewestCurrent, last)
	}
	if !v.CommonToLagging || v.CommonTo != lag.CacheRV || v.CommonToServer != lag.Endpoint {
		t.Errorf("the common range should end at the lagging server's cache RV %d: %+v", lag.CacheRV, v)
	}
	for i, a := range v.Reconnect.Answers {
		want := "starts"
		if i == lagging {
			want = "504 TooLarge"
		}
		if a.Answer != want {
			t.Errorf("reconnect from %d: server %d answers %q, want %q", v.Reconnect.ResourceVersion, i, a.Answer, want)
		}
	}
	t.Logf("server %s: cache RV %d, %d RVs behind the newest current RV %d", lag.Endpoint, lag.CacheRV, lag.Lag, v.NewestCurrent)

	human := framework.Run(t, h.Kubeconfig, time.Minute, "list", "configmaps", "-n", ns, "--servers")
	if human.Code != 0 || !strings.Contains(human.Stdout, "Largest lag") {
		t.Fatalf("list --servers after resuming: exit %d\n%s%s", human.Code, human.Stdout, human.Stderr)
	}
}

// A real 504: a list at an RV read on a fresh server, sent to the lagging
// one. explain-error --check with every server given by hand (--endpoints,
// dialled directly) names the lagging server and by how much it is behind.
func TestExplainErrorAttributesRealTooLarge(t *testing.T) {
	h := shared
	ns := "srv-toolarge"
	prepareNamespace(t, ns, 2)
	pauseLagging(t, ns, 5)
	fresh := rawRV(t, 0, ns, "limit=1")
	code, body := rawGet(t, lagging, fmt.Sprintf("/api/v1/namespaces/%s/configmaps?resourceVersion=%d&resourceVersionMatch=NotOlderThan&limit=1", ns, fresh))
	if code != http.StatusGatewayTimeout {
		t.Fatalf("the lagging server answered HTTP %d %s, want 504", code, body)
	}
	laggingCache := rawRV(t, lagging, ns, "resourceVersion=0&limit=1")
	var eps []string
	for i := range h.Cluster.APIServers {
		eps = append(eps, net.JoinHostPort("127.0.0."+strconv.Itoa(i+1), strconv.Itoa(h.Port)))
	}
	r := framework.Run(t, h.DirectKubeconfig(0), time.Minute, "--request-timeout", "2s", "-n", ns, "explain-error", "--check", "--endpoints", strings.Join(eps, ","), "-o", "json", body)
	shared.EtcdLink(lagging).Resume()
	if r.Code != 0 {
		t.Fatalf("exit %d: %s\n%s", r.Code, r.Stderr, r.Stdout)
	}
	var out struct {
		Class   string `json:"class"`
		Servers struct {
			Servers []struct {
				Endpoint string `json:"endpoint"`
				CacheRV  uint64 `json:"cacheResourceVersion,string"`
			} `json:"servers"`
			Findings []string `json:"findings"`
		} `json:"servers"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil {
		t.Fatalf("%v\n%s", err, r.Stdout)
	}
	ss := out.Servers.Servers
	if out.Class != "TooLarge" || len(ss) != 3 || len(out.Servers.Findings) != 1 {
		t.Fatalf("got %+v", out)
	}
	if ss[lagging].CacheRV != laggingCache {
		t.Errorf("the lagging server's cache RV %d, raw %d", ss[lagging].CacheRV, laggingCache)
	}
	want := fmt.Sprintf("server %s is %s RVs behind server %s", eps[lagging], text.Thousands(ss[0].CacheRV-laggingCache), eps[0])
	if f := out.Servers.Findings[0]; !strings.HasPrefix(f, want) || !strings.Contains(f, "gets this 504") {
		t.Errorf("finding %q, want it to start with %q", f, want)
	}
	t.Logf("%s", out.Servers.Findings[0])
}

// An endpoint that refuses connections (a closed loopback port) is a row
// of its own with the reason and a hint; the others are measured, and the
// run exits 12 (some servers failed) while another server answers, 4
// (unreachable) when none does.
func TestServersUnreachableEndpoint(t *testing.T) {
	h := shared
	good := net.JoinHostPort("127.0.0.1", strconv.Itoa(h.Port))
	r := framework.Run(t, h.DirectKubeconfig(0), time.Minute, "list", "configmaps", "-n", "default", "--endpoints", "127.0.0.1:1,"+good, "-o", "json")
	if r.Code != 12 {
		t.Fatalf("exit %d with one server of two answering, want 12: %s", r.Code, r.Stderr)
	}
	rep := decodeServers(t, r)
	bad := rep.Servers[0]
	if bad.Endpoint != "127.0.0.1:1" || bad.Reason != "Unreachable" || bad.Hint == "" || bad.CacheKnown || bad.CurrentKnown {
		t.Fatalf("the unreachable row: %+v", bad)
	}
	if !rep.Servers[1].CurrentKnown || rep.Verdict.Answered != 1 || rep.Discovery.From != "flag" {
		t.Fatalf("the reachable row or the verdict: %+v %+v", rep.Servers[1], rep.Verdict)
	}
	human := framework.Run(t, h.DirectKubeconfig(0), time.Minute, "list", "configmaps", "-n", "default", "--endpoints", "127.0.0.1:1,"+good)
	if !strings.Contains(human.Stdout, "127.0.0.1:1") || !strings.Contains(human.Stdout, "Unreachable") {
		t.Errorf("human output lacks the unreachable row:\n%s", human.Stdout)
	}
	none := framework.Run(t, h.DirectKubeconfig(0), time.Minute, "list", "configmaps", "-n", "default", "--endpoints", "127.0.0.1:1")
	if none.Code != 4 || strings.Count(strings.TrimSpace(none.Stderr), "\n") != 0 || !strings.Contains(none.Stderr, "the only API server could not be measured (") {
		t.Fatalf("no server answering: exit %d, stderr %q, want 4 and one line", none.Code, none.Stderr)
	}
}

// Whatever the plugin did on any server in this package, its audit trail
// holds only get, list and watch.
func TestServersAuditOnlyReads(t *testing.T) {
	h := shared
	r := framework.Run(t, h.Kubeconfig, time.Minute, "list", "configmaps", "-n", "default", "--servers")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	seen := map[string]int{}
	for i, a := range h.Cluster.APIServers {
		n := 0
		for _, e := range framework.ReadAudit(t, a.AuditLog) {
			if e.UserAgent != pluginUA || e.Stage != "ResponseComplete" {
				continue
			}
			n++
			seen[e.Verb]++
			switch e.Verb {
			case "get", "list", "watch":
			default:
				t.Errorf("server %d: the plugin sent %s %s", i, e.Verb, e.RequestURI)
			}
		}
		if n == 0 {
			t.Errorf("server %d: no request of the plugin in its audit log", i)
		}
	}
	t.Logf("the plugin's requests on all servers by verb: %v", seen)
}
