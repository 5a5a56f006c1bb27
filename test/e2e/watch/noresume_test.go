//go:build e2e

package watch

import (
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// Adversary try 24 F2, its relist: a whole list whose resourceVersion is
// no storage's ("0", empty, not a decimal) was taken as the resume point,
// and the watch from it sent the state again ("no resume point: the state
// came in key order"). The class: a resume point is only ever a storage's
// RV; a list that gives none ends the run naming it, in every --rv list
// mode, never a watch from nothing.
func TestAListWithoutAStorageRVGivesNoResumePoint(t *testing.T) {
	t.Parallel()
	const path = "/api/v1/namespaces/default/configmaps"
	list := func(rv string) framework.ScriptAnswer {
		return framework.ScriptAnswer{Code: 200, Type: "application/json", Body: `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"` + rv + `"},"items":[]}`}
	}
	for name, rv := range map[string]string{"RV 0": "0", "RV empty": "", "RV with controls": `1\u001b[31mRED`} {
		for _, extra := range [][]string{nil, {"--follow"}, {"-o", "json"}} {
			args := append([]string{"watch", "configmaps", "--rv", "list", "--timeout", "4s"}, extra...)
			t.Run(name+"/"+strings.Join(extra, " "), func(t *testing.T) {
				t.Parallel()
				s, kc := framework.ServeScript(t, map[string]framework.ScriptAnswer{path: list(rv)})
				res := framework.Run(t, kc, 30*time.Second, args...)
				all := res.Stdout + res.Stderr
				if res.Code != 1 || !strings.Contains(res.Stderr, "the list gave no resume point: its resourceVersion") {
					t.Fatalf("exit %d, want 1 naming the list's resourceVersion as no resume point:\n%s", res.Code, all)
				}
				if strings.Contains(all, "\x1b") {
					t.Errorf("a control character of the answer reached the terminal:\n%q", all)
				}
				// The list was answered: the summary says why there is no
				// resume point as it was (adversary try 25 F2).
				if strings.Contains(all, "did not complete") || strings.Contains(all, "list-incomplete") ||
					!(strings.Contains(all, "its resourceVersion is no storage's RV") || strings.Contains(all, `"noResumePoint":"list-rv-not-storage"`)) {
					t.Errorf("the summary does not say the List completed with no storage's RV:\n%s", all)
				}
				if n := s.Asked(path); n != 1 {
					t.Errorf("%s asked %d times, want the one list (no watch from no RV, no relist loop)", path, n)
				}
			})
		}
	}
}

// Adversary try 25 F2, the relist: a relist whose list answered RV "0"
// was summarized "the last RV was answered Expired or TooLarge; list
// again" with "0 relist(s)", though that relist's list was sent and
// answered. The relist is counted, and the reason is the list's RV.
func TestARelistWithoutAStorageRVIsCountedAndNamed(t *testing.T) {
	t.Parallel()
	const path = "/api/v1/namespaces/default/configmaps"
	expired := framework.ScriptAnswer{Code: 200, Type: "application/json", Body: `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 100 (150)","reason":"Expired","code":410}}` + "\n"}
	for name, rv := range map[string]string{"RV 0": "0", "RV empty": ""} {
		for _, out := range []string{"human", "json"} {
			t.Run(name+"/"+out, func(t *testing.T) {
				t.Parallel()
				_, kc := framework.ServeScript(t, map[string]framework.ScriptAnswer{
					path:            {Code: 200, Type: "application/json", Body: `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"` + rv + `"},"items":[]}`},
					path + "?watch": expired,
				})
				args := []string{"watch", "configmaps", "--follow", "--rv", "100", "--timeout", "6s"}
				want := []string{"1 relist", "the List completed, and its resourceVersion is no storage's RV"}
				if out == "json" {
					args = append(args, "-o", "json")
					want = []string{`"relists":1`, `"noResumePoint":"list-rv-not-storage"`}
				}
				res := framework.Run(t, kc, 30*time.Second, args...)
				all := res.Stdout + res.Stderr
				if res.Code != 1 || !strings.Contains(res.Stderr, "the list gave no resume point: its resourceVersion") {
					t.Fatalf("exit %d, want 1 naming the relist's resourceVersion as no resume point:\n%s", res.Code, all)
				}
				for _, w := range want {
					if !strings.Contains(res.Stdout, w) {
						t.Errorf("the summary lacks %q:\n%s", w, all)
					}
				}
				if strings.Contains(res.Stdout, "Expired or TooLarge; list again") || strings.Contains(res.Stdout, "did not complete") {
					t.Errorf("the summary says the relist did not happen:\n%s", all)
				}
			})
		}
	}
}
