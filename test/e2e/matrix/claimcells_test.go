//go:build e2e

package matrix

import (
	"context"
	"encoding/json"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/metrics"
	"github.com/watchrv/kubectl-watchrv/pkg/serverinfo"
	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// claimChecks are the checks of issue 18's claims (1 to 12), each
// run on the cell where the claim showed, after the facts and the oracle
// (some compact, which would move the oracle's ground). background checks
// only watch a namespace of their own: they run from the cell's start,
// beside the others (claim 4 waits out the 90 s stall timeout).
var claimChecks = map[string]struct{ background, after []claimCheck }{
	"v1.30/etcd/cache-on":  {after: []claimCheck{checkConsistentReadFromStorage, checkStreamingRefused, checkTooLargeAtOnce, checkExactListRechecked, checkStaleDiscovery}},
	"v1.37/etcd/cache-off": {background: []claimCheck{checkQuietIsNotStalled}, after: []claimCheck{checkAnyFromStorage, checkPrevKvEndsStream, checkWatchFromHereNoCache, checkShortStallAdvice}},
	"v1.37/kine/cache-off": {after: []claimCheck{checkCompactionOnKine, checkKineLostChange}},
	"v1.33/etcd/cache-on":  {after: []claimCheck{checkStreamingRefused, checkStreamingExitCodes}},
}

type claimCheck struct {
	name string
	run  func(t *testing.T, cell framework.Cell, c *framework.Cluster)
}

// startClaimChecks starts the cell's background claim checks and
// checkStateEndMarker (on every cell: it only watches a namespace of its
// own); the returned func runs checkServerInfo, checkListPages, checkCacheRVRead and checkWatchFromZeroHeader (on every cell) and the cell's other claim
// checks, then waits for the background ones.
func startClaimChecks(t *testing.T, cell framework.Cell, c *framework.Cluster) (runRest func()) {
	checks := claimChecks[cell.Name()]
	var wg sync.WaitGroup
	for _, ch := range append([]claimCheck{checkStateEndMarker}, checks.background...) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.Run(ch.name, func(t *testing.T) { ch.run(t, cell, c) })
		}()
	}
	return func() {
		for _, ch := range append([]claimCheck{checkServerInfo, checkListPages, checkCacheRVRead, checkWatchFromZeroHeader}, checks.after...) {
			t.Run(ch.name, func(t *testing.T) { ch.run(t, cell, c) })
		}
		wg.Wait()
	}
}

func client(t *testing.T, c *framework.Cluster) *apiclient.Client {
	t.Helper()
	cl, err := apiclient.NewClient(c.RESTConfig(0))
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

func get(t *testing.T, c *framework.Cluster, path string) []byte {
	t.Helper()
	return getQuery(t, c, path, nil)
}

func getQuery(t *testing.T, c *framework.Cluster, path string, q url.Values) []byte {
	t.Helper()
	body, err := client(t, c).Get(context.Background(), path, q, "*/*")
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer body.Close()
	b, err := io.ReadAll(body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkServerInfo: serverinfo.Read on the real server says its version
// and, where /metrics filters by name[] (v1.37 and later), the gates as
// /metrics shows them and the watch cache of configmaps as the cell runs
// it; before, /metrics is not asked (it would send megabytes): the cache is
// unknown and the assumption said. The server's /metrics honours name[]
// exactly where serverinfo says it does. With WATCHRV_RECORD_SERVERINFO=1
// it records /version, the parts of /metrics serverinfo read before, and
// the named answer it reads now into pkg/serverinfo/testdata.
var checkServerInfo = claimCheck{"serverinfo", func(t *testing.T, cell framework.Cell, c *framework.Cluster) {
	in := serverinfo.Read(context.Background(), client(t, c), "", "configmaps", nil)
	if in.Version != cell.GitVersion() {
		t.Errorf("version %q, want %q", in.Version, cell.GitVersion())
	}
	named := string(getQuery(t, c, "/metrics", url.Values{"name[]": {"kubernetes_feature_enabled", "watch_cache_capacity"}}))
	filters := !strings.Contains(named, "# HELP apiserver_")
	t.Logf("named /metrics answer: %d bytes, filtered %v", len(named), filters)
	if filters != (cell.Version >= "v1.37") {
		t.Errorf("/metrics honours name[]: %v on %s (serverinfo asks from v1.37)", filters, cell.Version)
	}
	want := serverinfo.No
	if cell.WatchCache {
		want = serverinfo.Yes
	}
	switch {
	case !filters && (in.WatchCache != serverinfo.Unknown || len(in.GatesSeen) != 0 || in.Note() == ""):
		t.Errorf("/metrics not asked: want the cache unknown, no gate seen and a note, got %+v", in)
	case filters && in.WatchCache != want:
		t.Errorf("watch cache %s, want %s", in.WatchCache, want)
	case filters && len(in.GatesSeen) == 0:
		t.Errorf("no gate read from /metrics: %+v", in)
	}
	t.Logf("server: %s", in.Summary())
	// The one line that tells a kube-apiserver's /metrics from another
	// program's (metrics.FamilyAuditEvents) has its sample on every
	// cell, the watch cache on or off.
	audit := string(getQuery(t, c, "/metrics", url.Values{"name[]": {metrics.FamilyAuditEvents}}))
	if !regexp.MustCompile(`(?m)^` + metrics.FamilyAuditEvents + ` [0-9]`).MatchString(audit) {
		t.Errorf("/metrics has no sample of %s", metrics.FamilyAuditEvents)
	}
	if os.Getenv("WATCHRV_RECORD_SERVERINFO") == "" {
		return
	}
	base := filepath.Join(framework.RepoRoot(), "pkg", "serverinfo", "testdata", strings.ReplaceAll(cell.GitVersion()+"-"+cell.Storage+"-"+map[bool]string{true: "cache-on", false: "cache-off"}[cell.WatchCache], "/", "-"))
	if err := os.WriteFile(base+".version.json", get(t, c, "/version"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(base+".metrics.txt", []byte(recordedMetrics(string(get(t, c, "/metrics")))), 0o644); err != nil {
		t.Fatal(err)
	}
	if filters {
		if err := os.WriteFile(base+".metrics-named.txt", []byte(named), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}}

// recordedMetrics keeps the families serverinfo reads (and their HELP and
// TYPE lines), exactly as the server wrote them.
func recordedMetrics(all string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(all, "\n") {
		name := strings.TrimPrefix(strings.TrimPrefix(line, "# HELP "), "# TYPE ")
		for _, p := range []string{"kubernetes_feature_enabled", "watch_cache_", "apiserver_watch_cache_", "apiserver_cache_list_total", "apiserver_storage_list_total"} {
			if strings.HasPrefix(name, p) {
				b.WriteString(line)
				break
			}
		}
	}
	return b.String()
}

// listJSON runs list -o json and decodes it.
func listJSON(t *testing.T, c *framework.Cluster, args ...string) map[string]any {
	t.Helper()
	r := framework.Run(t, c.Kubeconfig, time.Minute, append([]string{"list", "-o", "json"}, args...)...)
	if r.Code != 0 {
		t.Fatalf("list %v: exit %d: %s", args, r.Code, r.Stderr)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil {
		t.Fatalf("list -o json: %v: %s", err, r.Stdout)
	}
	return out
}

// semantics is the read semantics list printed, with who served page 1.
func semantics(out map[string]any) string {
	rs, _ := out["readSemantics"].(map[string]any)
	d, _ := rs["description"].(string)
	src, _ := rs["source"].(string)
	return d + "; " + src
}
