//go:build e2e

package watch

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestWatchFollowSurvivesRestartAndReportsTheGap stops the API server the
// plugin watches through, changes objects through a second API server while
// it is down, and starts it again: the plugin must reconnect with backoff,
// get Expired (the restarted watch cache starts after its last RV), relist,
// and name exactly what changed meanwhile.
func TestWatchFollowSurvivesRestartAndReportsTheGap(t *testing.T) {
	t.Parallel()
	c := framework.StartT(t, framework.APIServerOptions{})
	ctx := context.Background()
	if _, err := c.AddAPIServer(ctx, framework.APIServerOptions{}); err != nil {
		t.Fatal(err)
	}
	cs, ns := newNamespace(t, c, "watch-follow")
	w := cmWriter{t: t, cs: cs, ns: ns}
	w.create("a", nil)
	w.create("b", nil)

	p := framework.StartPlugin(t, c.Kubeconfig, "watch", "cm", "-n", ns, "--rv", "list", "--follow", "-o", "json", "--timeout", "5m")
	p.WaitFor(`"record":"listed"`, 30*time.Second)
	seenA := w.modify("a").ResourceVersion
	p.WaitFor(`"resourceVersion":"`+seenA+`"`, 30*time.Second)

	c.StopAPIServer(0)
	other, err := c.Clientset(1)
	if err != nil {
		t.Fatal(err)
	}
	down := cmWriter{t: t, cs: other, ns: ns}
	changedA := down.modify("a").ResourceVersion
	down.remove("b")
	addedC := down.create("c", nil).ResourceVersion
	p.WaitFor(`"record":"reconnect"`, 30*time.Second)
	if err := c.RestartAPIServer(ctx, 0); err != nil {
		t.Fatal(err)
	}
	p.WaitFor(`"record":"relist"`, 90*time.Second)
	after := w.modify("c").ResourceVersion
	p.WaitFor(`"resourceVersion":"`+after+`"`, 30*time.Second)
	if code := p.Interrupt(30 * time.Second); code != 130 {
		t.Fatalf("Ctrl-C must exit 130 (interrupted) after the summary, got %d: %s", code, p.Stderr())
	}

	var out watchOutput
	for _, line := range strings.Split(strings.TrimSpace(p.Stdout()), "\n") {
		var r record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("not JSON: %q", line)
		}
		out.Records = append(out.Records, r)
	}
	relists := out.of("relist")
	if len(relists) != 1 {
		t.Fatalf("want one relist, got %d:\n%s", len(relists), p.Stdout())
	}
	rl := relists[0]
	if rl.Diagnosis == nil || rl.Diagnosis.Class != "Expired" {
		t.Fatalf("the relist must be caused by an Expired, got %+v", rl.Diagnosis)
	}
	g := rl.Gap
	if g == nil || len(g.Added) != 1 || g.Added[0].Name != "c" || g.Added[0].NewResourceVersion != addedC ||
		len(g.Modified) != 1 || g.Modified[0].Name != "a" || g.Modified[0].OldResourceVersion != seenA || g.Modified[0].NewResourceVersion != changedA ||
		len(g.Deleted) != 1 || g.Deleted[0].Name != "b" {
		t.Fatalf("gap: want added c@%s, modified a %s->%s, deleted b; got %+v", addedC, seenA, changedA, g)
	}
	if rl.RVsAdvanced == 0 || rvNum(t, rl.ListResourceVersion) < rvNum(t, addedC) {
		t.Fatalf("the relist must skip RVs and list at or after %s: %+v", addedC, rl)
	}
	if len(out.of("reconnect")) == 0 {
		t.Fatalf("no reconnect record while the API server was down:\n%s", p.Stdout())
	}
	sum := out.summary(t)
	if sum.Ended != "interrupted" || sum.Relists != 1 || sum.Reconciled != 3 || sum.Reconnects == 0 || sum.Streams < 2 {
		t.Fatalf("summary: %+v", sum)
	}
	// The events of the gap itself were never delivered as events.
	for _, e := range out.events() {
		if e.ResourceVersion == changedA || e.ResourceVersion == addedC {
			t.Fatalf("an event of the gap (%s %s@%s) was delivered, the relist should be the only way to learn it", e.Type, e.Name, e.ResourceVersion)
		}
	}
}

