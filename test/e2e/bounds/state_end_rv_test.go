//go:build e2e

package bounds

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestAStateEndWithNoUsableRVIsNoResumePoint (adversary try 42 F1-F4): a
// watch with RV unset whose state ends with an initial-events-end bookmark
// takes that bookmark as its resume point only when a watch can start
// from its RV: a storage's RV, not below an RV the stream sent, within the
// Watch contract. An end at "0", "", "abc", an RV past 64 bits, or below
// the state's newest object is noted as no end, gives no resume point,
// and --follow lists again (as a Reflector does) instead of reconnecting
// from it in a loop; a reconnect line names the RV its watch was sent
// from. An end at the state's newest RV is the resume point (the control).
func TestAStateEndWithNoUsableRVIsNoResumePoint(t *testing.T) {
	added := func(name, at string) string {
		return `{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"` + name + `","namespace":"default","uid":"u-` + name + `","resourceVersion":"` + at + `"}}}` + "\n"
	}
	end := func(at string) string {
		return `{"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"` + at + `","annotations":{"k8s.io/initial-events-end":"true"}}}}` + "\n"
	}
	for _, c := range []struct{ name, at string }{
		{"at 0", "0"}, {"empty", ""}, {"not a decimal", "abc"}, {"past 64 bits", "18446744073709551616"}, {"below the state", "219"}, {"the state's newest (control)", "220"},
	} {
		usable := c.at == "220"
		_, kc := framework.ServeScript(t, map[string]framework.ScriptAnswer{
			"/api/v1/namespaces/default/configmaps?watch": {Code: 200, Type: "application/json", Body: added("a", "218") + added("c", "220") + end(c.at)},
			// The relist's answer: the collection at a later RV.
			"/api/v1/namespaces/default/configmaps": {Code: 200, Type: "application/json", Body: `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"300"},"items":[` +
				strings.Join([]string{strings.TrimSuffix(strings.TrimPrefix(added("a", "218"), `{"type":"ADDED","object":`), "}\n"), strings.TrimSuffix(strings.TrimPrefix(added("c", "220"), `{"type":"ADDED","object":`), "}\n")}, ",") + `]}`},
		})
		t.Run(c.name, func(t *testing.T) {
			r := framework.Run(t, kc, time.Minute, "watch", "cm", "--bookmarks", "--timeout", "3s", "-o", "json")
			var sum map[string]any
			for _, l := range strings.Split(r.Stdout, "\n") {
				if strings.Contains(l, `"record":"summary"`) {
					_ = json.Unmarshal([]byte(l), &sum)
				}
			}
			noted := strings.Contains(r.Stdout, `"initialEventsEnd":true`)
			if sum == nil || noted != usable || (sum["resumeFrom"] == "initial-events-end") != usable {
				t.Errorf("exit %d: the end noted %v, resume from %v: want both only of a usable RV (%v):\n%s%s", r.Code, noted, sum["resumeFrom"], usable, r.Stdout, r.Stderr)
			}
			f := framework.Run(t, kc, time.Minute, "watch", "cm", "--bookmarks", "--follow", "--timeout", "3s")
			out := f.Stdout + f.Stderr
			streams := strings.Count(out, "-- reconnect")
			if streams > 15 {
				t.Errorf("exit %d: %d reconnects in 3 s: a reconnect loop:\n%.3000s", f.Code, streams, out)
			}
			if !usable && !strings.Contains(out, "RELIST") {
				t.Errorf("exit %d: no relist after a state whose end is no resume point:\n%.3000s", f.Code, out)
			}
			if strings.Contains(out, "initial state complete at RV :") || strings.Contains(out, "from RV 219: the server ended the watch from RV 220") {
				t.Errorf("exit %d: a line that contradicts what was sent:\n%.3000s", f.Code, out)
			}
		})
	}
}
