//go:build e2e

package list

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// pastedCommand is a suggested command in list's output, human or JSON.
var pastedCommand = regexp.MustCompile(`kubectl watchrv [^\n"]*`)

// Adversary try 44 B: a list whose RV is no storage's ("abc", a number
// past 64 bits) exited 0 suggesting "list and watch in one instead:
// kubectl watchrv watch configmaps -n default --rv list", which, pasted,
// exits 1 "the list gave no resume point". The class: every command list
// suggests works when pasted against the same server; for a list RV no
// watch can start from, none is suggested, and the advice says why. A
// list at a storage's RV is the control: its suggestion is run too.
func TestEveryListSuggestionWorksWhenPasted(t *testing.T) {
	t.Parallel()
	const path = "/api/v1/namespaces/default/configmaps"
	for _, v := range []string{"abc", "18446744073709551616", "-7", "0", "100"} {
		t.Run(v, func(t *testing.T) {
			t.Parallel()
			script := framework.ScriptDefaults()
			script[path] = framework.ScriptAnswer{Code: 200, Type: "application/json", Body: `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"` + v + `"},"items":[]}`}
			_, kc := framework.ServeScript(t, script)
			var lines []string
			for _, out := range [][]string{nil, {"-o", "json"}} {
				r := framework.Run(t, kc, 30*time.Second, append([]string{"list", "cm"}, out...)...)
				if r.Code != 0 {
					t.Fatalf("list %v: exit %d:\n%s%s", out, r.Code, r.Stdout, r.Stderr)
				}
				text := r.Stdout
				if out != nil {
					var doc struct {
						WatchCommand string `json:"watchCommand"`
						WatchAdvice  string `json:"watchAdvice"`
					}
					if err := json.Unmarshal([]byte(r.Stdout), &doc); err != nil {
						t.Fatalf("-o json: %v\n%s", err, r.Stdout)
					}
					text = doc.WatchCommand + "\n" + doc.WatchAdvice
				}
				found := pastedCommand.FindAllString(text, -1)
				if v != "100" && (len(found) > 0 || !strings.Contains(text, "no watch starts from it")) {
					t.Errorf("list %v at RV %q: a watch is suggested, or the advice does not say why none is:\n%s", out, v, text)
				}
				if v == "100" && len(found) == 0 {
					t.Fatalf("list %v at RV 100: no watch suggested: the control does not reach what the test runs:\n%s", out, text)
				}
				lines = append(lines, found...)
			}
			for _, line := range lines {
				p := framework.RunPasted(t, strings.TrimSpace(line), []string{"KUBECONFIG=" + kc}, time.Minute, "--timeout", "2s")
				if p.Code != 0 {
					t.Errorf("the suggested %s, pasted, exits %d:\n%s%s", line, p.Code, p.Stdout, p.Stderr)
				}
			}
		})
	}
}
