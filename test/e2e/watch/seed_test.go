//go:build e2e

package watch

import (
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// seed is the seed experiment's history: create a, create b, modify a,
// delete b, create c, modify c.
type seed struct {
	ns                                 string
	createB, modifyA, createC, modifyC string
	uidA, uidB, uidC                   string
}

func makeSeed(t *testing.T, name string) seed {
	cs, ns := newNamespace(t, shared, name)
	w := cmWriter{t: t, cs: cs, ns: ns}
	s := seed{ns: ns}
	s.uidA = string(w.create("a", nil).UID)
	b := w.create("b", nil)
	s.createB, s.uidB = b.ResourceVersion, string(b.UID)
	s.modifyA = w.modify("a").ResourceVersion
	w.remove("b")
	c := w.create("c", nil)
	s.createC, s.uidC = c.ResourceVersion, string(c.UID)
	s.modifyC = w.modify("c").ResourceVersion
	return s
}

func TestWatchFromCreationRVGetsExactlyTheLaterChanges(t *testing.T) {
	t.Parallel()
	s := makeSeed(t, "watch-seed")
	out := runWatch(t, shared.Kubeconfig, time.Minute, "configmaps", "-n", s.ns, "--rv", s.createB, "--timeout", "3s")
	if out.Code != 0 {
		t.Fatalf("exit %d: %s", out.Code, out.Stderr)
	}
	evs := out.events()
	want := []struct{ typ, name, rv, uid string }{
		{"MODIFIED", "a", s.modifyA, s.uidA},
		{"DELETED", "b", "", s.uidB},
		{"ADDED", "c", s.createC, s.uidC},
		{"MODIFIED", "c", s.modifyC, s.uidC},
	}
	if len(evs) != len(want) {
		t.Fatalf("from b's creation RV %s want exactly 4 events, got %s", s.createB, describe(evs))
	}
	for i, w := range want {
		e := evs[i]
		if e.Type != w.typ || e.Name != w.name || e.UID != w.uid || e.Namespace != s.ns {
			t.Fatalf("event %d: want %s %s (uid %s), got %s %s (uid %s)", i, w.typ, w.name, w.uid, e.Type, e.Name, e.UID)
		}
		if w.rv != "" && e.ResourceVersion != w.rv {
			t.Fatalf("event %d (%s %s): want the RV of that change %s, got %s", i, w.typ, w.name, w.rv, e.ResourceVersion)
		}
		if e.SinceStart == nil || *e.SinceStart <= 0 {
			t.Fatalf("event %d: a change after the start RV must have sinceStart > 0, got %v", i, e.SinceStart)
		}
	}
	// The deletion happened between "modify a" and "create c".
	if d := rvNum(t, evs[1].ResourceVersion); d <= rvNum(t, s.modifyA) || d >= rvNum(t, s.createC) {
		t.Fatalf("DELETED b carries RV %s, want one between %s and %s", evs[1].ResourceVersion, s.modifyA, s.createC)
	}
	sum := out.summary(t)
	if sum.Ended != "timeout" || sum.Events != 4 || sum.ByType["MODIFIED"] != 2 || sum.ByType["DELETED"] != 1 || sum.ByType["ADDED"] != 1 {
		t.Fatalf("summary: %+v", sum)
	}

	// From the current RV (the last change of the namespace): nothing.
	now := runWatch(t, shared.Kubeconfig, time.Minute, "configmaps", "-n", s.ns, "--rv", s.modifyC, "--timeout", "2s")
	if n := len(now.events()); n != 0 || now.Code != 0 {
		t.Fatalf("from the current RV want no event, got %s (exit %d)", describe(now.events()), now.Code)
	}
}

func TestWatchFromZeroAndUnsetGivesOnlyLiveObjects(t *testing.T) {
	t.Parallel()
	s := makeSeed(t, "watch-state")
	for _, args := range [][]string{{"--rv", "0"}, {}} {
		out := runWatch(t, shared.Kubeconfig, time.Minute, append([]string{"cm", "-n", s.ns, "--timeout", "2s"}, args...)...)
		evs := out.events()
		if out.Code != 0 || len(evs) != 2 {
			t.Fatalf("%v: want ADDED a and ADDED c, got %s (exit %d: %s)", args, describe(evs), out.Code, out.Stderr)
		}
		got := map[string]string{}
		for _, e := range evs {
			if e.Type != "ADDED" {
				t.Fatalf("%v: state is delivered as ADDED only, got %s", args, describe(evs))
			}
			got[e.Name] = e.ResourceVersion
		}
		if got["a"] != s.modifyA || got["c"] != s.modifyC {
			t.Fatalf("%v: want a@%s and c@%s (the live objects, never the deleted b), got %v", args, s.modifyA, s.modifyC, got)
		}
	}
}

func TestWatchStreamingListEndsWithInitialEventsBookmark(t *testing.T) {
	t.Parallel()
	s := makeSeed(t, "watch-sie")
	out := runWatch(t, shared.Kubeconfig, time.Minute, "cm", "-n", s.ns, "--send-initial-events", "--until", "BOOKMARK", "--timeout", "20s")
	evs := out.events()
	if out.Code != 0 || len(evs) != 3 {
		t.Fatalf("want ADDED a, ADDED c, BOOKMARK; got %s (exit %d: %s)", describe(evs), out.Code, out.Stderr)
	}
	end := evs[2]
	if end.Type != "BOOKMARK" || !end.InitialEventsEnd || end.InitialObjects == nil || *end.InitialObjects != 2 {
		t.Fatalf("the last event must be the initial-events-end bookmark with 2 objects, got %+v", end)
	}
	if rvNum(t, end.ResourceVersion) < rvNum(t, s.modifyC) {
		t.Fatalf("the bookmark's RV %s is older than the state it ends (%s)", end.ResourceVersion, s.modifyC)
	}
	if sum := out.summary(t); sum.Ended != "until" {
		t.Fatalf("--until BOOKMARK must end the watch, ended %q", sum.Ended)
	}
	// The human form prints the marker.
	human := framework.Run(t, shared.Kubeconfig, time.Minute, "watch", "cm", "-n", s.ns, "--send-initial-events", "--until", "BOOKMARK", "--timeout", "20s")
	if !strings.Contains(human.Stdout, "initial state complete at RV "+end.ResourceVersion+": 2 objects") &&
		!strings.Contains(human.Stdout, "initial state complete at RV") {
		t.Fatalf("no initial-state marker in:\n%s", human.Stdout)
	}
}

func TestWatchListFirstStartsAtTheListRV(t *testing.T) {
	t.Parallel()
	s := makeSeed(t, "watch-listfirst")
	out := runWatch(t, shared.Kubeconfig, time.Minute, "cm", "-n", s.ns, "--rv", "list", "--timeout", "2s")
	listed := out.of("listed")
	if out.Code != 0 || len(listed) != 1 || listed[0].Items == nil || *listed[0].Items != 2 {
		t.Fatalf("want one listed record with 2 items, got %+v (exit %d: %s)", listed, out.Code, out.Stderr)
	}
	if rvNum(t, listed[0].ListResourceVersion) < rvNum(t, s.modifyC) {
		t.Fatalf("the List RV %s is older than the last write %s", listed[0].ListResourceVersion, s.modifyC)
	}
	if n := len(out.events()); n != 0 {
		t.Fatalf("nothing changed after the list: want no event, got %s", describe(out.events()))
	}
	if sum := out.summary(t); sum.Ended != "timeout" {
		t.Fatalf("summary: %+v", sum)
	}
}

func TestWatchHumanOutputAndBadInput(t *testing.T) {
	t.Parallel()
	s := makeSeed(t, "watch-human")
	r := framework.Run(t, shared.Kubeconfig, time.Minute, "watch", "cm", "-n", s.ns, "--rv", s.createB, "--max-events", "2")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	for _, want := range []string{"TYPE", "MODIFIED", s.ns + "/a", "DELETED", s.ns + "/b", s.uidA[:8], "Summary (stopped at --max-events after", "2 (MODIFIED 1, DELETED 1)"} {
		if !strings.Contains(r.Stdout, want) {
			t.Fatalf("human output lacks %q:\n%s", want, r.Stdout)
		}
	}
	if strings.Contains(r.Stdout, s.uidA) {
		t.Fatalf("the table shows whole UIDs; it should shorten them:\n%s", r.Stdout)
	}
	for _, args := range [][]string{
		{"watch"},
		{"watch", "cm", "--rv", "yesterday"},
		{"watch", "cm", "--until", "CHANGED"},
		{"watch", "cm", "--explain-deletes"},
		{"watch", "cm", "--timeout", "-1s"},
		{"watch", "cm", "--rv", "list", "--send-initial-events"},
		{"watch", "cm", "-o", "table"},
	} {
		bad := framework.Run(t, shared.Kubeconfig, time.Minute, args...)
		if bad.Code != 2 || strings.Count(strings.TrimSpace(bad.Stderr), "\n") != 0 || !strings.HasPrefix(bad.Stderr, "error: ") {
			t.Fatalf("%v: want exit 2 and one error line, got %d: %q", args, bad.Code, bad.Stderr)
		}
	}
	nf := framework.Run(t, shared.Kubeconfig, time.Minute, "watch", "nosuchthings", "--timeout", "20s") // it fails at discovery: the bound only caps a hang, and discovery under load can take over a second
	if nf.Code != 9 {
		t.Fatalf("unknown resource: want exit 9, got %d: %s", nf.Code, nf.Stderr)
	}
}
