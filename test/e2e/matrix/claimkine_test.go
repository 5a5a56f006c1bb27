//go:build e2e

package matrix

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// Claims 9 and 10 (kine, watch cache off): kine drops PrevKv for any change
// of an object whose previous version is below its compaction point, far
// above it. One namespace holds an object created before kineMinRetain+50
// writes, a compaction (clamped by kine to current-1000) and then a change
// of that object at M: a watch from anywhere below M dies at M.
var checkKineLostChange = claimCheck{"claim9-10-kine-lost-change", func(t *testing.T, _ framework.Cell, c *framework.Cluster) {
	ctx := context.Background()
	cs, ns := framework.Namespace(t, c, "claim9")
	w := framework.ConfigMapWriter{T: t, Clientset: cs, Namespace: ns}
	w.Create("old", nil)
	if err := framework.CreateConfigMaps(ctx, cs, ns, "fill", kineMinRetain+50, 8, 8); err != nil {
		t.Fatal(err)
	}
	cur := currentRV(t, c, ns)
	if err := c.Compact(ctx, int64(cur)); err != nil {
		t.Fatal(err)
	}
	watch, follow := listSuggestion(t, c, "configmaps", "-n", ns) // before old changes
	m := framework.RVNum(t, w.Modify("old").ResourceVersion)
	w.Create("after", nil) // a change a watch from m must deliver
	t.Logf("compacted at %d (kine keeps %d), old modified at %d", cur, kineMinRetain, m)
	t.Run("h38-watch-from-here", func(t *testing.T) { kineWatchFromHere(t, watch, follow, m) })
	t.Run("claim9-probe", func(t *testing.T) { kineProbeReachesCurrent(t, c, ns, m) })
	t.Run("claim9-explain", func(t *testing.T) { kineExplainLostChange(t, c, ns, m, cur) })
	t.Run("claim10-follow", func(t *testing.T) { kineFollowRelists(t, c, ns, m) })
}}

// Claim 9: probe's oldest RV is one a watch really reaches the current RV
// from (M, not the compaction point + 1 that exact lists show), and
// --verify proves it; it said "the window moved during the probe".
func kineProbeReachesCurrent(t *testing.T, c *framework.Cluster, ns string, m uint64) {
	r := framework.Run(t, c.Kubeconfig, 2*time.Minute, "probe", "configmaps", "-n", ns, "--verify", "-o", "json")
	var got struct {
		Current string `json:"currentResourceVersion"`
		Oldest  string `json:"oldestResourceVersion"`
		Found   bool   `json:"found"`
		Verify  *struct {
			Holds bool `json:"holds"`
		} `json:"verify"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &got); err != nil || r.Code != 0 {
		t.Fatalf("probe --verify on kine: exit %d (%v): %s%s", r.Code, err, r.Stdout, r.Stderr)
	}
	oldest, _ := strconv.ParseUint(got.Oldest, 10, 64)
	t.Logf("probe --verify: oldest %d current %s, verified %v in %s", oldest, got.Current, got.Verify != nil && got.Verify.Holds, r.Duration.Round(time.Millisecond))
	if !got.Found || got.Verify == nil || !got.Verify.Holds || oldest != m {
		t.Errorf("probe --verify on kine: oldest %d, want %d (the lost change: a watch from below it dies there), verify %+v", oldest, m, got.Verify)
	}
	// The raw truth: a watch from the oldest RV delivers the change after
	// m and stays healthy; one from below it fails.
	s := newServer(t, c)
	path := "/api/v1/namespaces/" + ns + "/configmaps"
	from := func(rv uint64) watched {
		return s.watch(path, url.Values{"resourceVersion": {strconv.FormatUint(rv, 10)}, "timeoutSeconds": {"3"}}, 10*time.Second, func(e event) bool { return e.Type == "ERROR" })
	}
	at := from(oldest)
	if at.Code != http.StatusOK || len(at.Events) != 1 || at.Events[0].Type != "ADDED" {
		t.Errorf("a raw watch from probe's oldest RV %d: %d, %d events %v", oldest, at.Code, len(at.Events), at.Events)
	}
	if below := from(oldest - 1); len(below.Events) == 0 || below.Events[0].Type != "ERROR" {
		t.Errorf("a raw watch from %d (below probe's oldest RV) does not fail: %d events", oldest-1, len(below.Events))
	}
	kineProbeWords(t, c, ns, m)
}

// Issue 25 item 37: the words of that probe. It said the window "starts at
// etcd's compaction point" (SOURCE etcd), yet kine had compacted far below
// the bound, where the watch from below fails with PrevKv=nil, not 410.
// Now: storage (never etcd as a fact), the bound a lost change at m, and
// exact lists answering far below it.
func kineProbeWords(t *testing.T, c *framework.Cluster, ns string, m uint64) {
	r := framework.Run(t, c.Kubeconfig, 2*time.Minute, "probe", "configmaps", "-n", ns, "-o", "json")
	var got struct {
		Source      string `json:"source"`
		BoundBy     string `json:"boundBy"`
		CompactedAt string `json:"compactedAt"`
		LostAt      string `json:"lostAt"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &got); err != nil || r.Code != 0 {
		t.Fatalf("probe on kine: exit %d (%v): %s%s", r.Code, err, r.Stdout, r.Stderr)
	}
	compacted, _ := strconv.ParseUint(got.CompactedAt, 10, 64)
	if got.Source != "storage" || got.BoundBy != "lost-change" || got.LostAt != strconv.FormatUint(m, 10) || compacted == 0 || compacted >= m {
		t.Errorf("probe on kine: source %q, bound by %q at %s, exact lists from %s; want storage, lost-change at %d, far below it", got.Source, got.BoundBy, got.LostAt, got.CompactedAt, m)
	}
	h := framework.Run(t, c.Kubeconfig, 2*time.Minute, "probe", "configmaps", "-n", ns)
	bound := ""
	for _, l := range strings.Split(h.Stdout, "\n") {
		if strings.HasPrefix(l, "Bound:") {
			bound = l
		}
	}
	if strings.Contains(h.Stdout, "etcd's compaction point") || strings.Contains(h.Stdout, "etcd, directly") ||
		!strings.Contains(bound, "PrevKv=nil") || !strings.Contains(bound, "storage is compacted at RV "+got.CompactedAt) {
		t.Errorf("probe on kine, the human words:\n%s", h.Stdout)
	}
}

