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
	w := writer{t: t, cs: cs, ns: ns}
	created := map[string]string{} // name -> UID before the outage
	for _, n := range []string{"a", "b", "d", "e"} {
		created[n] = string(w.create(n).UID)
	}
	dir := artefactDir(t)
	p := startInformers(t, c.Kubeconfig, ns, dir)
	plugin := framework.StartPlugin(t, c.Kubeconfig, "watch", "configmaps", "-n", ns, "--follow", "-o", "json", "--timeout", "10m")
	plugin.WaitFor(`"name":"e"`, 30*time.Second)

	seenA := w.modify("a").ResourceVersion
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
		cm, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, n, getOpts)
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
	down := writer{t: t, cs: other, ns: ns}
	a := down.modify("a")
	down.remove("b")
	cc := down.create("c")
	down.remove("d")
	d := down.create("d")
	if err := c.RestartAPIServer(ctx, 0); err != nil {
		t.Fatal(err)
	}
	for _, in := range p.both() {
		p.waitFor(in, 120*time.Second, "the relist past "+d.ResourceVersion, func(r framework.InformerRecord) bool {
			return r.Type == "lastSync" && rvNum(t, r.ResourceVersion) >= rvNum(t, d.ResourceVersion)
		})
	}
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

	st := rawWatchError(t, cs, ns, x["informer-v4"])
	t.Logf("raw watch from X=%s on the restarted server: %d %s %q", x["informer-v4"], st.Code, st.Reason, st.Message)
	if st.Code != 410 || st.Reason != "Expired" {
		t.Fatalf("a raw watch from %s: want 410 Expired, got %d %s: %s", x["informer-v4"], st.Code, st.Reason, st.Message)
	}
	rawX, rawY := tooOld(t, st.Message)
	rawWatchStarts(t, cs, ns, rawY, func() string { return w.modify("e").ResourceVersion })
	if code := plugin.Interrupt(30 * time.Second); code != 130 {
		t.Errorf("watch --follow: Ctrl-C must exit 0, got %d: %s", code, plugin.Stderr())
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
		for _, in := range p.both() {
			checkRewatchThenRelist(t, in, x[in.Name])
		}
		verbose := scanLog(t, p.verbose)
		window := ofKind(verbose, "WatchCacheWindow")
		if len(window) == 0 {
			t.Fatalf("informer-v4: no \"too old resource version\" line in its log:\n%s", readFile(p.verbose.LogPath))
		}
		for _, f := range window {
			lx, ly := tooOld(t, f.Text)
			if lx != x["informer-v4"] || lx != rawX || ly != rawY {
				t.Errorf("line %d: %q: want X = the informer's last RV %s (raw watch: %s) and Y = the restarted server's oldest RV %s", f.Line, f.Text, x["informer-v4"], rawX, rawY)
			}
			if rvNum(t, ly) < rvNum(t, d.ResourceVersion) {
				t.Errorf("line %d: Y=%s: the restarted cache's window must begin at or after the last write made while it was down (%s)", f.Line, ly, d.ResourceVersion)
			}
			checkWindowNumbers(t, f, lx, ly)
		}
		onlyRVErrorKind(t, p.verbose, verbose, "WatchCacheWindow")
		checkQuietLog(t, p.quiet, scanLog(t, p.quiet))
		keepForTestdata(t, p.verbose.LogPath, "apiserver-restart-v4.log")
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
		gap, relists := pluginGap(t, plugin.Stdout())
		if relists != 1 {
			t.Errorf("watch --follow: want one relist over one outage, got %d", relists)
		}
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

// pluginGap reads the gap of every relist record of watch --follow -o json,
// in the informer's terms.
func pluginGap(t *testing.T, stdout string) ([]string, int) {
	t.Helper()
	type change struct {
		Name string `json:"name"`
		UID  string `json:"uid"`
		Old  string `json:"oldResourceVersion"`
		New  string `json:"newResourceVersion"`
	}
	var out []string
	relists := 0
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var r struct {
			Record string `json:"record"`
			Gap    *struct {
				Added    []change `json:"added"`
				Modified []change `json:"modified"`
				Deleted  []change `json:"deleted"`
			} `json:"gap"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("watch -o json wrote a line that is not JSON: %q", line)
		}
		if r.Record != "relist" {
			continue
		}
		relists++
		if r.Gap == nil {
			continue
		}
		for _, c := range r.Gap.Added {
			out = append(out, fmt.Sprintf("added %s %s %s", c.Name, c.UID, c.New))
		}
		for _, c := range r.Gap.Modified {
			out = append(out, fmt.Sprintf("modified %s %s %s->%s", c.Name, c.UID, c.Old, c.New))
		}
		for _, c := range r.Gap.Deleted {
			out = append(out, fmt.Sprintf("deleted %s %s %s", c.Name, c.UID, c.Old))
		}
	}
	sort.Strings(out)
	return out, relists
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
