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
