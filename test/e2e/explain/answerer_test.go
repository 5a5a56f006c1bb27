//go:build e2e

package explain

import (
	"fmt"
	"strings"
	"testing"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// A text that names who answered a watch (the watch cache's window, or
// storage's compaction where no watch cache serves the watch), checked on
// a server whose /metrics shows the other one serves configmaps' watches
// now, is lowered with that fact as its note, in both directions (one
// note, and no paragraph after it that states who answered as a fact:
// fresh user try 27 F5); where the server agrees with the text, no such
// note. Fresh user try 26 F3:
// storage's words on a cache-on server kept "high", no note, while the
// mirror case was lowered.
func TestCheckWeighsWhoAnswersAWatchBothWays(t *testing.T) {
	const cacheText, storageText = "too old resource version: %d (%d)", "The resourceVersion for the provided watch is too old."
	onCacheCells(t, "explain-answerer", func(t *testing.T, cell string, c *framework.Cluster, ns string, w framework.ConfigMapWriter, rvA uint64) {
		start := rvA
		on := strings.HasSuffix(cell, "cache-on")
		for _, r := range []struct {
			name  string
			args  []string
			noted bool // the text's answerer is not the one serving now
		}{
			{"the watch cache's words", []string{fmt.Sprintf(cacheText, start, start+2)}, !on},
			{"storage's words", []string{"--rv", fmt.Sprint(start), "--operation", "watch", storageText}, on},
		} {
			e := explain(t, c, nil, append([]string{"--check", "--resource", "configmaps", "-n", ns}, r.args...)...)
			notes := strings.Join(e.Notes, "\n")
			fact := strings.Contains(notes, "watch cache for configmaps now")
			// The watch from a recent RV works on a real server: that
			// is a fact against the text too (adversary try 29 F3), so
			// every row is low, with one note.
			works := strings.Contains(notes, "works on this server")
			if fact != r.noted || !works || e.Confidence != "low" {
				t.Errorf("%s, %s: confidence %s, notes %q; want low, the watch that works now named, and the server's watch cache named: %v", cell, r.name, e.Confidence, e.Notes, r.noted)
			}
			// One note says it, and no paragraph after it states as
			// fact who answered (fresh user try 27 F5).
			if n := strings.Count(notes, "not certain"); n != 1 {
				t.Errorf("%s, %s: %d notes say who answered is not certain, want one: %q", cell, r.name, n, e.Notes)
			}
			// The headline too (adversary try 28 F8: it still said
			// storage had compacted the RV).
			if !strings.HasPrefix(e.Summary, "the text says: ") {
				t.Errorf("%s, %s: the headline states the text's claim as fact: %q", cell, r.name, e.Summary)
			}
			for name, p := range map[string]string{"what": e.What, "why": e.Why, "clientGo": e.ClientGo, "fix": e.Fix} {
				if strings.HasPrefix(p, "If ") {
					continue
				}
				for _, claim := range answererClaims {
					if strings.Contains(p, claim) {
						t.Errorf("%s, %s: %s states %q as fact, after the note that who answered is not certain:\n%s", cell, r.name, name, claim, p)
					}
				}
			}
		}
	})
}

// TestCheckedRVAheadIsNoExpiry (adversary try 28 F8): an Expired text for
// an RV ahead of the server's current one, checked on a real server (the
// watch cache on and off): the RV never expired in this history, so no
// field states the text's expiry as fact, the headline included (before:
// "storage ... has compacted the revision the watch started from, RV 600"
// under "Checked now: RV 600 is 57 ahead of the current RV 543").
func TestCheckedRVAheadIsNoExpiry(t *testing.T) {
	texts := []string{"The resourceVersion for the provided watch is too old.", "too old resource version: %d (%d)", "The resourceVersion for the provided list is too old."}
	onCacheCells(t, "explain-ahead", func(t *testing.T, cell string, c *framework.Cluster, ns string, w framework.ConfigMapWriter, rvA uint64) {
		ahead := rvA + 1000
		for _, text := range texts {
			if strings.Contains(text, "%d") {
				text = fmt.Sprintf(text, ahead, ahead+5)
			}
			e := explain(t, c, nil, "--check", "--resource", "configmaps", "-n", ns, "--rv", fmt.Sprint(ahead), text)
			if e.Confidence != "low" || !strings.HasPrefix(e.Summary, "the text says: ") || e.Check == nil || !strings.Contains(e.Check.Verdict, "ahead of the current RV") {
				t.Errorf("%s, %q: confidence %s, headline %q, check %+v: want low, the headline as the text's claim", cell, text, e.Confidence, e.Summary, e.Check)
			}
			claim := fmt.Sprintf("RV %d expired in this cluster's history, as the text says", ahead)
			for name, p := range map[string]string{"what": e.What, "why": e.Why, "fix": e.Fix} {
				if !strings.HasPrefix(p, "If ") || !strings.Contains(p, claim) {
					t.Errorf("%s, %q: %s states the expiry as fact:\n%s", cell, text, name, p)
				}
			}
		}
	})
}

// answererClaims are the words of the explanations that say who answered
// a watch, or what the resource's watch cache is, as a fact.
var answererClaims = []string{
	"as this resource has no watch cache", "Turn the watch cache on",
	"served from the watch cache (", "this API server's watch cache only holds",
	"This form comes from storage", "A watch reached storage",
	"The watch cache keeps a window",
}

// onCacheCells runs f, in parallel, on a v1.37 server with the watch cache
// on and one with it off, each in a fresh namespace (prefix) whose first
// configmap "a" is created: rvA is its RV.
func onCacheCells(t *testing.T, prefix string, f func(t *testing.T, cell string, c *framework.Cluster, ns string, w framework.ConfigMapWriter, rvA uint64)) {
	for _, cell := range []string{"v1.37/etcd/cache-on", "v1.37/etcd/cache-off"} {
		t.Run(cell, func(t *testing.T) {
			t.Parallel()
			c := framework.StartCell(t, cell)
			cs, ns := framework.Namespace(t, c, prefix)
			w := framework.ConfigMapWriter{T: t, Clientset: cs, Namespace: ns}
			f(t, cell, c, ns, w, framework.RVNum(t, w.Create("a", nil).ResourceVersion))
		})
	}
}
