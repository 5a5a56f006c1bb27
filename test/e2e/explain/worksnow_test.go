//go:build e2e

package explain

import (
	"fmt"
	"strings"
	"testing"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// An Expired text whose request works now on a real server (a watch from
// a recent RV replays to the current RV; the watch cache on and off) is
// no fact about "this API server": low, one note that it works here, the
// headline and What/Why/Fix told as the text's claim (adversary try 29 F3:
// "the oldest RV this API server can still serve is 380" stayed high).
func TestCheckedRequestThatWorksIsNoExpiry(t *testing.T) {
	onCacheCells(t, "explain-works", func(t *testing.T, cell string, c *framework.Cluster, ns string, w framework.ConfigMapWriter, rvA uint64) {
		start := rvA
		w.Create("b", nil)
		e := explain(t, c, nil, "--check", "-n", ns, fmt.Sprintf("too old resource version: %d (%d)", start, start+1))
		notes := strings.Join(e.Notes, "\n")
		if e.Confidence != "low" || strings.Count(notes, "works on this server") != 1 || !strings.HasPrefix(e.Summary, "the text says: ") {
			t.Errorf("%s: confidence %s, headline %q, notes %q: want low, one note that it works here, the headline as the text's claim", cell, e.Confidence, e.Summary, e.Notes)
		}
		if e.Check == nil || !strings.Contains(e.Check.Verdict, "works") {
			t.Errorf("%s: the check did not say the watch works: %+v", cell, e.Check)
		}
		claim := fmt.Sprintf("RV %d could no longer be served", start)
		for name, p := range map[string]string{"what": e.What, "why": e.Why, "fix": e.Fix} {
			if !strings.HasPrefix(p, "If ") || !strings.Contains(p, claim) {
				t.Errorf("%s: %s states the expiry as fact:\n%s", cell, name, p)
			}
		}
	})
}

// A TooLarge text checked on a server whose /metrics shows no watch cache
// for the resource: its lag is no watch cache's, so the verdict does not
// name one, the confidence is low and one note says the fact; with a
// watch cache, the lag verdict stands (fresh user try 29 F6).
func TestCheckedTooLargeWeighsTheWatchCache(t *testing.T) {
	onCacheCells(t, "explain-toolarge", func(t *testing.T, cell string, c *framework.Cluster, ns string, w framework.ConfigMapWriter, rvA uint64) {
		cur := rvA
		e := explain(t, c, nil, "--check", "-n", ns, fmt.Sprintf("Timeout: Too large resource version: %d, current: %d", cur, cur-10))
		off := strings.HasSuffix(cell, "cache-off")
		notes := strings.Join(e.Notes, "\n")
		noted := strings.Contains(notes, "no watch cache for configmaps now")
		if e.Check == nil {
			t.Fatalf("%s: no check", cell)
		}
		catching := strings.Contains(e.Check.Verdict, "a watch cache catching up")
		if noted != off || catching == off || (e.Confidence == "low") != off {
			t.Errorf("%s: confidence %s, notes %q, verdict %q: want the missing watch cache named, not blamed, and low: %v", cell, e.Confidence, e.Notes, e.Check.Verdict, off)
		}
		if off && (!strings.HasPrefix(e.Summary, "the text says: ") || !strings.HasPrefix(e.Why, "If it was answered by the watch cache")) {
			t.Errorf("%s: the watch cache's lag stated as fact: %q / %q", cell, e.Summary, e.Why)
		}
	})
}
