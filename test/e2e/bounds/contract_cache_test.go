//go:build e2e

package bounds

import (
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// Adversary try 23 F5: the server facts cache took the RV of a list the
// same run refused for breaking the List contract: the list at RV 50
// with an item at RV 99, after a good one at RV 100, was said to be
// "another storage answers at this address" (and the kept facts were
// dropped), and RV 50 was kept, so that a proxy answering a low RV could
// make every later run say it. Only an answer that kept the contract
// feeds the cache's RV check: the breach is the run's one finding, and
// the RV kept is still the good list's (a later good list below it is
// another storage's).
func TestAListThatBrokeTheContractFeedsNoRVToTheFactsCache(t *testing.T) {
	const path = "/api/v1/namespaces/default/configmaps"
	metrics := "# TYPE kubernetes_feature_enabled gauge\n" + `kubernetes_feature_enabled{name="WatchList",stage="BETA"} 1` + "\n" +
		"# TYPE watch_cache_capacity gauge\n" + `watch_cache_capacity{group="",resource="configmaps"} 100` + "\n"
	list := func(rv, itemRV string) string {
		return `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"` + rv + `"},"items":[{"metadata":{"name":"a","namespace":"default","uid":"u-a","resourceVersion":"` + itemRV + `"}}]}`
	}
	var body atomic.Value
	_, kc := framework.ServeScript(t, map[string]framework.ScriptAnswer{
		"/metrics": {Code: 200, Type: "text/plain; version=0.0.4", Body: metrics},
		path:       {Code: 200, Type: "application/json", Write: func(w io.Writer) { _, _ = io.WriteString(w, body.Load().(string)) }},
	})
	cache := t.TempDir()
	const wentBack = "another storage answers at this address"
	for i, step := range []struct {
		name, list string
		code       int
		line       string // in stderr
		back       bool   // the RV going back is said
	}{
		{"a good list at RV 100", list("100", "99"), 0, "", false},
		{"a list at RV 50 with an item at RV 99", list("50", "99"), 1, "an item's resourceVersion 99 is newer than the list's 50", false},
		{"a good list at RV 60, below the good one", list("60", "59"), 0, "", true},
	} {
		body.Store(step.list)
		for _, out := range [][]string{nil, {"-o", "json"}} {
			if step.back && len(out) > 0 {
				continue // said once: the facts were read again with RV 60
			}
			args := append([]string{"--cache-dir", cache, "list", "cm"}, out...)
			r := framework.Run(t, kc, time.Minute, args...)
			if r.Code != step.code || !strings.Contains(r.Stderr, step.line) {
				t.Fatalf("step %d, %s, %v: exit %d, want %d and %q:\n%s", i, step.name, args, r.Code, step.code, step.line, r.Stderr)
			}
			if strings.Contains(r.Stderr, wentBack) != step.back {
				t.Errorf("step %d, %s, %v: %q said %v, want %v:\n%s", i, step.name, args, wentBack, !step.back, step.back, r.Stderr)
			}
		}
	}
}
