//go:build e2e

package bounds

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// An error answer whose Status has no message, or that has no body, is
// said so in every line that quotes it, in every command: never an empty
// quote ("server X: )", "Failed: NotFound: "; try 16), nor doubled
// parentheses around the words that say so (adversary try 20 #15:
// "/metrics not read ((the server's Status has no message))": /metrics
// answers so too, read for the server's facts).
func TestAnAnswerWithoutMessageIsSaidSo(t *testing.T) {
	const within = 30 * time.Second
	empty := regexp.MustCompile(`: \)|: $|: \n|:\s*;|\(\(`)
	for _, a := range []struct {
		name   string
		answer framework.ScriptAnswer
		words  string
	}{
		{"404 Status without message", framework.ScriptAnswer{Code: 404, Type: "application/json", Body: `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`}, "has no message"},
		{"503 Status without message", framework.ScriptAnswer{Code: 503, Type: "application/json", Body: `{"kind":"Status","apiVersion":"v1","status":"Failure","message":" ","code":503}`}, "has no message"},
		{"503 without body", framework.ScriptAnswer{Code: 503, Type: "text/plain"}, "has no body"},
	} {
		for _, on := range []string{"list", "watch", "metrics"} {
			script := map[string]framework.ScriptAnswer{"/metrics": a.answer}
			for _, p := range []string{"/api/v1/configmaps", "/api/v1/namespaces/default/configmaps"} {
				if on == "watch" {
					p += "?watch"
				}
				if on != "metrics" {
					script[p] = a.answer
				}
			}
			s, kc := framework.ServeScript(t, script)
			host := s.Host()
			for _, c := range []struct {
				reads string // "list", "watch" or both: what the command asks for
				args  []string
			}{
				{"list", []string{"list", "cm"}}, {"watch", []string{"watch", "cm", "--timeout", "3s"}}, {"list watch", []string{"watch", "cm", "--rv", "list", "--timeout", "3s"}},
				{"list watch", []string{"probe", "cm"}}, {"list watch", []string{"probe", "cm", "--endpoints", host}}, {"list watch", []string{"probe", "--all", "--endpoints", host, "--qps", "100"}},
				{"list", []string{"list", "cm", "--endpoints", host}},
				{"metrics", []string{"list", "cm"}}, {"metrics", []string{"probe", "cm", "--metrics"}},
			} {
				if !strings.Contains(c.reads, on) {
					continue
				}
				args := c.args
				t.Run(a.name+" on "+on+" "+strings.Join(args, " "), func(t *testing.T) {
					r := framework.RunUnderMemoryLimit(t, memoryLimit, kc, 2*within, append(args, "--request-timeout", "3s")...)
					out := r.Stdout + r.Stderr
					if m := empty.FindString(out); m != "" || !strings.Contains(out, a.words) {
						t.Fatalf("exit %d: an empty quote (%q) or no %q:\n%s", r.Code, m, a.words, out)
					}
				})
			}
		}
	}
}