// Claim 9: explain-error on the PrevKv=nil of a watch that started far
// above the compaction point must not say it started just below it.
func kineExplainLostChange(t *testing.T, c *framework.Cluster, ns string, m, compactedAt uint64) {
	from := compactedAt - kineMinRetain + 20 // far above kine's compaction point, far below m
	r := framework.Run(t, c.Kubeconfig, time.Minute, "watch", "configmaps", "-n", ns, "--rv", strconv.FormatUint(from, 10), "--timeout", "10s")
	if !strings.Contains(r.Stdout+r.Stderr, "PrevKv=nil") {
		t.Fatalf("watch from %d: want the PrevKv=nil ERROR at %d, got exit %d: %s%s", from, m, r.Code, r.Stdout, r.Stderr)
	}
	e := framework.RunInput(t, c.Kubeconfig, []byte(r.Stdout+r.Stderr), time.Minute, "explain-error", "--rv", strconv.FormatUint(from, 10))
	if strings.Contains(e.Stdout, "started just below") || strings.Contains(e.Stdout, "starts cleanly") || !strings.Contains(e.Stdout, "kine") {
		t.Errorf("explain-error on kine's PrevKv=nil for a watch from %d (lost change at %d): %s", from, m, e.Stdout)
	}
}

var sessionLine = regexp.MustCompile(`(\d+) reconnects?, (\d+) relists?`)

// Claim 10: watch --follow from below the lost change relists (and then
// watches from the list's RV), instead of reconnecting from the same RV
// hundreds of times until the client's rate limiter gives up.
func kineFollowRelists(t *testing.T, c *framework.Cluster, ns string, m uint64) {
	r := framework.Run(t, c.Kubeconfig, time.Minute, "watch", "configmaps", "-n", ns, "--rv", strconv.FormatUint(m-1, 10), "--follow", "--timeout", "6s")
	all := r.Stdout + r.Stderr
	s := sessionLine.FindStringSubmatch(all)
	if s == nil || !strings.Contains(all, "PrevKv=nil") {
		t.Fatalf("watch --follow from %d: no PrevKv=nil or no session line (exit %d): %s", m-1, r.Code, all)
	}
	reconnects, _ := strconv.Atoi(s[1])
	relists, _ := strconv.Atoi(s[2])
	t.Logf("watch --follow from %d: %s (exit %d, %s)", m-1, s[0], r.Code, r.Duration.Round(time.Millisecond))
	if relists < 1 || reconnects > 3 || strings.Contains(all, "rate limiter") {
		t.Errorf("watch --follow after kine's PrevKv=nil: %d reconnect(s), %d relist(s), want a relist and no reconnect loop: %s", reconnects, relists, all)
	}
}
