//go:build e2e

package bounds

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// Adversary try 20 #11, as a class: every way probe reads /metrics beside
// its probes (--metrics of one resource, --interval's series, --all,
// --endpoints) is one run's side read of that server. Against a /metrics
// that never answers, or answers 403, each run:
//   - asks the server's /metrics once: a read that got no answer is not
//     sent again (the try: a second read after the first had none, 2 x
//     10 s), so the run waits on it once;
//   - says why the counters are not shown once (the try: the 403 note
//     twice in one line, with --interval), in -o json too;
//   - says it whenever it applies: a series where no round found the
//     bound, or whose RVs went back, says why the counters are not shown
//     (the try: nothing).
func TestMetricsSideReadsAskOnceAndSayOnce(t *testing.T) {
	const timeout = 2 * time.Second
	kubeMetrics := framework.ScriptAnswer{Code: 200, Type: "text/plain; version=0.0.4", Body: framework.KubeMetrics("", framework.BreakNone)}
	failed := framework.ScriptAnswer{Code: 500, Type: "application/json", Body: `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"boom","reason":"InternalError","code":500}`}
	window := framework.RVScript{Currents: []uint64{100}, Oldest: 50}
	single, series, all, endpoints := []string{"probe", "cm", "--metrics"}, []string{"probe", "cm", "--metrics", "--interval", "1s", "--duration", "2s"},
		[]string{"probe", "--all", "--metrics"}, []string{"probe", "cm", "--metrics", "--endpoints", ""}
	for _, c := range []struct {
		name   string
		rvs    *framework.RVScript
		script map[string]framework.ScriptAnswer
		note   string
		runs   [][]string
	}{
		{"hangs", &window, map[string]framework.ScriptAnswer{"/metrics": {Hang: true}}, "watch-cache metrics not shown: GET /metrics (", [][]string{single, series, all, endpoints}},
		{"forbidden", &window, nil, "/metrics is forbidden to this user", [][]string{single, series, all, endpoints}},
		{"no round found the bound", nil, map[string]framework.ScriptAnswer{"/api/v1/namespaces/default/configmaps?watch": failed, "/metrics": kubeMetrics},
			"watch-cache metrics not shown: no round found the bound", [][]string{series}},
		{"RVs went back", &framework.RVScript{Currents: []uint64{200, 150}, Oldest: 50}, map[string]framework.ScriptAnswer{"/metrics": kubeMetrics},
			"watch-cache metrics not shown: the current RV went back between rounds", [][]string{series}},
	} {
		for _, args := range c.runs {
			t.Run(c.name+"/"+strings.Join(args[:3], " "), func(t *testing.T) {
				// Each run has a server of its own (its lists' RVs move
				// as the run asks).
				serve := func(args []string) (*framework.ScriptServer, string, []string) {
					var s *framework.ScriptServer
					var kc string
					if c.rvs != nil {
						s, kc = framework.ServeRVScriptOver(t, *c.rvs, c.script)
					} else {
						s, kc = framework.ServeScript(t, c.script)
					}
					args = append([]string{}, args...)
					for i := range args {
						if args[i] == "" {
							args[i] = s.Host() // --endpoints
						}
					}
					return s, kc, append(args, "--request-timeout", timeout.String())
				}
				s, kc, human := serve(args)
				r := framework.Run(t, kc, time.Minute, human...)
				if asked := s.Asked("/metrics"); asked != 1 {
					t.Errorf("exit %d in %s: /metrics asked %d times, want once", r.Code, r.Duration.Round(time.Millisecond), asked)
				}
				if n := strings.Count(r.Stdout+r.Stderr, c.note); n != 1 {
					t.Errorf("exit %d: %q said %d times, want once\n%s\n%s", r.Code, c.note, n, r.Stdout, r.Stderr)
				}
				if strings.Contains(r.Stdout+r.Stderr, "not shown: watch-cache metrics not shown") {
					t.Errorf("the note twice in one line:\n%s", r.Stdout)
				}
				_, kc, asJSON := serve(append(append([]string{}, args...), "-o", "json"))
				j := framework.Run(t, kc, time.Minute, asJSON...)
				if !strings.Contains(j.Stdout, jsonText(t, c.note)) {
					t.Errorf("-o json: exit %d, no note %q\n%s", j.Code, c.note, j.Stdout)
				}
			})
		}
	}
}

// jsonText is s as it appears inside a JSON string.
func jsonText(t *testing.T, s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Trim(string(b), `"`)
}
