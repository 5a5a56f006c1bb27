//go:build e2e

package faults

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// etcd compacted again while probe searches (watch cache off, so etcd
// answers every probe): the answer must be one of the two real windows
// (R1-1 before, R2-1 after; a watch from N needs revisions from N+1), never
// a bound moved by the change, and a second probe must find the new one.
func TestProbeDuringEtcdCompaction(t *testing.T) {
	ctx := context.Background()
	c := framework.StartT(t, framework.APIServerOptions{WatchCacheSizes: "configmaps#0"})
	cs, ns := framework.Namespace(t, c, "compact-probe")
	if err := framework.CreateConfigMaps(ctx, cs, ns, "before", 200, 8, 4); err != nil {
		t.Fatal(err)
	}
	r1, err := c.EtcdRevision(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Compact(ctx, r1); err != nil {
		t.Fatal(err)
	}
	if err := framework.CreateConfigMaps(ctx, cs, ns, "after", 200, 8, 4); err != nil {
		t.Fatal(err)
	}
	r2, err := c.EtcdRevision(ctx)
	if err != nil {
		t.Fatal(err)
	}

	var wg sync.WaitGroup
	wg.Add(1)
	var compactErr error
	go func() {
		defer wg.Done()
		time.Sleep(1500 * time.Millisecond) // mid-search: at --qps 2 (burst 2) the search takes about 5 s
		compactErr = c.Compact(ctx, r2)
	}()
	r := framework.Run(t, c.Kubeconfig, 2*time.Minute, "probe", "configmaps", "-n", ns, "--qps", "2", "-o", "json")
	wg.Wait()
	if compactErr != nil {
		t.Fatal(compactErr)
	}
	oldest := probeOldest(t, r)
	before, after := fmt.Sprint(r1-1), fmt.Sprint(r2-1)
	if oldest != before && oldest != after {
		t.Fatalf("probe during compaction answered %s: neither the window before (%s) nor after (%s)", oldest, before, after)
	}
	t.Logf("probe during compaction: %s (before %s, after %s)", oldest, before, after)

	again := framework.Run(t, c.Kubeconfig, 2*time.Minute, "probe", "configmaps", "-n", ns, "--qps", "100", "--verify", "-o", "json")
	if got := probeOldest(t, again); got != after {
		t.Fatalf("after compaction at %d the oldest startable RV is %s, probe said %s", r2, after, got)
	}
}

func probeOldest(t *testing.T, r framework.Result) string {
	t.Helper()
	if r.Code != 0 {
		t.Fatalf("probe: exit %d: %s", r.Code, r.Stderr)
	}
	var out struct {
		OldestResourceVersion string `json:"oldestResourceVersion"`
		Source                string `json:"source"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil {
		t.Fatalf("probe -o json: %v\n%s", err, r.Stdout)
	}
	if out.Source != "storage" {
		t.Fatalf("with the watch cache off storage (here etcd) answers, probe said %q", out.Source)
	}
	return out.OldestResourceVersion
}
