//go:build e2e

package bounds

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// contractForms are every -o of list and watch: the human output, the
// documents (json, yaml) and the forms scripts read (name, the
// templates).
var contractForms = [][]string{nil, {"-o", "json"}, {"-o", "yaml"}, {"-o", "name"}, {"-o", `jsonpath={.name}{"\n"}`}, {"-o", `go-template={{.name}}{{"\n"}}`}}

// What the contract refused is printed by no output form as the
// collection's: -o name and the templates, which scripts read, print none
// of it; the human output, -o json and -o yaml print it only where it is
// marked as a breach (adversary try 20 #8: watch -o name printed an
// object of another namespace and one out of RV order, unmarked, where
// list -o name withheld them). refused names the objects no form may
// print unmarked; marks are the words that mark them, per form.
func TestWhatTheContractRefusedIsNeverPrintedUnmarked(t *testing.T) {
	obj := func(name, ns, rv string) string {
		return fmt.Sprintf(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":%q,"namespace":%q,"uid":"u-%s","resourceVersion":%q}}`, name, ns, name, rv)
	}
	ev := func(o string) string { return `{"type":"ADDED","object":` + o + "}\n" }
	json := func(body string) framework.ScriptAnswer {
		return framework.ScriptAnswer{Code: 200, Type: "application/json", Body: body}
	}
	const path = "/api/v1/namespaces/default/configmaps"
	for _, c := range []struct {
		name    string
		script  map[string]framework.ScriptAnswer
		args    []string
		refused []string // names no form prints unmarked
		kept    string   // what a script form still prints ("" none)
	}{
		{"watch: another namespace and out of RV order", map[string]framework.ScriptAnswer{path + "?watch": json(ev(obj("keep", "default", "101")) + ev(obj("evil", "kube-system", "102")) + ev(obj("late", "default", "50")))},
			[]string{"watch", "cm", "--rv", "100", "--timeout", "3s"}, []string{"evil", "late"}, "keep"},
		{"list: another namespace", map[string]framework.ScriptAnswer{path: json(`{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"100"},"items":[` + obj("keep", "default", "90") + "," + obj("evil", "kube-system", "91") + `]}`)},
			[]string{"list", "cm"}, []string{"evil", "keep"}, ""},
		{"list: one object twice", map[string]framework.ScriptAnswer{path: json(`{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"100"},"items":[` + obj("twice", "default", "90") + "," + obj("twice", "default", "90") + `]}`)},
			[]string{"list", "cm"}, []string{"twice"}, ""},
	} {
		_, kc := framework.ServeScript(t, c.script)
		for _, form := range contractForms {
			args := append(append([]string{}, c.args...), form...)
			t.Run(c.name+" "+strings.Join(form, " "), func(t *testing.T) {
				r := framework.Run(t, kc, time.Minute, args...)
				if r.Code != 1 || !strings.Contains(r.Stderr, "broke the") {
					t.Errorf("exit %d: want 1 and the breach named:\n%s", r.Code, r.Stderr)
				}
				for _, name := range c.refused {
					for _, where := range unmarked(r.Stdout, form, name) {
						t.Errorf("prints %q unmarked: %q\nstdout:\n%s", name, where, r.Stdout)
					}
				}
				if c.kept != "" && !strings.Contains(r.Stdout, c.kept) {
					t.Errorf("the event within the contract (%s) is not printed:\n%s", c.kept, r.Stdout)
				}
			})
		}
	}
}

// unmarked are the places of out (one -o form's stdout) that show name
// with no mark of a breach: a line of the human output or of -o json, a
// document of -o yaml, any line of the forms scripts read.
func unmarked(out string, form []string, name string) []string {
	parts := strings.Split(out, "\n")
	marks := []string{"breaks the Watch contract", "broke the", "outside the request", "contractBreach", "excluded"}
	switch {
	case len(form) > 0 && form[1] == "yaml":
		parts = strings.Split(out, "\n---\n")
	case len(form) > 0 && form[1] != "json":
		marks = nil // name and the templates: never
	}
	var bad []string
	for _, p := range parts {
		if !strings.Contains(p, name) {
			continue
		}
		marked := false
		for _, m := range marks {
			marked = marked || strings.Contains(p, m)
		}
		if !marked {
			bad = append(bad, p)
		}
	}
	return bad
}
