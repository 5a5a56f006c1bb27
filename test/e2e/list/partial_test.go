//go:build e2e

package list

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// A walk that stops before the list's last page read a part of the list,
// never the list: no output shows it as one (fresh user try 22 F2 and F3:
// an interrupted walk printed "Items: 223" of 305, "all 223 pages at RV
// 939", "list RV is not lower: ok" and, in -o json, a watchCommand and
// "context canceled"; a walk whose continue token expired with
// --no-restart showed "Items: 149" and "all 149 pages", and its -o json
// suggested a watch). Every way a walk stops early, over every output:
// the signal prints only "interrupted"; otherwise the human output and
// -o json|yaml say the list is not whole (NOT THE WHOLE LIST,
// "incomplete") and carry nothing said only of a whole list (no
// suggested watch, no "all N pages", no "ok", no consistent, no
// listResourceVersionBelowNewestItem); -o name and the templates print
// nothing, as for an answer that broke the List contract.
func TestAPartialListIsNeverShownAsTheList(t *testing.T) {
	const path = "/api/v1/namespaces/default/configmaps"
	page := func(i int, next string) framework.ScriptAnswer {
		cont := ""
		if next != "" {
			cont = fmt.Sprintf(`,"continue":%q`, next)
		}
		return framework.ScriptAnswer{Code: 200, Type: "application/json", Body: fmt.Sprintf(
			`{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"100"%s,"remainingItemCount":5},"items":[{"metadata":{"name":"cm-%d","namespace":"default","uid":"u-%d","resourceVersion":"90"}}]}`, cont, i, i)}
	}
	forbidden := framework.ScriptAnswer{Code: 403, Type: "application/json", Body: `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"configmaps is forbidden: User \"script\" cannot list resource \"configmaps\"","reason":"Forbidden","code":403}`}
	for _, c := range []struct {
		why   string
		pages []framework.ScriptAnswer
		flags []string
		code  int
	}{
		// Page 3's token is none the server knows: 410, twice (the
		// restart meets it again), or once with --no-restart.
		{"its continue token expired twice", []framework.ScriptAnswer{page(1, "1"), page(2, "9")}, nil, 10},
		{"its continue token expired, --no-restart", []framework.ScriptAnswer{page(1, "1"), page(2, "9")}, []string{"--no-restart"}, 10},
		{"its page was refused", []framework.ScriptAnswer{page(1, "1"), page(2, "2"), forbidden}, nil, 7},
		{"a continue token came again", []framework.ScriptAnswer{page(1, "1"), page(2, "1")}, nil, 13},
		{"the signal cut it", []framework.ScriptAnswer{page(1, "1"), page(2, "2"), {Hang: true}}, nil, 130},
	} {
		for _, out := range [][]string{nil, {"-o", "wide"}, {"-o", "json"}, {"-o", "yaml"}, {"-o", "name"}, {"-o", "jsonpath={.resourceVersion}"}, {"-o", "go-template={{.itemCount}}"}} {
			args := append(append([]string{"list", "cm", "--limit", "1"}, c.flags...), out...)
			t.Run(c.why+"/"+strings.Join(out, " "), func(t *testing.T) {
				s, kc := framework.ServeScriptPageAnswers(t, path, c.pages, nil)
				p := framework.StartPlugin(t, kc, args...)
				var code int
				if c.code == 130 {
					for deadline := time.Now().Add(time.Minute); s.Asked(path) < int64(len(c.pages)); time.Sleep(50 * time.Millisecond) {
						if time.Now().After(deadline) {
							t.Fatalf("%d request(s) of %s in a minute; stderr:\n%s", s.Asked(path), path, p.Stderr())
						}
					}
					time.Sleep(300 * time.Millisecond) // the page request is in flight
					code = p.Stop(syscall.SIGINT, 30*time.Second)
				} else {
					code = p.Wait(time.Minute)
				}
				if code != c.code {
					t.Fatalf("exit %d, want %d; stderr:\n%s", code, c.code, p.Stderr())
				}
				if c.code == 130 {
					if p.Stdout() != "" || p.Stderr() != "interrupted\n" {
						t.Errorf("stdout %q, stderr %q: a walk the signal cut prints only \"interrupted\"", p.Stdout(), p.Stderr())
					}
					return
				}
				notShownAsTheList(t, out, p.Stdout())
			})
		}
	}
}

// notShownAsTheList fails t when stdout, the output of a list that was
// not read whole in the output form out, shows it as the list.
func notShownAsTheList(t *testing.T, out []string, stdout string) {
	t.Helper()
	form := ""
	if len(out) == 2 {
		form = out[1]
	}
	switch {
	case form == "" || form == "wide":
		if !strings.Contains(stdout, "NOT THE WHOLE LIST") {
			t.Errorf("the report does not say the list is not whole:\n%s", stdout)
		}
		for _, whole := range []string{"kubectl watchrv watch", "Page RVs:              all", "single page", "ok)"} {
			if strings.Contains(stdout, whole) {
				t.Errorf("the report of a part of the list says %q, said only of a whole list:\n%s", whole, stdout)
			}
		}
	case form == "json" || form == "yaml":
		var doc map[string]any
		if err := yaml.Unmarshal([]byte(stdout), &doc); err != nil {
			t.Fatalf("-o %s is no document: %v\n%s", form, err, stdout)
		}
		if _, ok := doc["incomplete"]; !ok {
			t.Errorf("-o %s has no \"incomplete\":\n%s", form, stdout)
		}
		for _, whole := range []string{"watchCommand", "consistent", "listResourceVersionBelowNewestItem"} {
			if _, ok := doc[whole]; ok {
				t.Errorf("-o %s of a part of the list has %q, said only of a whole list:\n%s", form, whole, stdout)
			}
		}
	default:
		// -o name and the templates print for scripts, which would read
		// what they print as the collection's.
		if stdout != "" {
			t.Errorf("-o %s printed a part of the list: %q", form, stdout)
		}
	}
}
