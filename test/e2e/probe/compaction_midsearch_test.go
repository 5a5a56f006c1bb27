//go:build e2e

package probe

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// Fresh user try 22 #1: watch cache off, storage compacted while the probe
// searches, at a revision above the current RV the probe read first (a
// few writes, then a compaction there). Every RV up to that current RV
// then fails, and the oldest RV is R-1, above it. The probe reported the
// current RV as the bound (width 0, "a watch from RV 713 starts", exit 0)
// without a watch from it, and a raw watch from that RV got 410. The run
// must report a bound a real watch starts from (R-1 here, checked with the
// harness's own watches), or say that it could not settle one; for one
// resource, with --verify, and in each round of --interval.
func TestProbeCompactedAboveTheCurrentRVMidSearch(t *testing.T) {
	ctx := context.Background()
	c := framework.StartT(t, framework.APIServerOptions{WatchCacheSizes: "configmaps#0"})
	cs, ns := newNamespace(t, c, "probe-midsearch")
	// A window to search: storage compacted between two batches of writes.
	if err := framework.CreateConfigMaps(ctx, cs, ns, "old", 100, 8, 4); err != nil {
		t.Fatal(err)
	}
	compacted := compactNow(t, c)
	if err := framework.CreateConfigMaps(ctx, cs, ns, "mid", 100, 8, 4); err != nil {
		t.Fatal(err)
	}
	path := "/api/v1/namespaces/" + ns + "/configmaps"
	audit := c.APIServers[0].AuditLog
	watchFrom1 := func(_ framework.AuditEvent, q url.Values) bool { return q.Get("resourceVersion") == "1" }
	// A watch read through to the current RV (timeoutSeconds=60): the
	// first settles the bound exact lists found.
	readThrough := func(_ framework.AuditEvent, q url.Values) bool { return q.Get("timeoutSeconds") == "60" }
	for i, mode := range []struct {
		name string
		args []string
		// The compaction follows, after delay, the plugin's n-th watch
		// that trigger matches: its search's first probe (from RV 1, sent
		// once the round read the current RV), or the watch that settles
		// the bound the exact lists found, once storage serves it (etcd
		// syncs a watch from the past within 100 ms) and before it ends
		// (it is read until 1 s of silence): then that watch starts, the
		// verification's fail, and the search is run again with watches
		// only.
		trigger func(framework.AuditEvent, url.Values) bool
		n       int
		delay   time.Duration
		// round: the first round of --interval the compaction can reach.
		round int
	}{
		{"probe", nil, watchFrom1, 1, 0, 1},
		{"verify", []string{"--verify"}, watchFrom1, 1, 0, 1},
		{"verify-after-settle", []string{"--verify"}, readThrough, 1, 300 * time.Millisecond, 1},
		// --duration 20s: at --qps 2 a round of about 12 requests takes
		// 6 s or more (its --qps waits are the round's time), and the
		// compaction is sent in the second round, which must end within
		// the run to be counted.
		{"interval", []string{"--interval", "2s", "--duration", "20s"}, watchFrom1, 2, 0, 2},
	} {
		t.Run(mode.name, func(t *testing.T) {
			before := len(framework.ReadAudit(t, audit))
			// --qps 2: the search's requests come every 500 ms, and the
			// compaction lands between two of them.
			args := append([]string{"probe", "configmaps", "-n", ns, "--qps", "2", "-o", "json"}, mode.args...)
			p := framework.StartPlugin(t, c.Kubeconfig, args...)
			waitForWatch(t, audit, before, mode.trigger, mode.n, p)
			time.Sleep(mode.delay)
			if err := framework.CreateConfigMaps(ctx, cs, ns, fmt.Sprintf("late%d", i), 3, 8, 1); err != nil {
				t.Fatal(err)
			}
			old := compacted
			compacted = compactNow(t, c)
			code := p.Wait(3 * time.Minute)
			t.Logf("probe %s: exit %d, storage compacted at %d (before: %d)\nstderr: %s", strings.Join(mode.args, " "), code, compacted, old, p.Stderr())
			windows := []uint64{compacted - 1}
			if mode.round > 1 {
				windows = append(windows, old-1) // the rounds before the compaction
			}
			if mode.name == "interval" {
				checkRounds(t, cs, path, p.Stdout(), code, windows, mode.round)
				return
			}
			var got probeJSON
			if err := json.Unmarshal([]byte(p.Stdout()), &got); err != nil {
				t.Fatalf("probe -o json is not JSON (exit %d): %v\n%s", code, err, p.Stdout())
			}
			if !got.Found && code == 0 {
				t.Fatalf("probe %v: no bound, and exit 0", mode.args)
			}
			checkBound(t, cs, path, fmt.Sprintf("probe %v (exit %d)", mode.args, code), got.Found, got.OldestResourceVersion, got.CurrentResourceVersion, got.Error, windows)
			t.Logf("oldest %s, current %s, %d requests", got.OldestResourceVersion, got.CurrentResourceVersion, got.Requests)
			if got.Found && mode.args != nil && (got.Verify == nil || !got.Verify.Holds) {
				t.Fatalf("--verify: a bound that real watches started from must verify: %+v", got.Verify)
			}
			if mode.name == "verify-after-settle" && !earlierVerifyShown(got, old-1) {
				t.Fatalf("the first verification's watch from RV %d (refused: the window moved) is not among the probes: %+v", old-1, got.ProbeDetails)
			}
		})
	}
	onlyReads(t, audit)
}

