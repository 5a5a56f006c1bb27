//go:build e2e

package watch

import (
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// Fresh user try 24 F1: with --stall-timeout under the bookmark period,
// the first quiet reconnect said the generic rule ("from the watch cache;
// none from storage") on both servers, and only later ones the server's
// case (on the cache-off server). Every stall line, the first included,
// draws on the facts of the server answering: the first must name the
// case, on a server with the watch cache and on one without. Fresh user
// try 25 F5: every line that states the watch cache's bookmark period
// (the stall line, and the advice after a --stall-timeout without
// --follow) says it as the docs do, in one phrase (follow.BookmarkEvery).
func TestWatchFollowFirstStallLineNamesWhoServesTheWatch(t *testing.T) {
	t.Parallel()
	off := framework.StartT(t, framework.APIServerOptions{DisableWatchCache: true})
	const period = "a bookmark about once a minute (at most 1m15s apart)"
	t.Run("the stall check's note, in each mode", func(t *testing.T) {
		t.Parallel()
		stallCheckNoteIsTrue(t, off)
	})
	for _, c := range []struct {
		name    string
		cluster *framework.Cluster
		want    string
	}{
		{"cache on", shared, "configmaps has a watch cache on the server answering"},
		{"cache off", off, "configmaps has no watch cache on this server"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cs, ns := newNamespace(t, c.cluster, "watch-stall-facts")
			cmWriter{t: t, cs: cs, ns: ns}.create("a", nil)
			r := framework.Run(t, c.cluster.Kubeconfig, time.Minute, "watch", "cm", "-n", ns, "--follow", "--rv", "list", "--stall-timeout", "3s", "--timeout", "5s")
			if r.Code != 0 {
				t.Fatalf("exit %d, want 0: %s", r.Code, r.Stdout+r.Stderr)
			}
			var first string
			for _, line := range strings.Split(r.Stdout, "\n") {
				if strings.HasPrefix(line, "-- reconnect") && strings.Contains(line, "--stall-timeout") {
					first = line
					break
				}
			}
			if first == "" {
				t.Fatalf("no stall reconnect line:\n%s", r.Stdout)
			}
			if !strings.Contains(first, c.want) || strings.Contains(first, "from the watch cache; none from storage") {
				t.Errorf("the first stall line does not name the server's case (want %q):\n%s", c.want, first)
			}
			if c.cluster == shared && !strings.Contains(first, period) {
				t.Errorf("the stall line does not state the bookmark period as %q:\n%s", period, first)
			}
			// Without --follow the advice after the stall states it too.
			r = framework.Run(t, c.cluster.Kubeconfig, time.Minute, "watch", "cm", "-n", ns, "--rv", "list", "--stall-timeout", "3s", "--timeout", "5s")
			if all := r.Stdout + r.Stderr; r.Code != 0 || strings.Contains(all, "about every") || (c.cluster == shared) != strings.Contains(all, period) {
				t.Errorf("without --follow: exit %d; a period must be stated as %q, where the watch cache serves the watch only:\n%s", r.Code, period, all)
			}
		})
	}
}

// Fresh user try 26 F6: on a server without a watch cache, --follow's note
// said "(--stall-timeout turns the check on)", which read as if --follow's
// 90 s default never ran; the docs give that default. The note says, in
// the mode it is shown in, what became of the check and how to turn it on:
// with --follow's default, that the default is off here; with a
// --stall-timeout given, or without --follow (off unless given), no such
// note, since nothing was turned off.
func stallCheckNoteIsTrue(t *testing.T, off *framework.Cluster) {
	cs, ns := newNamespace(t, off, "watch-stall-note")
	cmWriter{t: t, cs: cs, ns: ns}.create("a", nil)
	const offHere = "--follow's stall check (default --stall-timeout 90s) is off here; --stall-timeout D turns it on"
	for _, c := range []struct {
		mode []string
		note bool
	}{
		{[]string{"--follow"}, true},
		{[]string{"--follow", "--send-initial-events"}, true},
		{[]string{"--follow", "--stall-timeout", "100s"}, false},
		{nil, false},
		{[]string{"--send-initial-events"}, false},
	} {
		r := framework.Run(t, off.Kubeconfig, time.Minute, append([]string{"watch", "cm", "-n", ns, "--timeout", "3s"}, c.mode...)...)
		if r.Code != 0 {
			t.Fatalf("%v: exit %d, want 0: %s", c.mode, r.Code, r.Stdout+r.Stderr)
		}
		if strings.Contains(r.Stderr, offHere) != c.note || strings.Contains(r.Stderr, "(--stall-timeout turns the check on)") {
			t.Errorf("%v: the note %q must be shown exactly where --follow's default was turned off (%v):\n%s", c.mode, offHere, c.note, r.Stderr)
		}
	}
}
