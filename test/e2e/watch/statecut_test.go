//go:build e2e

package watch

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// stateCutObjects is the size of the collection whose initial state is cut:
// large enough that 60 KB is a small part of it (a metadata-only ADDED is
// about 450 bytes), so most of the state is not sent yet when it breaks.
const stateCutObjects = 3000

// TestWatchFollowRelistsWhenTheInitialStateIsCut cuts the connection of a
// watch --follow after 60 KB of its initial state (RV unset, 0, or a
// streaming list) over 3,000 configmaps written by 8 writers at once, so
// that the state's key order is not its RV order. Resuming from the highest
// RV seen (what the plugin did) loses every object the state had not sent
// yet; the session must relist instead, as a Reflector does, say why, and
// so deliver or reconcile every object.
func TestWatchFollowRelistsWhenTheInitialStateIsCut(t *testing.T) {
	t.Parallel()
	cs, ns := newNamespace(t, shared, "watch-statecut")
	if err := framework.CreateConfigMaps(t.Context(), cs, ns, "cm", stateCutObjects, 10, 8); err != nil {
		t.Fatal(err)
	}
	api, err := url.Parse(shared.APIServers[0].URL)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []struct {
		name string
		args []string
	}{
		{"rv-unset", nil},
		{"rv-0", []string{"--rv", "0"}},
		{"send-initial-events", []string{"--send-initial-events"}},
	} {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			link, err := framework.StartPausableLink(api.Host)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { link.Close() })
			kc, err := shared.WriteKubeconfigFor("statecut-"+v.name, "https://"+link.Addr(), shared.APIServers[0].CAFile, framework.AdminToken)
			if err != nil {
				t.Fatal(err)
			}
			// One run (one item: --rv-only) fills the discovery cache of this HOME: the watch run
			// then sends nothing before its watch, and 60 KB fall inside the
			// initial state.
			home := t.TempDir()
			if r := framework.RunInHome(t, home, kc, nil, time.Minute, "list", "cm", "-n", ns, "--rv-only"); r.Code != 0 {
				t.Fatalf("warming the discovery cache: exit %d: %s", r.Code, r.Stderr)
			}
			cut := link.CutAfter(60 << 10)
			// --stall-timeout given, and not above the watch cache's
			// bookmark period: the run reads no /metrics (what the plugin
			// knows of the server decides only whether a longer silence is
			// a hang), so the first bytes after the cache are the watch's.
			args := append([]string{"watch", "cm", "-n", ns, "--follow", "--timeout", "25s", "--stall-timeout", "60s", "-o", "json"}, v.args...)
			r := framework.RunInHome(t, home, kc, nil, 2*time.Minute, args...)
			select {
			case <-cut:
			default:
				t.Fatalf("the link was never cut (%d bytes sent): the test proves nothing\n%s", link.BytesToClients(), r.Stderr)
			}
			checkStateCut(t, r)
		})
	}
}

// cutRecord is what checkStateCut reads of each line of watch -o json.
type cutRecord struct {
	Record              string              `json:"record"`
	Type                string              `json:"type"`
	Name                string              `json:"name"`
	Reason              string              `json:"reason"`
	ListResourceVersion string              `json:"listResourceVersion"`
	Gap                 *framework.WatchGap `json:"gap"`
	InitialEventsEnd    bool                `json:"initialEventsEnd"`
	// summary
	Relists             int    `json:"relists"`
	Reconciled          int    `json:"reconciledByRelist"`
	Ended               string `json:"ended"`
	LastResourceVersion string `json:"lastResourceVersion"`
	ResumeFrom          string `json:"resumeFrom"`
}

func checkStateCut(t *testing.T, r framework.Result) {
	t.Helper()
	if r.Code != 0 {
		t.Fatalf("--follow recovers from a cut: want exit 0, got %d: %s\n%s", r.Code, r.Stderr, tail(r.Stdout, 20))
	}
	seen := map[string]bool{}
	var relists []cutRecord
	var sum *cutRecord
	var modifiedUnseen int
	for _, line := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
		var rec cutRecord
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("not JSON: %q", line)
		}
		switch rec.Record {
		case "event":
			if rec.Type == "MODIFIED" && !seen[rec.Name] {
				modifiedUnseen++
			}
			if rec.Type == "ADDED" || rec.Type == "MODIFIED" {
				seen[rec.Name] = true
			}
		case "relist":
			relists = append(relists, rec)
			if rec.Gap != nil {
				for _, c := range append(append([]framework.GapChange{}, rec.Gap.Added...), rec.Gap.Modified...) {
					seen[c.Name] = true
				}
			}
		case "summary":
			sum = &rec
		}
	}
	if sum == nil {
		t.Fatalf("no summary:\n%s", tail(r.Stdout, 20))
	}
	var missing []string
	for i := 0; i < stateCutObjects; i++ {
		if n := fmt.Sprintf("cm-%d", i); !seen[n] {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 || modifiedUnseen > 0 {
		t.Errorf("%d of %d objects neither delivered nor reconciled (e.g. %v), %d MODIFIED for objects never ADDED; %d relist(s)",
			len(missing), stateCutObjects, missing[:min(5, len(missing))], modifiedUnseen, len(relists))
	}
	if len(relists) != 1 || sum.Relists != 1 {
		t.Fatalf("want exactly one relist (the cut), got %d records, summary %d:\n%s", len(relists), sum.Relists, tail(r.Stdout, 10))
	}
	rl := relists[0]
	if rl.Gap == nil || !rl.Gap.NoResumePoint || rl.Gap.Initial || rl.Gap.StateObjectsSent == 0 || rl.Gap.StateObjectsSent >= stateCutObjects ||
		len(rl.Gap.Added) != stateCutObjects-rl.Gap.StateObjectsSent {
		t.Errorf("the gap must say the state was cut after some of it and name the rest as added: %+v", rl.Gap)
	}
	if !strings.Contains(rl.Reason, "key order, not RV order") {
		t.Errorf("the relist's reason must say why the highest RV seen is no resume point: %q", rl.Reason)
	}
	if sum.Reconciled != len(rl.Gap.Added)+len(rl.Gap.Modified)+len(rl.Gap.Deleted) {
		t.Errorf("summary reconciled %d, gap %+v", sum.Reconciled, rl.Gap)
	}
	// No write to configmaps after the list: the resume point is the List's
	// RV, or a later bookmark's (the cluster's RV moves with other
	// resources' writes, and a bookmark carries it).
	listRV, _ := strconv.ParseUint(rl.ListResourceVersion, 10, 64)
	lastRV, _ := strconv.ParseUint(sum.LastResourceVersion, 10, 64)
	resumed := (sum.ResumeFrom == "list" && lastRV == listRV) || (sum.ResumeFrom == "bookmark" && lastRV >= listRV)
	if sum.Ended != "timeout" || listRV == 0 || !resumed {
		t.Errorf("summary: ended %q, last %q (%s), want timeout and the List's RV %s", sum.Ended, sum.LastResourceVersion, sum.ResumeFrom, rl.ListResourceVersion)
	}
}

// tail is the last n lines of s, for failure messages.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