// compactNow compacts storage at its current revision and returns it.
func compactNow(t *testing.T, c *framework.Cluster) uint64 {
	t.Helper()
	ctx := context.Background()
	rev, err := c.EtcdRevision(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Compact(ctx, rev); err != nil {
		t.Fatal(err)
	}
	return uint64(rev)
}

// waitForWatch waits until the audit log (from its event from on) holds
// the plugin's n-th watch that matches (its audit event, its query).
func waitForWatch(t *testing.T, audit string, from int, match func(framework.AuditEvent, url.Values) bool, n int, p *framework.BackgroundPlugin) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		seen := map[string]bool{}
		for _, e := range framework.ReadAudit(t, audit)[from:] {
			u, err := url.Parse(e.RequestURI)
			if err != nil || !strings.HasPrefix(e.UserAgent, "kubectl-watchrv/") || e.Verb != "watch" || !match(e, u.Query()) {
				continue
			}
			seen[e.AuditID] = true
		}
		if len(seen) >= n {
			return
		}
		select {
		case <-p.Done():
			t.Fatalf("the probe ended before the watch that triggers the compaction; stdout:\n%s\nstderr:\n%s", p.Stdout(), p.Stderr())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the watch that triggers the compaction is not in the audit log within a minute")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// checkBound: a bound reported is one of the windows that really existed,
// at or below the current RV reported, and the harness's own watches agree
// (one from it starts, one from the RV below gets 410); no bound reported
// is a failure that says the window moved.
func checkBound(t *testing.T, cs kubernetes.Interface, path, what string, found bool, oldest, current, errText string, windows []uint64) {
	t.Helper()
	if !found {
		if !strings.Contains(errText, "moved") {
			t.Fatalf("%s: no bound, yet no failure that says the window moved: %q", what, errText)
		}
		return
	}
	var o, cur uint64
	fmt.Sscan(oldest, &o)
	fmt.Sscan(current, &cur)
	ok := false
	for _, w := range windows {
		ok = ok || o == w
	}
	if !ok || o > cur {
		t.Fatalf("%s: oldest RV %d (current %d) is none of the windows that existed %v", what, o, cur, windows)
	}
	if len(windows) > 1 && o != windows[0] {
		return // an earlier window, no longer there to watch
	}
	if from := rawWatchFirst(t, cs, path, oldest); strings.HasPrefix(from, `{"type":"ERROR"`) {
		t.Fatalf("%s: the bound is RV %s, but a watch from it fails: %s", what, oldest, from)
	}
	if below := rawWatchFirst(t, cs, path, fmt.Sprint(o-1)); !strings.Contains(below, `"code":410`) {
		t.Fatalf("%s: the bound is RV %s, but a watch from RV %d does not get 410: %.200s", what, oldest, o-1, below)
	}
}

// checkRounds: every round of --interval that found a bound found a
// window that existed (round compactedIn found the one after the
// compaction), and the series measured a rate from them.
func checkRounds(t *testing.T, cs kubernetes.Interface, path, stdout string, code int, windows []uint64, compactedIn int) {
	t.Helper()
	var got struct {
		Rounds []struct {
			Current uint64 `json:"currentResourceVersion,string"`
			Oldest  uint64 `json:"oldestResourceVersion,string"`
			Found   bool   `json:"found"`
			Error   string `json:"error"`
		} `json:"rounds"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("probe --interval -o json is not JSON (exit %d): %v\n%s", code, err, stdout)
	}
	if len(got.Rounds) < compactedIn {
		t.Fatalf("want at least %d rounds, got %+v", compactedIn, got.Rounds)
	}
	for i, r := range got.Rounds {
		what := fmt.Sprintf("--interval round %d of %d (exit %d)", i+1, len(got.Rounds), code)
		ws := windows
		if i+1 >= compactedIn {
			ws = windows[:1] // sent after the compaction: only the new window exists
		}
		checkBound(t, cs, path, what, r.Found, fmt.Sprint(r.Oldest), fmt.Sprint(r.Current), r.Error, ws)
	}
}

// earlierVerifyShown: the watch of the first verification from rv, which
// the compaction made fail, is among the probes after the search ran again.
func earlierVerifyShown(got probeJSON, rv uint64) bool {
	for _, p := range got.ProbeDetails {
		if p.ResourceVersion == rv && p.Outcome == "expired" && strings.HasPrefix(p.Evidence, "verify, before the search again") {
			return true
		}
	}
	return false
}
