//go:build e2e

package watch

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// A watch from an RV ahead of the server, on each storage the plugin cannot
// tell apart from the client side (issue 25, H36): the warning claims only
// what the server is known to do (the watch cache holds an exact watch;
// where storage serves it, etcd holds it and kine ends it at once), and the
// outcome follows the one exit rule in both modes: held silently is a quiet
// watch (0); ended at once with nothing is that RV's failure (10), and
// --follow gives up after a bounded number of empty streams instead of
// reconnecting forever. A streaming list from the future is answered 504
// TooLarge at once where storage serves it.
func TestWatchFromTheFutureOnEachStorage(t *testing.T) {
	for _, c := range []struct {
		cell     string
		endsNow  bool   // the storage ends an exact watch from the future at once
		warning  string // what the warning says the server does
		streamed string // what it says of a streaming list
	}{
		{"v1.37/kine/cache-off", true, "storage serves the watch: etcd holds this watch silently", "a streaming list from it is answered 504 TooLarge at once"},
		{"v1.37/etcd/cache-off", false, "storage serves the watch: etcd holds this watch silently", "a streaming list from it is answered 504 TooLarge at once"},
		{"v1.37/kine/cache-on", false, "the watch cache holds this watch silently", "after the watch cache waited up to ~3 s"},
	} {
		t.Run(c.cell, func(t *testing.T) {
			t.Parallel()
			cl := framework.StartCell(t, c.cell)
			cs, ns := framework.Namespace(t, cl, "watch-future-storage")
			future := fmt.Sprint(rvNum(t, cmWriter{t: t, cs: cs, ns: ns}.create("a", nil).ResourceVersion) + 10000000)
			timeout := "4s" // a held watch lasts it all
			if c.endsNow {
				timeout = "40s" // more than --follow's bounded reconnects take
			}
			for _, mode := range [][]string{nil, {"--follow"}} {
				began := time.Now()
				out := runWatch(t, cl.Kubeconfig, 2*time.Minute, append([]string{"cm", "-n", ns, "--rv", future, "--timeout", timeout}, mode...)...)
				took := time.Since(began)
				where := fmt.Sprintf("%s, watch %v", c.cell, mode)
				if !strings.Contains(out.Stderr, c.warning) {
					t.Fatalf("%s: the warning must say %q: %s", where, c.warning, out.Stderr)
				}
				sum := out.summary(t)
				if sum.NoResumePoint != "start-rv-ahead" || sum.LastResourceVersion != "" {
					t.Fatalf("%s: a future start RV is no resume point: %+v", where, sum)
				}
				if !c.endsNow {
					if out.Code != 0 || sum.Ended != "timeout" || len(out.events()) != 0 {
						t.Fatalf("%s: held silently is a quiet watch: want exit 0 at --timeout, got exit %d, summary %+v:\n%s", where, out.Code, sum, out.Stderr)
					}
					continue
				}
				if out.Code != 10 || !strings.Contains(out.Stderr, "ended the watch from RV "+future+" at once") || took > 35*time.Second {
					t.Fatalf("%s: want exit 10 (ended at once from the future) well before --timeout, got exit %d after %s:\n%s\n%s", where, out.Code, took, out.Stderr, out.Stdout)
				}
				if mode != nil && (sum.Streams != 5 || sum.FailureStreak == nil || sum.FailureStreak.Failure != "TooLarge") {
					t.Fatalf("%s: want 5 empty streams, then the end: %+v", where, sum)
				}
			}
			out := runWatch(t, cl.Kubeconfig, 2*time.Minute, "cm", "-n", ns, "--rv", future, "--send-initial-events", "--timeout", "20s")
			if out.Code != 10 || !strings.Contains(out.Stderr, c.streamed) {
				t.Fatalf("%s: a streaming list from the future: want exit 10 and %q, got exit %d: %s\n%s", c.cell, c.streamed, out.Code, out.Stderr, out.Stdout)
			}
		})
	}
}
