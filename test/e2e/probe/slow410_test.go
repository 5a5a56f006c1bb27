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

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// Fresh user try 19 #1: the watch cache off for configmaps, storage
// compacted, and storage's 410 slower than --probe-wait (a loaded etcd
// answers a watch from a compacted RV only on a later sync): a watch from
// RV 1 stays silent for the whole wait, and probe said "nothing has
// expired, oldest RV 1" (SOURCE none). A front holds the body of every
// configmaps watch of the real server for 400ms (its headers at once),
// so the real 410 always comes after a --probe-wait of 100ms. Every command that
// measures the window (probe, probe --all, probe --endpoints) must find
// the compaction, never claim RV 1 on silence alone.
func TestProbeSlowStorage410IsNeverNothingExpired(t *testing.T) {
	ctx := context.Background()
	c := framework.StartT(t, framework.APIServerOptions{WatchCacheSizes: "configmaps#0"})
	cs, ns := newNamespace(t, c, "probe-slow410")
	_, busy := newNamespace(t, c, "probe-slow410-writes")
	if err := framework.CreateConfigMaps(ctx, cs, busy, "w", 60, 16, 4); err != nil {
		t.Fatal(err)
	}
	rev, err := c.EtcdRevision(ctx)
	if err != nil {
		t.Fatal(err)
	}
	R := rev - 10
	if err := c.Compact(ctx, R); err != nil {
		t.Fatal(err)
	}
	// The watch cache drops its snapshots below storage's compaction on
	// its next poll of it (every 15 s, k8s.io/apiserver cacher
	// compactor.go): from then on exact lists at RV 2 are storage's (410)
	// for the resources whose watch cache still starts a watch from RV 1,
	// and /metrics tells that a watch cache serves them.
	time.Sleep(16 * time.Second)
	front := framework.StartWatchFront(t, c.APIServers[0])
	// Longer than --probe-wait: storage's 410 always comes after it.
	front.Delay(400*time.Millisecond, "configmaps")
	kc := front.Kubeconfig(t, c, "slow410")
	path := "/api/v1/namespaces/" + ns + "/configmaps"
	if line := rawWatchFirst(t, cs, path, "1"); !strings.Contains(line, "too old") {
		t.Fatalf("the real server must refuse a watch from RV 1 after the compaction at %d: %q", R, line)
	}
	want := fmt.Sprint(R - 1)
	check := func(cmd string, got probeJSON) {
		t.Helper()
		if got.Source == "none" || got.BoundBy == "nothing-expired" || got.OldestResourceVersion == "1" {
			t.Fatalf("%s: storage's late 410 was taken for a started watch: %+v", cmd, got)
		}
		if !got.Found || got.OldestResourceVersion != want || got.Source != "storage" {
			t.Fatalf("%s: want oldest %s (storage compacted at %d), got %+v", cmd, want, R, got)
		}
	}

	one, _ := runProbeJSON(t, kc, 0, "configmaps", "-n", ns, "--qps", "100", "--probe-wait", "100ms")
	check("probe", one)

	all := runAllJSON(t, kc, 0, "-n", ns, "--qps", "100", "--probe-wait", "100ms")
	found, twice := false, 0
	for _, row := range all.Resources {
		if row.Resource == "csidrivers.storage.k8s.io" {
			t.Logf("probe --all: %s: %+v", row.Resource, row.ProbeDetails)
		}
		if row.Source == "none" && row.Requests > 1 {
			// one watch (and the run's current RV for the first row): the
			// run's one /metrics read (shared) shows the watch cache
			// that serves it
			if twice++; twice > 1 || row.Requests > 2 {
				t.Errorf("probe --all: %s: %d requests to confirm a silent start", row.Resource, row.Requests)
			}
		}
		if row.Resource == "configmaps" {
			found = true
			check("probe --all", row)
		}
	}
	if !found {
		t.Fatal("probe --all has no configmaps row")
	}

	u, err := url.Parse(front.URL)
	if err != nil {
		t.Fatal(err)
	}
	r := framework.Run(t, kc, 2*time.Minute, "probe", "configmaps", "-n", ns, "--qps", "100", "--probe-wait", "100ms", "-o", "json", "--endpoints", u.Host)
	if r.Code != 0 {
		t.Fatalf("probe --endpoints: exit %d: %s", r.Code, r.Stderr)
	}
	var view struct {
		Servers []struct {
			Oldest string `json:"oldestResourceVersion"`
			Source string `json:"source"`
		} `json:"servers"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &view); err != nil || len(view.Servers) != 1 {
		t.Fatalf("probe --endpoints -o json: %v\n%s", err, r.Stdout)
	}
	if s := view.Servers[0]; s.Oldest != want || s.Source != "storage" {
		t.Fatalf("probe --endpoints: want oldest %s from storage, got %+v", want, s)
	}
	onlyReads(t, c.APIServers[0].AuditLog)
}

// The other side of try 19 #1 (a false "expired" must not replace the
// false "nothing has expired"): a fresh server whose storage its own
// compactor compacted, on a quiet resource whose watch cache started at
// RV 1 and never evicted. A watch from RV 1 starts (the watch cache holds
// the whole history) and is silent (nothing in the namespace), while an
// exact list at RV 2 is storage's 410 (the cache dropped its snapshots
// below the compaction). /metrics shows the watch cache (one more request);
// a user who may not read it gets the longer watch, silent for its 10 s.
func TestProbeSilentStartOnAServerThatCompactedItsStorage(t *testing.T) {
	ctx := context.Background()
	c := framework.StartT(t, framework.APIServerOptions{CompactionInterval: 2 * time.Second})
	cs, ns := newNamespace(t, c, "probe-fresh-compacted")
	_, busy := newNamespace(t, c, "probe-fresh-writes")
	if err := framework.CreateConfigMaps(ctx, cs, busy, "w", 30, 16, 4); err != nil {
		t.Fatal(err)
	}
	path := "/api/v1/namespaces/" + ns + "/configmaps"
	if line := rawWatchFirst(t, cs, path, "1"); line != "" {
		t.Fatalf("this test needs the configmaps watch cache to start a watch from RV 1 (started on a fresh etcd, nothing evicted): %q", line)
	}
	// Storage compacted, and the watch cache's exact lists are storage's.
	deadline := time.Now().Add(time.Minute)
	for {
		err := cs.CoreV1().RESTClient().Get().AbsPath(path).Param("resourceVersion", "2").Param("resourceVersionMatch", "Exact").Param("limit", "1").Do(ctx).Error()
		if err != nil && strings.Contains(err.Error(), "too old") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("an exact list at RV 2 still answers a minute after the compactions began: %v", err)
		}
		time.Sleep(time.Second)
	}
	if line := rawWatchFirst(t, cs, path, "1"); line != "" {
		t.Fatalf("the watch from RV 1 must still start (the watch cache holds RV 1): %q", line)
	}

	got, _ := runProbeJSON(t, c.Kubeconfig, 0, "configmaps", "-n", ns, "--qps", "100")
	if !got.Found || got.OldestResourceVersion != "1" || got.Source != "none" || got.Requests != 4 {
		t.Fatalf("want oldest 1 (nothing expired) after the current RV, the watch, the exact list and /metrics, got %+v", got)
	}
	if ev := got.ProbeDetails[0].Evidence; !strings.Contains(ev, "watch_cache_capacity series for configmaps") {
		t.Fatalf("the start must say /metrics confirmed it: %q", ev)
	}

	framework.GrantConfigMapReading(t, cs, ns, "nobody")
	var r framework.Result
	for i := 0; i < 20; i++ { // RBAC reaches the authorizer's cache within a moment
		if r = framework.Run(t, c.UserKubeconfig, time.Minute, "probe", "configmaps", "-n", ns, "--qps", "100", "-o", "json"); r.Code != 7 {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	var user probeJSON
	if err := json.Unmarshal([]byte(r.Stdout), &user); r.Code != 0 || err != nil {
		t.Fatalf("probe as a user without /metrics: exit %d: %v\n%s%s", r.Code, err, r.Stdout, r.Stderr)
	}
	if !user.Found || user.OldestResourceVersion != "1" || user.Source != "none" || user.Requests != 5 {
		t.Fatalf("want oldest 1 after the longer watch, got %+v", user)
	}
	if ev := user.ProbeDetails[0].Evidence; !strings.Contains(ev, "no error within 10") {
		t.Fatalf("the start must say the longer watch confirmed it: %q", ev)
	}
	onlyReads(t, c.APIServers[0].AuditLog)
}
