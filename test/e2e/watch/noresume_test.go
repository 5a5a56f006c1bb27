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
				if n := s.Asked(path); n != 1 {
					t.Errorf("%s asked %d times, want the one list (no watch from no RV, no relist loop)", path, n)
				}
			})
		}
	}
}
