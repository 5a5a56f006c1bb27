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
// case, on a server with the watch cache and on one without.
func TestWatchFollowFirstStallLineNamesWhoServesTheWatch(t *testing.T) {
	t.Parallel()
	off := framework.StartT(t, framework.APIServerOptions{DisableWatchCache: true})
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
		})
	}
}
