//go:build e2e

package watch

import (
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// Adversary try 25 F7: the relist after the watch from RV 100 failed
// again said `(tried RV "")`, and every ERROR block said "(see Note)"
// with no Note printed. The class: a watch's lines name what was done
// and what they refer to. Attacked over the ways a diagnosis reaches
// watch output (an ERROR event, a refused watch request, with and without
// --follow): every diagnosis that points at a Note has one printed under
// it, and a relist names the RVs it listed from as they were.
func TestWatchLinesNameWhatTheyReferTo(t *testing.T) {
	t.Parallel()
	const path = "/api/v1/namespaces/default/configmaps"
	// The wording without its numbers: the diagnosis notes that they are
	// missing, and its summary refers to that note.
	const status = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version","reason":"Expired","code":410}`
	list := framework.ScriptAnswer{Code: 200, Type: "application/json", Body: `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"100"},"items":[]}`}
	for _, c := range []struct {
		name  string
		watch framework.ScriptAnswer
		args  []string
	}{
		{"ERROR event", framework.ScriptAnswer{Code: 200, Type: "application/json", Body: `{"type":"ERROR","object":` + status + "}\n"}, nil},
		{"ERROR event/follow", framework.ScriptAnswer{Code: 200, Type: "application/json", Body: `{"type":"ERROR","object":` + status + "}\n"}, []string{"--follow"}},
		{"410 answer", framework.ScriptAnswer{Code: 410, Type: "application/json", Body: status}, nil},
		{"410 answer/follow", framework.ScriptAnswer{Code: 410, Type: "application/json", Body: status}, []string{"--follow"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, kc := framework.ServeScript(t, map[string]framework.ScriptAnswer{path: list, path + "?watch": c.watch})
			args := append([]string{"watch", "configmaps", "--rv", "100", "--timeout", "4s"}, c.args...)
			r := framework.Run(t, kc, 30*time.Second, args...)
			all := r.Stdout + r.Stderr
			lines := strings.Split(r.Stdout, "\n")
			seen := false
			for i, line := range lines {
				if !strings.Contains(line, "(see Note)") {
					continue
				}
				seen = true
				if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "  note: ") {
					t.Errorf("a diagnosis refers to a Note that is not printed under it:\n%s", line)
				}
			}
			if !seen && !strings.Contains(all, "note:") {
				t.Fatalf("no diagnosis with a note: the case does not reach what it attacks:\n%s", all)
			}
			relists := 0
			for _, line := range lines {
				if !strings.HasPrefix(line, "-- RELIST") {
					continue
				}
				relists++
				if strings.Contains(line, `RV ""`) {
					t.Errorf("a relist names RV \"\" as an RV it listed from:\n%s", line)
				}
				want := `listed from RV "100"`
				if relists > 1 {
					want = `listed from a consistent read (no RV), not from RV "100": the watch from it failed again`
				}
				if !strings.Contains(line, want) {
					t.Errorf("relist %d does not say %q:\n%s", relists, want, line)
				}
			}
			if len(c.args) > 0 && relists < 2 {
				t.Errorf("%d relists in 4 s, want the one from RV 100 and one after it failed again:\n%s", relists, all)
			}
		})
	}
}
