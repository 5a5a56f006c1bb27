//go:build e2e

package probe

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/metrics"
	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// Cache on, after a restart: the window starts at the cache's initial list,
// which the server's own 410 names; probe finds it in 2 watches and
// --verify holds.
func TestProbeWatchCacheAfterRestart(t *testing.T) {
	ctx := context.Background()
	c := framework.StartT(t, framework.APIServerOptions{})
	cs, ns := newNamespace(t, c, "probe-cache")
	if err := framework.CreateConfigMaps(ctx, cs, ns, "before", 100, 16, 4); err != nil {
		t.Fatal(err)
	}
	restarted := time.Now()
	if err := c.RestartAPIServer(ctx, 0); err != nil {
		t.Fatal(err)
	}
	cs, _ = c.Clientset(0)
	if err := framework.CreateConfigMaps(ctx, cs, ns, "after", 20, 16, 2); err != nil {
		t.Fatal(err)
	}
	first := rawWatchFirst(t, cs, "/api/v1/namespaces/"+ns+"/configmaps", "1")
	recordAnswer(t, "cache-expired-event.json", first)
	want := namedOldest(t, first)

	got, r := runProbeJSON(t, c.Kubeconfig, 0, "configmaps", "-n", ns, "--verify")
	if !got.Found || got.OldestResourceVersion != want || got.Source != "watch-cache" {
		t.Fatalf("want oldest %s from the watch cache, got %+v", want, got)
	}
	if got.Probes > 2 {
		t.Fatalf("want at most 2 probes, got %d: %+v", got.Probes, got.ProbeDetails)
	}
	cur, _ := strconv.ParseUint(got.CurrentResourceVersion, 10, 64)
	old, _ := strconv.ParseUint(got.OldestResourceVersion, 10, 64)
	if got.Width != cur-old || cur < old+20 {
		t.Fatalf("width %d is not current %d - oldest %d (20 writes since the restart)", got.Width, cur, old)
	}
	if got.Verify == nil || !got.Verify.Holds || got.Verify.BelowOldest == nil || got.Verify.BelowOldest.Outcome != "expired" {
		t.Fatalf("--verify must hold: %+v", got.Verify)
	}
	if got.Requests != 1+got.Probes+2 {
		t.Fatalf("requests %d: want the current-RV read, %d probes and 2 verify watches", got.Requests, got.Probes)
	}
	t.Logf("PERF cache-after-restart: %d requests, %.0f ms in probe, %s wall for the process", got.Requests, got.Millis, r.Duration)
	if sent := onlyReads(t, c.APIServers[0].AuditLog); sent < got.Requests {
		t.Fatalf("the audit log shows %d plugin requests, the report %d", sent, got.Requests)
	}
	// Issue 25 item 6: after a restart the counters start again; the
	// counters explain the window by the restart's initialization (with
	// the server's start time), not as "nothing evicted".
	rep, _ := probeMetrics(t, c.Kubeconfig, "configmaps", "-n", ns)
	m := rep.Metrics
	if m == nil || m.ServerStarted == nil || m.ServerStarted.Before(restarted.Add(-time.Second)) {
		t.Fatalf("the metrics do not say the server started after the restart at %s: %+v", restarted, m)
	}
	if m.Limit != metrics.LimitInitialization || !strings.Contains(m.LimitText, "lost at that initialization") ||
		!strings.Contains(m.LimitText, "since the server started at "+metrics.ClockTime(*m.ServerStarted)) || !strings.Contains(m.LimitText, "RV "+want) {
		t.Fatalf("after a restart: %s: %s", m.Limit, m.LimitText)
	}
}

