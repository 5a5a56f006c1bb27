//go:build e2e

package list

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// A paged list whose continue token expires on a real server (watch cache
// off, etcd compacted while the plugin walks): with --no-restart it is a
// part of the list, and every output says so; with or without a restart,
// "Served by" counts the storage requests the server counted, the
// continue request answered 410 included (fresh user try 22 F3: -o json
// suggested a watch, the text said "Items: 149", "Page RVs: all 149
// pages", nothing of the list being incomplete, and "149 storage
// requests" where the server counted 150).
func TestAnExpiredContinueTokenIsNoListAndIsCounted(t *testing.T) {
	ctx := context.Background()
	c := framework.StartT(t, framework.APIServerOptions{DisableWatchCache: true})
	cs, ns := framework.Namespace(t, c, "expired")
	if err := framework.CreateConfigMaps(ctx, cs, ns, "cm", 250, 16, 8); err != nil {
		t.Fatal(err)
	}
	bumps := 0
	for _, run := range []struct {
		flags []string
		code  int
	}{
		{[]string{"--no-restart"}, 10},
		{[]string{"--no-restart", "-o", "json"}, 10},
		{[]string{"--no-restart", "-o", "name"}, 10},
		{[]string{"-o", "json"}, 0},
		{nil, 0},
	} {
		t.Run(strings.Join(run.flags, " "), func(t *testing.T) {
			before := storageLists(t, c)
			p := framework.StartPlugin(t, c.Kubeconfig, append([]string{"list", "cm", "-n", ns, "--limit", "1"}, run.flags...)...)
			for deadline := time.Now().Add(time.Minute); storageLists(t, c) < before+20; time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("fewer than 20 storage lists in a minute; stderr:\n%s", p.Stderr())
				}
			}
			// A write moves etcd's revision past the list's; compaction
			// there expires the walk's continue token.
			bumps++
			if err := framework.CreateConfigMaps(ctx, cs, "default", fmt.Sprintf("bump%d", bumps), 1, 8, 1); err != nil {
				t.Fatal(err)
			}
			rev, err := c.EtcdRevision(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Compact(ctx, rev); err != nil {
				t.Fatal(err)
			}
			code := p.Wait(2 * time.Minute)
			server := storageLists(t, c) - before
			out := p.Stdout()
			if code != run.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, run.code, p.Stderr())
			}
			if !strings.Contains(p.Stderr(), "continue token expired") && !strings.Contains(p.Stderr(), "restarted from page 1 once") {
				t.Fatalf("the compaction did not expire the walk's continue token (it ended first?); stderr:\n%s", p.Stderr())
			}
			isJSON := len(run.flags) > 0 && run.flags[len(run.flags)-1] == "json"
			switch {
			case run.code == 10:
				o := []string{}
				if len(run.flags) == 3 {
					o = run.flags[1:]
				}
				notShownAsTheList(t, o, out)
			case isJSON:
				if strings.Contains(out, `"incomplete"`) || !strings.Contains(out, `"watchCommand"`) || !strings.Contains(out, `"restarted": true`) {
					t.Errorf("a restarted walk that ended is the list:\n%s", out)
				}
			}
			if run.code == 10 && len(run.flags) == 3 && run.flags[2] == "name" {
				return
			}
			if said := storageRequestsSaid(t, out, isJSON); said != server {
				t.Errorf("Served by says %g storage request(s); the server's apiserver_storage_list_total rose by %g\n%s", said, server, out)
			}
		})
	}
}

var storageCount = regexp.MustCompile(`\((\d+) storage requests?[,:)]`)

// storageRequestsSaid is the count of storage requests the report says,
// from -o json (isJSON) or from the human "Served by" line.
func storageRequestsSaid(t *testing.T, out string, isJSON bool) float64 {
	t.Helper()
	if isJSON {
		var r struct {
			ServedBy struct {
				StorageRequests *float64 `json:"storageRequests"`
			} `json:"servedBy"`
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil || r.ServedBy.StorageRequests == nil {
			t.Fatalf("no servedBy.storageRequests (%v):\n%s", err, out)
		}
		return *r.ServedBy.StorageRequests
	}
	for _, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, "Served by:") {
			continue
		}
		if m := storageCount.FindStringSubmatch(l); m != nil {
			n, _ := strconv.ParseFloat(m[1], 64)
			return n
		}
		t.Fatalf("the Served by line counts no storage request: %s", l)
	}
	t.Fatalf("no Served by line:\n%s", out)
	return 0
}
