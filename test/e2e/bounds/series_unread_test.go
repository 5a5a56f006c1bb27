//go:build e2e

package bounds

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// Adversary F3: probe cm --interval 1s --duration 3s against a server
// whose configmaps list hung, answered 500, or answered at RV "abc" or
// "0" printed CURRENT RV 0 for those rounds, and in JSON
// "currentResourceVersion": 0, "oldestResourceVersion": 0, "width": 0.
// The class: a round's RVs were plain numbers where 0 stood for unknown.
// The first round reads the list (RV 100) and finds the window; every
// list after it is answered as the case says (a ScriptServer: no API
// server answers so on demand). No round row shows 0 as an RV, and no
// round's JSON has an RV it did not read.
func TestASeriesRoundShowsNoRVItDidNotRead(t *testing.T) {
	t.Parallel()
	const path = "/api/v1/namespaces/default/configmaps"
	list := func(rv string) framework.ScriptAnswer {
		return framework.ScriptAnswer{Code: 200, Type: "application/json", Body: `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"` + rv + `"},"items":[]}`}
	}
	cases := map[string]framework.ScriptAnswer{
		"hang": {Hang: true},
		"500":  {Code: 500, Type: "application/json", Body: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"internal error","reason":"InternalError","code":500}`},
		"abc":  list("abc"),
		"0":    list("0"),
	}
	// A round's row: its time, then CURRENT RV, OLDEST RV, WIDTH.
	row := regexp.MustCompile(`^\d\d:\d\d:\d\d\.\d\d\d\s+(\S+)\s+(\S+)\s+(\S+)\s`)
	for name, bad := range cases {
		for _, out := range []string{"human", "json"} {
			t.Run(name+"/"+out, func(t *testing.T) {
				t.Parallel()
				answers := []framework.ScriptAnswer{list("100")}
				// Every list after the first: a hung one holds its round
				// until it is cut one interval after the series, and the
				// list after the series (which dates the depth) until the
				// bound of the reads outside the rounds (15 s).
				for i := 0; i < 40; i++ {
					answers = append(answers, bad)
				}
				_, kc := framework.ServeScriptSequence(t, path, answers, nil)
				args := []string{"probe", "cm", "--interval", "1s", "--duration", "3s"}
				if out == "json" {
					args = append(args, "-o", "json")
				}
				r := framework.Run(t, kc, time.Minute, args...)
				// --duration 3s, one interval more for a round in flight,
				// 15 s for the reads after the last round, and the start.
				if r.Duration > 25*time.Second {
					t.Errorf("the series took %s: past --duration, its interval and the 15 s of the reads after it", r.Duration.Round(time.Millisecond))
				}
				if out == "human" {
					var rows int
					for _, line := range strings.Split(r.Stdout, "\n") {
						m := row.FindStringSubmatch(line)
						if m == nil {
							continue
						}
						rows++
						if rows == 1 && (m[1] != "100" || m[2] != "50" || m[3] != "50") {
							t.Errorf("the first round read RV 100 and the window from 50: %q", line)
						}
						if rows > 1 && (m[1] != "-" || m[2] != "?" || m[3] != "?") {
							t.Errorf("a round whose list failed shows CURRENT RV %q, OLDEST RV %q, WIDTH %q, want -, ?, ?: %q", m[1], m[2], m[3], line)
						}
					}
					if rows < 2 {
						t.Fatalf("exit %d: %d round rows, want the first and a failed one:\n%s%s", r.Code, rows, r.Stdout, r.Stderr)
					}
					// Fresh user try 50 F4: failed rounds are said on
					// stderr, whatever the exit.
					if name == "500" && !strings.Contains(r.Stderr, "rounds failed (the first: ") {
						t.Errorf("exit %d: the failed rounds are not said on stderr:\n%s", r.Code, r.Stderr)
					}
					return
				}
				var doc struct {
					Rounds []map[string]any `json:"rounds"`
				}
				if err := json.Unmarshal([]byte(r.Stdout), &doc); err != nil || len(doc.Rounds) < 2 {
					t.Fatalf("exit %d, %v: want the first round and a failed one:\n%s%s", r.Code, err, r.Stdout, r.Stderr)
				}
				if first := doc.Rounds[0]; first["currentResourceVersion"] != "100" || first["windowKnown"] != true {
					t.Errorf("the first round: %v", first)
				}
				for _, round := range doc.Rounds[1:] {
					for _, k := range []string{"currentResourceVersion", "oldestResourceVersion", "width"} {
						if v, ok := round[k]; ok {
							t.Errorf("a round whose list failed has %s %v: %v", k, v, round)
						}
					}
					if round["windowKnown"] != false || round["found"] != false {
						t.Errorf("a round whose list failed has a window: %v", round)
					}
				}
			})
		}
	}
}
