//go:build e2e

package watch

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// Adversary try 24 F1, F2: the check that a reconnect reached a server
// behind the resume point ran its consistent list, and that list failed
// (a 504 Status without kind) or gave no RV of a storage ("0", empty,
// control characters, digits past a uint64). The run said nothing (the
// failure went to -v only), or took "0" for a storage behind and relisted
// at RV 0. The class: a check the plugin ran and could not complete is
// said, in every output, and an RV that is no storage's is never compared.
//
// The fake lists at RV 100, replays one change at 101 on the first watch,
// and holds every later watch silently: the reconnect's check is due.
func TestWatchFollowSaysABehindCheckThatCouldNotTell(t *testing.T) {
	t.Parallel()
	const esc = "\x1b"
	answers := map[string]framework.ScriptAnswer{
		"504 without kind": {Code: 504, Type: "application/json", Body: `{"metadata":{},"status":"Failure","message":"timeout ` + esc + `[31mRED","reason":"Timeout","code":504}`},
		"RV 0":             {Code: 200, Type: "application/json", Body: `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"0"},"items":[]}`},
		"RV empty":         {Code: 200, Type: "application/json", Body: `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":""},"items":[]}`},
		"RV with controls": {Code: 200, Type: "application/json", Body: `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"1\u001b[31mRED\u0007"},"items":[]}`},
		"RV past uint64":   {Code: 200, Type: "application/json", Body: `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"` + strings.Repeat("9", 30) + `"},"items":[]}`},
	}
	for name, a := range answers {
		for _, output := range []string{"human", "json"} {
			t.Run(name+"/"+output, func(t *testing.T) {
				t.Parallel()
				_, kc := framework.ServeRVScript(t, framework.RVScript{Currents: []uint64{100}, Oldest: 50, QuietAfter: 1, Current: &a})
				args := []string{"watch", "configmaps", "--follow", "--rv", "list", "--timeout", "6s"}
				if output == "json" {
					args = append(args, "-o", "json")
				}
				res := framework.Run(t, kc, 30*time.Second, args...)
				all := res.Stdout + res.Stderr
				if res.Code != 0 {
					t.Fatalf("exit %d, want 0 (a quiet watch ended at --timeout)\n%s", res.Code, all)
				}
				if strings.Contains(all, esc) || strings.Contains(all, "\a") {
					t.Errorf("a control character of the server's answer reached the terminal:\n%q", all)
				}
				if strings.Contains(all, "RELIST") || strings.Contains(all, `"record":"relist"`) || strings.Contains(all, "behind the resume point: a consistent list") {
					t.Errorf("an answer that gave no current RV was taken for a server behind:\n%s", all)
				}
				const said = "could not check whether the server now answering is behind RV 101"
				if output == "human" {
					if !strings.Contains(res.Stdout, "-- unchecked: "+said) || !strings.Contains(res.Stdout, "Unchecked:") {
						t.Errorf("the check that could not tell is not said:\n%s", all)
					}
					return
				}
				var unchecked, summaries int
				for _, line := range strings.Split(strings.TrimSpace(res.Stdout), "\n") {
					var rec map[string]any
					if err := json.Unmarshal([]byte(line), &rec); err != nil {
						t.Fatalf("a line of -o json is no JSON (%v): %q", err, line)
					}
					switch rec["record"] {
					case "unchecked":
						if r, _ := rec["reason"].(string); strings.HasPrefix(r, said) {
							unchecked++
						}
					case "summary":
						if n, _ := rec["behindUnchecked"].(float64); n >= 1 {
							summaries++
						}
					}
				}
				if unchecked == 0 || summaries != 1 {
					t.Errorf("-o json has %d unchecked record(s) and %d summary counting them, want >= 1 and 1:\n%s", unchecked, summaries, res.Stdout)
				}
			})
		}
	}
}
