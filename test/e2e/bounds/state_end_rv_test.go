//go:build e2e

package bounds

import (
	"encoding/json"
	"strconv"
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
			// The end is always shown as the state's end (adversary try
			// 44 F2), said unusable where it is.
			shown := strings.Contains(r.Stdout, `"initialEventsEnd":true`)
			noted := shown && !strings.Contains(r.Stdout, `"endUnusable":true`)
			if sum == nil || !shown || noted != usable || (sum["resumeFrom"] == "initial-events-end") != usable {
				t.Errorf("exit %d: the end shown %v, noted usable %v, resume from %v: want it shown, and usable only of a usable RV (%v):\n%s%s", r.Code, shown, noted, sum["resumeFrom"], usable, r.Stdout, r.Stderr)
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

// TestAfterAnUnusableStateEndNothingGoesBack (adversary try 44 F1-F3): a
// state a@5 b@7 whose end bookmark's RV is no resume point ("abc", none,
// or 6, below b) holds what follows to the state's newest object: a change
// at 6, or a bookmark at 3, breaks the Watch contract (exit 1) and is
// never the resume point; the end is shown on its line, so --until
// BOOKMARK stops there; and streaming does not call an informer that
// would keep that RV one that works.
func TestAfterAnUnusableStateEndNothingGoesBack(t *testing.T) {
	obj := func(name, at string) string {
		return `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"` + name + `","namespace":"default","uid":"u-` + name + `","resourceVersion":"` + at + `"}}`
	}
	ev := func(typ, o string) string { return `{"type":"` + typ + `","object":` + o + "}\n" }
	bookmark := func(at string, end bool) string {
		ann := ""
		if end {
			ann = `,"annotations":{"k8s.io/initial-events-end":"true"}`
		}
		return `{"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"` + at + `"` + ann + `}}}` + "\n"
	}
	state := ev("ADDED", obj("a", "5")) + ev("ADDED", obj("b", "7"))
	list := framework.ScriptAnswer{Code: 200, Type: "application/json", Body: `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"7"},"items":[` + obj("a", "5") + "," + obj("b", "7") + `]}`}
	for _, end := range []string{"abc", "", "6"} {
		for _, after := range []struct{ name, body, breach string }{
			{"a change below the state", ev("MODIFIED", obj("a", "6")), "RV 6 is not after RV 7"},
			{"a bookmark below the state", bookmark("3", false), "the bookmark's RV 3 is before RV 7"},
		} {
			if end == "6" && after.name == "a change below the state" {
				after.breach = "newer than its initial-events-end bookmark's RV 6"
			}
			_, kc := framework.ServeScript(t, map[string]framework.ScriptAnswer{
				"/api/v1/namespaces/default/configmaps?watch": {Code: 200, Type: "application/json", Body: state + bookmark(end, true) + after.body},
				"/api/v1/namespaces/default/configmaps":       list,
			})
			t.Run("end "+strconv.Quote(end)+", "+after.name, func(t *testing.T) {
				for _, args := range [][]string{{"watch", "cm", "--timeout", "3s"}, {"watch", "cm", "--follow", "--timeout", "3s"}, {"watch", "cm", "--send-initial-events", "--timeout", "3s"}} {
					r := framework.Run(t, kc, time.Minute, append(args, "-o", "json")...)
					if r.Code != 1 || !strings.Contains(r.Stdout+r.Stderr, after.breach) {
						t.Errorf("%v: exit %d: want 1 and the breach %q:\n%.3000s%s", args, r.Code, after.breach, r.Stdout, r.Stderr)
					}
					for _, below := range []string{`"resumeResourceVersion":"6"`, `"resumeResourceVersion":"3"`, `"resourceVersion=6`, `"resourceVersion=3`} {
						if strings.Contains(r.Stdout, below) {
							t.Errorf("%v: resumes below the state (%s):\n%.3000s", args, below, r.Stdout)
						}
					}
				}
			})
		}
		_, kc := framework.ServeScript(t, map[string]framework.ScriptAnswer{
			"/api/v1/namespaces/default/configmaps?watch": {Code: 200, Type: "application/json", Body: state + bookmark(end, true)},
			"/api/v1/namespaces/default/configmaps":       list,
		})
		t.Run("end "+strconv.Quote(end)+", shown", func(t *testing.T) {
			r := framework.Run(t, kc, time.Minute, "watch", "cm", "--send-initial-events", "--until", "BOOKMARK", "--timeout", "20s")
			if !strings.Contains(r.Stdout, "initial state ended (2 objects)") || !strings.Contains(r.Stdout, "no resume point") || !strings.Contains(r.Stdout, "--until BOOKMARK") && !strings.Contains(r.Stdout+r.Stderr, "until") {
				t.Errorf("exit %d: the end is not shown as the state's end, or --until BOOKMARK did not stop on it:\n%s%s", r.Code, r.Stdout, r.Stderr)
			}
			s := framework.Run(t, kc, time.Minute, "streaming", "cm", "--deadline", "4s")
			if strings.Contains(s.Stdout, "will work on configmaps") || !strings.Contains(s.Stdout, "none a watch can resume from") && !strings.Contains(s.Stdout, "broke the Watch contract") {
				t.Errorf("streaming: exit %d: an informer that keeps the end's RV %q is said to work:\n%s%s", s.Code, end, s.Stdout, s.Stderr)
			}
		})
	}
}