// TestWatchFollowRelistsFromTheFutureThenConsistently: a streaming list from
// a future RV gets 504 TooLarge; --follow relists as client-go does, first
// from that RV (the watch cache answers 504 again, as an HTTP status) and
// then with resourceVersion="" as the last resort, and goes on watching.
func TestWatchFollowRelistsFromTheFutureThenConsistently(t *testing.T) {
	t.Parallel()
	s := makeSeed(t, "watch-follow-future")
	future := fmt.Sprint(rvNum(t, s.modifyC) + 100000)
	out := runWatch(t, shared.Kubeconfig, 2*time.Minute, "cm", "-n", s.ns, "--send-initial-events", "--rv", future, "--follow", "--timeout", "15s")
	if out.Code != 0 {
		t.Fatalf("--follow recovers: want exit 0, got %d: %s\n%s", out.Code, out.Stderr, out.Stdout)
	}
	relists := out.of("relist")
	if len(relists) != 1 {
		t.Fatalf("want one relist, got %d:\n%s", len(relists), out.Stdout)
	}
	rl := relists[0]
	if len(rl.Tried) != 2 || rl.Tried[0] != future || rl.Tried[1] != "" {
		t.Fatalf("the relist tries the last RV, then \"\": got %q", rl.Tried)
	}
	if rl.Diagnosis == nil || rl.Diagnosis.Class != "TooLarge" {
		t.Fatalf("the relist was caused by TooLarge, got %+v", rl.Diagnosis)
	}
	if rl.Items == nil || *rl.Items != 2 || rl.Gap == nil || len(rl.Gap.Added) != 2 {
		t.Fatalf("the consistent list finds a and c: %+v gap %+v", rl.Items, rl.Gap)
	}
	// The streaming list was answered 200 and refused by an ERROR event:
	// it sent no state, so the list is the first sight of the collection,
	// not a gap, and nothing was reconciled.
	if !rl.Gap.Initial {
		t.Errorf("the list after a refused streaming list is counted as a gap: %+v", rl.Gap)
	}
	if rvNum(t, rl.ListResourceVersion) < rvNum(t, s.modifyC) || rvNum(t, rl.ListResourceVersion) >= rvNum(t, future) {
		t.Fatalf("the list RV %s must be the real current RV", rl.ListResourceVersion)
	}
	if sum := out.summary(t); sum.Ended != "timeout" || sum.Relists != 1 || sum.ByType["ERROR"] != 1 || sum.Reconciled != 0 {
		t.Fatalf("summary: %+v", sum)
	}
}

// A --follow stream the server ends right before the run's own --timeout
// (its timeoutSeconds is the run's) is the end of the run: no reconnect
// is announced or counted in the last second (fresh user try 16: "--
// reconnect in 0.0s", then a summary of 1 stream and 1 reconnect).
func TestFollowDoesNotReconnectAtItsOwnEnd(t *testing.T) {
	t.Parallel()
	_, ns := newNamespace(t, shared, "follow-own-end")
	_, kc := frontAnswering(t, framework.EndWatchBefore(500*time.Millisecond), "front-"+ns+".kubeconfig")
	out := runWatch(t, kc, time.Minute, "cm", "-n", ns, "--follow", "--timeout", "4s")
	sum := out.summary(t)
	if out.Code != 0 || sum.Streams != 1 || sum.Reconnects != 0 || len(out.of("reconnect")) != 0 || sum.Ended != "timeout" {
		t.Fatalf("exit %d, %d stream(s), %d reconnect(s), ended %q; want 0, 1, 0, timeout:\n%s\n%s", out.Code, sum.Streams, sum.Reconnects, sum.Ended, out.Stdout, out.Stderr)
	}
}
