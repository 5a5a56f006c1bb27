//go:build e2e

package bounds

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestCheckSaysWhoAnsweredIsUncertainOnce (fresh user try 27 F5): storage's
// words ("The resourceVersion for the provided watch is too old.") checked
// on a server whose /metrics shows a watch cache for configmaps and whose
// watch from the RV is refused now with the watch cache's words: two facts
// against the text, said in one note (before: two notes, each ending "so
// who answered it then is not certain"), and no paragraph after it states
// as fact that storage answered or that the resource has no watch cache.
// (The real servers' side, one fact each way: test/e2e/explain.)
func TestCheckSaysWhoAnsweredIsUncertainOnce(t *testing.T) {
	// The answer of a v1.37 server, which filters by name[], to the
	// plugin's read of the gates and watch caches.
	metrics := framework.ScriptAnswer{Code: 200, Type: "text/plain; version=0.0.4", Body: "# HELP watch_cache_capacity Total capacity of watch cache broken by resource type.\n# TYPE watch_cache_capacity gauge\nwatch_cache_capacity{group=\"\",resource=\"configmaps\"} 100\n"}
	_, kc := framework.ServeRVScriptOver(t, framework.RVScript{Currents: []uint64{100}, Oldest: 50}, map[string]framework.ScriptAnswer{"/metrics": metrics})
	r := framework.Run(t, kc, time.Minute, "explain-error", "--check", "--resource", "configmaps", "-o", "json", "--rv", "10", "--operation", "watch", "The resourceVersion for the provided watch is too old.")
	var e struct {
		Confidence               string
		Notes                    []string
		What, Why, ClientGo, Fix string
	}
	if err := json.Unmarshal([]byte(r.Stdout), &e); err != nil {
		t.Fatalf("exit %d, not JSON (%v): %s %s", r.Code, err, r.Stdout, r.Stderr)
	}
	notes := strings.Join(e.Notes, "\n")
	if strings.Count(notes, "not certain") != 1 || !strings.Contains(notes, "watch cache for configmaps now") || !strings.Contains(notes, "tried now, is refused") || e.Confidence != "low" {
		t.Errorf("confidence %s, notes %q: want one note with both facts, and low", e.Confidence, e.Notes)
	}
	for name, p := range map[string]string{"what": e.What, "why": e.Why, "clientGo": e.ClientGo, "fix": e.Fix} {
		if strings.HasPrefix(p, "If it was answered by ") {
			continue
		}
		for _, claim := range []string{"as this resource has no watch cache", "Turn the watch cache on", "This form comes from storage", "A watch reached storage"} {
			if strings.Contains(p, claim) {
				t.Errorf("%s states %q as fact after the note:\n%s", name, claim, p)
			}
		}
	}
}