// Cache off for configmaps, etcd compacted at R after several hundred
// writes: the oldest RV is exactly the one whose watch etcd still serves.
// A watch from N asks etcd for revisions from N+1, so R-1 still starts and
// R-2 fails: the probe must report R-1.
func TestProbeEtcdCompacted(t *testing.T) {
	ctx := context.Background()
	c := framework.StartT(t, framework.APIServerOptions{WatchCacheSizes: "configmaps#0"})
	cs, ns := newNamespace(t, c, "probe-etcd")
	if err := framework.CreateConfigMaps(ctx, cs, ns, "a", 300, 16, 4); err != nil {
		t.Fatal(err)
	}
	rev, err := c.EtcdRevision(ctx)
	if err != nil {
		t.Fatal(err)
	}
	R := rev - 50
	if err := framework.CreateConfigMaps(ctx, cs, ns, "b", 300, 16, 4); err != nil {
		t.Fatal(err)
	}
	if err := c.Compact(ctx, R); err != nil {
		t.Fatal(err)
	}
	path := "/api/v1/namespaces/" + ns + "/configmaps"
	// What the real server does around R.
	for _, tc := range []struct {
		rv     int64
		starts bool
	}{{R, true}, {R - 1, true}, {R - 2, false}} {
		line := rawWatchFirst(t, cs, path, fmt.Sprint(tc.rv))
		expired := strings.Contains(line, "The resourceVersion for the provided watch is too old")
		t.Logf("watch from R%+d (%d): %.120s", tc.rv-R, tc.rv, line)
		recordAnswer(t, fmt.Sprintf("etcd-watch-from-R%+d.json", tc.rv-R), line)
		if expired == tc.starts {
			t.Fatalf("watch from %d (R=%d): starts=%v expected, got %q", tc.rv, R, tc.starts, line)
		}
	}

	got, r := runProbeJSON(t, c.Kubeconfig, 0, "cm", "-n", ns, "--verify", "--qps", "100")
	if !got.Found || got.OldestResourceVersion != fmt.Sprint(R-1) || got.Source != "storage" || got.BoundBy != "compaction" || got.CompactedAt != fmt.Sprint(R) {
		t.Fatalf("want oldest %d (R-1) from etcd, got %+v", R-1, got)
	}
	if bound := log2Ceil(got.Width) + 3; got.Probes > bound {
		t.Fatalf("%d probes for width %d, bound %d", got.Probes, got.Width, bound)
	}
	if got.Verify == nil || !got.Verify.Holds {
		t.Fatalf("--verify must hold: %+v", got.Verify)
	}
	t.Logf("PERF etcd-compacted (qps 100): width %d, %d probes (bound %d), %d requests, %.0f ms in probe, %s wall",
		got.Width, got.Probes, log2Ceil(got.Width)+3, got.Requests, got.Millis, r.Duration)

	// At the default --qps 5 the same search is paced: report it.
	slow, rs := runProbeJSON(t, c.Kubeconfig, 0, "cm", "-n", ns)
	if slow.OldestResourceVersion != got.OldestResourceVersion {
		t.Fatalf("default qps found %s, qps 100 found %s", slow.OldestResourceVersion, got.OldestResourceVersion)
	}
	t.Logf("PERF etcd-compacted (qps 5): %d requests, %.0f ms in probe, %s wall", slow.Requests, slow.Millis, rs.Duration)
	// Without --verify, every request (the current-RV read included) is within the bound.
	if bound := log2Ceil(slow.Width) + 3; slow.Requests > bound {
		t.Fatalf("%d requests for width %d, bound %d", slow.Requests, slow.Width, bound)
	}

	// Human output with -v: every probe, in order, with its evidence.
	h := framework.Run(t, c.Kubeconfig, time.Minute, "probe", "cm", "-n", ns, "-v", "--qps", "100")
	t.Logf("probe -v:\n%s", h.Stdout)
	for _, want := range []string{"OLDEST RV", "storage (etcd, or a shim such as kine", fmt.Sprintf("storage is compacted (exact lists answer from RV %d", R), "WATCH FROM RV", "The resourceVersion for the provided watch is too old", fmt.Sprint(R - 1)} {
		if h.Code != 0 || !strings.Contains(h.Stdout, want) {
			t.Fatalf("probe -v (exit %d) lacks %q:\n%s%s", h.Code, want, h.Stdout, h.Stderr)
		}
	}

	// A budget too small for the search: exit 11 with the bracket.
	short, _ := runProbeJSON(t, c.Kubeconfig, 11, "cm", "-n", ns, "--max-requests", "4", "--qps", "100")
	if short.Found || short.Bracket == nil || short.Reason != "BudgetExhausted" || short.Requests != 4 {
		t.Fatalf("want a bracket after 4 requests, got %+v", short)
	}
	lo, _ := strconv.ParseInt(short.Bracket.LastFailing, 10, 64)
	hi, _ := strconv.ParseInt(short.Bracket.FirstSucceeding, 10, 64)
	if !(lo < R-1 && R-1 <= hi) {
		t.Fatalf("bracket (%d, %d] must hold R-1 = %d", lo, hi, R-1)
	}
	onlyReads(t, c.APIServers[0].AuditLog)
}
