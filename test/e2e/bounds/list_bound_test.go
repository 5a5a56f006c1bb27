//go:build e2e

package bounds

import (
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestAListOutsideItsOwnBoundIsABrokenAnswer (adversary try 25 F5): a
// list that names an RV is answered within the bound it set or not at
// all: a list not older than RV 746 answered at RV 100 (below it), an
// exact list at RV 50 answered at RV 100, is an answer that broke the
// List contract, said with the RV that came, exit 1 (docs/exit-codes.md),
// in every command whose list names an RV: explain-error --check said
// "a list not older than RV 746 works (answered)". The same lists
// answered within their bound are no breach.
func TestAListOutsideItsOwnBoundIsABrokenAnswer(t *testing.T) {
	tooLarge := "Error from server (Timeout): Timeout: Too large resource version: 746, current: 703"
	for _, c := range []struct {
		name  string
		args  []string
		broke string // "" when the answer kept its bound
	}{
		{"explain-error --check", []string{"-n", "default", "explain-error", "--check", tooLarge}, "a list not older than RV 746 was answered at RV 100"},
		{"explain-error --check -o json", []string{"-n", "default", "explain-error", "--check", "-o", "json", tooLarge}, "a list not older than RV 746 was answered at RV 100"},
		{"list NotOlderThan", []string{"list", "cm", "-n", "default", "--rv", "746", "--rv-match", "NotOlderThan"}, "a list not older than RV 746 was answered at RV 100"},
		{"list NotOlderThan -o json", []string{"list", "cm", "-n", "default", "--rv", "746", "--rv-match", "NotOlderThan", "-o", "json"}, "a list not older than RV 746 was answered at RV 100"},
		{"list legacy exact (a limit, no match)", []string{"list", "cm", "-n", "default", "--rv", "746"}, "an exact list at RV 746 was answered at RV 100"},
		{"list paged Exact", []string{"list", "cm", "-n", "default", "--rv", "50", "--rv-match", "Exact", "--limit", "1"}, "an exact list at RV 50 was answered at RV 100"},
		{"probe --future", []string{"probe", "cm", "-n", "default", "--future"}, "a list not older than RV "},
		{"list Exact within", []string{"list", "cm", "-n", "default", "--rv", "100", "--rv-match", "Exact"}, ""},
		{"list NotOlderThan within", []string{"list", "cm", "-n", "default", "--rv", "50", "--rv-match", "NotOlderThan"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, kc := framework.ServeRVScript(t, framework.RVScript{Currents: []uint64{100}, Oldest: 50, BelowBound: true})
			r := framework.Run(t, kc, time.Minute, c.args...)
			out := r.Stdout + r.Stderr
			if c.broke == "" {
				if r.Code != 0 || strings.Contains(out, "broke the List contract") {
					t.Errorf("exit %d, want 0 and no breach:\n%s", r.Code, out)
				}
				return
			}
			if r.Code != 1 || !strings.Contains(out, "broke the List contract: "+c.broke) || strings.Contains(out, "works (") || strings.Contains(out, `"works": true`) {
				t.Errorf("exit %d, want 1, %q said, no \"works\":\n%s", r.Code, c.broke, out)
			}
		})
	}
}
