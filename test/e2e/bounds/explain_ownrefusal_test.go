//go:build e2e

package bounds

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestOneServerCheckWeighsItsOwnInconsistent410 (adversary try 28 F7): the
// kubeconfig's server itself refuses the watch --check repeats with a 410
// whose numbers no server sends to it ("214 (50)": a watch from 214 starts
// at 50; "1 (50)": another RV than the one asked). The one-server check
// applies the one consistency check as its --endpoints row does: "Checked
// now" says the refusal confirms nothing, -o json has tried.inconsistent,
// the confidence is low (before: "a watch from RV 214 fails", high, while
// the row said "expired, inconsistent"). With and without --endpoints,
// human and JSON.
func TestOneServerCheckWeighsItsOwnInconsistent410(t *testing.T) {
	const text = "too old resource version: 214 (257)"
	for name, odd := range map[string]framework.RVScript{
		"another RV":      {Currents: []uint64{300}, Oldest: 1000, Named: 50, NamesRV: 1},
		"oldest below it": {Currents: []uint64{300}, Oldest: 1000, Named: 50},
	} {
		t.Run(name, func(t *testing.T) {
			bad, kc := framework.ServeRVScriptTLS(t, odd)
			good, _ := framework.ServeRVScriptTLS(t, framework.RVScript{Currents: []uint64{300}, Oldest: 50})
			for _, extra := range [][]string{nil, {"--endpoints", bad.Host() + "," + good.Host()}} {
				args := append([]string{"explain-error", "--check", text, "cm"}, extra...)
				human := framework.Run(t, kc, time.Minute, args...)
				out := strings.Join(strings.Fields(human.Stdout), " ")
				if !strings.Contains(out, "(confidence: low)") || !strings.Contains(out, "numbers are inconsistent") || !strings.Contains(out, "so it confirms nothing") || strings.Contains(out, "a watch from RV 214 fails") {
					t.Errorf("%v: the one-server check takes the inconsistent 410 as a plain refusal:\n%s", extra, human.Stdout)
				}
				if extra != nil && !strings.Contains(lineWith(human.Stdout, bad.Host()), "inconsistent") {
					t.Errorf("%v: the kubeconfig server's row does not say inconsistent:\n%s", extra, human.Stdout)
				}
				doc := framework.Run(t, kc, time.Minute, append(args, "-o", "json")...)
				var e struct {
					Confidence string   `json:"confidence"`
					Notes      []string `json:"notes"`
					Check      struct {
						Tried struct {
							Inconsistent string `json:"inconsistent"`
						} `json:"tried"`
					} `json:"check"`
				}
				if err := json.Unmarshal([]byte(doc.Stdout), &e); err != nil {
					t.Fatalf("-o json: %v:\n%s", err, doc.Stdout)
				}
				if e.Confidence != "low" || e.Check.Tried.Inconsistent == "" || !strings.Contains(strings.Join(e.Notes, "\n"), "confirms nothing") {
					t.Errorf("%v -o json: confidence %s, tried.inconsistent %q, notes %q:\n%s", extra, e.Confidence, e.Check.Tried.Inconsistent, e.Notes, doc.Stdout)
				}
			}
		})
	}
}
