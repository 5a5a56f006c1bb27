//go:build e2e

package informerlog

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestInformerAndWatchFollowAcrossAPIServerRestart stops the API server the
// informer (and, beside it, "kubectl watchrv watch --follow") watch through,
// changes objects through a second API server on the same etcd while it is
// down (modify a, delete b, create c, delete and recreate d), and starts it
// again. The restarted watch cache begins at its new initial list, after
// the informer's last RV X: its rewatch gets 410 "too old resource
// version: X (Y)" and it relists. Then:
//   - the informer's log is checked as in the window test;
//   - what its handlers were told after the relist must equal the truth of
//     the harness's writes, and the plugin's gap report must equal it too.
func TestInformerAndWatchFollowAcrossAPIServerRestart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := framework.StartT(t, framework.APIServerOptions{})
	if _, err := c.AddAPIServer(ctx, framework.APIServerOptions{}); err != nil {
		t.Fatal(err)
	}
	cs, ns := framework.Namespace(t, c, "informer-restart")
	w := framework.ConfigMapWriter{T: t, Clientset: cs, Namespace: ns}
	created := map[string]string{} // name -> UID before the outage
	for _, n := range []string{"a", "b", "d", "e"} {
		created[n] = string(w.Create(n, nil).UID)
	}
	dir := artefactDir(t)
	p := startInformers(t, c.Kubeconfig, ns, dir)
	plugin := framework.StartPlugin(t, c.Kubeconfig, "watch", "configmaps", "-n", ns, "--follow", "-o", "json", "--timeout", "10m")
	plugin.WaitFor(`"name":"e"`, 30*time.Second)

	seenA := w.Modify("a").ResourceVersion
	p.waitSeen("a", seenA)
	plugin.WaitFor(`"resourceVersion":"`+seenA+`"`, 30*time.Second)
	marks := map[string]int{}
	x := map[string]string{}
	for _, in := range p.both() {
		recs, err := in.Records()
		if err != nil {
			t.Fatal(err)
		}
		marks[in.Name], x[in.Name] = len(recs), lastSync(t, in)
	}
	lastRV := map[string]string{}
	for _, n := range []string{"b", "d"} {
		cm, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, n, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		lastRV[n] = cm.ResourceVersion
	}

	c.StopAPIServer(0)
	other, err := c.Clientset(1)
	if err != nil {
		t.Fatal(err)
	}
	down := framework.ConfigMapWriter{T: t, Clientset: other, Namespace: ns}
	a := down.Modify("a")
	down.Remove("b")
	cc := down.Create("c", nil)
	down.Remove("d")
	d := down.Create("d", nil)
	if err := c.RestartAPIServer(ctx, 0); err != nil {
		t.Fatal(err)
	}
	p.waitRelistPast(d.ResourceVersion, 120*time.Second)
	plugin.WaitFor(`"record":"relist"`, 120*time.Second)
	// Let the relist's handler calls drain before reading them.
	time.Sleep(2 * time.Second)

	ends := map[string]int{} // the records up to here are the relist's
	for _, in := range p.both() {
		recs, err := in.Records()
		if err != nil {
			t.Fatal(err)
		}
		ends[in.Name] = len(recs)
	}

	st := rawExpired(t, cs, ns, x["informer-v4"]) // on the restarted server
	rawX, rawY := tooOld(t, st.Message)
	rawWatchStarts(t, cs, ns, rawY, func() string { return w.Modify("e").ResourceVersion })
	if code := plugin.Interrupt(30 * time.Second); code != 130 {
		t.Errorf("watch --follow: Ctrl-C must exit 130 (interrupted), got %d: %s", code, plugin.Stderr())
	}
	p.stop()
	writeFile(t, dir, "watch-follow.jsonl", plugin.Stdout())

	truth := []string{
		fmt.Sprintf("modified a %s %s->%s", created["a"], seenA, a.ResourceVersion),
		fmt.Sprintf("deleted b %s %s", created["b"], lastRV["b"]),
		fmt.Sprintf("added c %s %s", cc.UID, cc.ResourceVersion),
		fmt.Sprintf("deleted d %s %s", created["d"], lastRV["d"]),
		fmt.Sprintf("added d %s %s", d.UID, d.ResourceVersion),
	}
	sort.Strings(truth)

	t.Run("informer log", func(t *testing.T) {
		checkLogs(t, p, x, "WatchCacheWindow", "apiserver-restart-v4.log", func(f finding) {
			if y := checkWindowLine(t, f, x["informer-v4"], rawX, rawY); rvNum(t, y) < rvNum(t, d.ResourceVersion) {
				t.Errorf("line %d: Y=%s: the restarted cache's window must begin at or after the last write made while it was down (%s)", f.Line, y, d.ResourceVersion)
			}
		})
	})

	t.Run("informer relist equals the writes", func(t *testing.T) {
		for _, in := range p.both() {
			got := informerRelistDiff(t, in, marks[in.Name], ends[in.Name])
			if strings.Join(got, "\n") != strings.Join(truth, "\n") {
				t.Errorf("%s: after the relist its handlers were told\n  %s\nwant (the harness's writes while it was down)\n  %s", in.Name, strings.Join(got, "\n  "), strings.Join(truth, "\n  "))
			}
		}
	})

	t.Run("watch --follow gap equals the informer's relist", func(t *testing.T) {
		informer := informerRelistDiff(t, p.quiet, marks[p.quiet.Name], ends[p.quiet.Name])
		relists := pluginRelists(t, plugin.Stdout())
		if len(relists) != 1 {
			t.Fatalf("watch --follow: want one relist over one outage, got %d", len(relists))
		}
		rl := relists[0]
		if rl.Gap == nil || rl.Gap.Initial {
			t.Errorf("watch --follow: the relist's gap must be there and not \"initial\" (the plugin had listed before the outage): %+v", rl.Gap)
		}
		// The five writes while the server was down, a (first) to d (last),
		// all fall between the last RV the plugin saw and its new list's RV.
		if rvNum(t, rl.ListRV) < rvNum(t, d.ResourceVersion) || rl.RVsAdvanced != rvNum(t, rl.ListRV)-rvNum(t, rl.From) ||
			rl.RVsAdvanced <= rvNum(t, d.ResourceVersion)-rvNum(t, a.ResourceVersion) {
			t.Errorf("watch --follow relist from %s listed at %s (want >= %s) with clusterRVsAdvanced %d (want the difference, more than %d)",
				rl.From, rl.ListRV, d.ResourceVersion, rl.RVsAdvanced, rvNum(t, d.ResourceVersion)-rvNum(t, a.ResourceVersion))
		}
		gap := gapChanges(rl.Gap)
		missing, extra := diffSets(informer, gap)
		if len(missing) > 0 || len(extra) > 0 {
			t.Errorf("the plugin's gap report differs from what the informer's handlers were told after the same outage:\n"+
				"  informer only (missing from the gap):\n    %s\n  gap only (the informer was not told):\n    %s\n  informer: %s\n  gap:      %s",
				strings.Join(missing, "\n    "), strings.Join(extra, "\n    "), strings.Join(informer, "; "), strings.Join(gap, "; "))
		}
	})
}

// informerRelistDiff is what the informer's handlers were told in records
// [mark, end), per object identity (UID): an add, a modification (same
// UID, RV moved), a deletion (a DeletedFinalStateUnknown tombstone, or the
// old UID of an update that replaced it with a new UID: the informer keys
// by name, so a recreation arrives as one update). Updates that changed
// nothing (the relist re-delivers every unchanged object) are left out.
func informerRelistDiff(t *testing.T, in *framework.Informer, mark, end int) []string {
	t.Helper()
	recs, err := in.Records()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range recs[mark:end] {
		switch r.Type {
		case "add":
			out = append(out, fmt.Sprintf("added %s %s %s", r.Name, r.UID, r.ResourceVersion))
		case "update":
			switch {
			case r.OldUID != r.UID:
				out = append(out, fmt.Sprintf("deleted %s %s %s", r.Name, r.OldUID, r.OldResourceVersion),
					fmt.Sprintf("added %s %s %s", r.Name, r.UID, r.ResourceVersion))
			case r.OldResourceVersion != r.ResourceVersion:
				out = append(out, fmt.Sprintf("modified %s %s %s->%s", r.Name, r.UID, r.OldResourceVersion, r.ResourceVersion))
			}
		case "delete":
			if !r.Tombstone {
				t.Errorf("%s: a delete after the outage that is not a tombstone: %+v", in.Name, r)
			}
			out = append(out, fmt.Sprintf("deleted %s %s %s", r.Name, r.UID, r.ResourceVersion))
		}
	}
	sort.Strings(out)
	return out
}

// relistRecord is the part of a relist record of watch --follow -o json
// that the restart test checks.
type relistRecord struct {
	Record      string              `json:"record"`
	From        string              `json:"fromResourceVersion"`
	ListRV      string              `json:"listResourceVersion"`
	RVsAdvanced uint64              `json:"clusterRVsAdvanced"`
	Gap         *framework.WatchGap `json:"gap"`
}

// pluginRelists reads the relist records of watch --follow -o json.
func pluginRelists(t *testing.T, stdout string) []relistRecord {
	t.Helper()
	var out []relistRecord
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var r relistRecord
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("watch -o json wrote a line that is not JSON: %q", line)
		}
		if r.Record == "relist" {
			out = append(out, r)
		}
	}
	return out
}

// gapChanges is a relist's gap in the informer's terms.
func gapChanges(g *framework.WatchGap) []string {
	var out []string
	if g == nil {
		return out
	}
	for _, c := range g.Added {
		out = append(out, fmt.Sprintf("added %s %s %s", c.Name, c.UID, c.NewResourceVersion))
	}
	for _, c := range g.Modified {
		out = append(out, fmt.Sprintf("modified %s %s %s->%s", c.Name, c.UID, c.OldResourceVersion, c.NewResourceVersion))
	}
	for _, c := range g.Deleted {
		out = append(out, fmt.Sprintf("deleted %s %s %s", c.Name, c.UID, c.OldResourceVersion))
	}
	sort.Strings(out)
	return out
}

// diffSets returns what is only in a and only in b.
func diffSets(a, b []string) (onlyA, onlyB []string) {
	in := func(s []string, x string) bool {
		for _, y := range s {
			if y == x {
				return true
			}
		}
		return false
	}
	for _, x := range a {
		if !in(b, x) {
			onlyA = append(onlyA, x)
		}
	}
	for _, x := range b {
		if !in(a, x) {
			onlyB = append(onlyB, x)
		}
	}
	return onlyA, onlyB
}
