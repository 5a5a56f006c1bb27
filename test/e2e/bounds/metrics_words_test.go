//go:build e2e

package bounds

import (
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// A /metrics that is not read is said so in the plugin's words, in every
// command that reads it: never net/http's or context's ("context deadline
// exceeded" for a read never sent, "(Client.Timeout exceeded while
// awaiting headers)"), never the whole name[] query (adversary and user
// try 17).
func TestMetricsNotReadIsSaidInWords(t *testing.T) {
	hang := framework.ScriptAnswer{Hang: true}
	for _, c := range []struct {
		name   string
		script map[string]framework.ScriptAnswer
		args   []string
		words  string
	}{
		{"version and metrics hang", map[string]framework.ScriptAnswer{"/version": hang, "/metrics": hang}, []string{"list", "cm", "--request-timeout", "2s"}, "/metrics"},
		{"metrics hangs, list", map[string]framework.ScriptAnswer{"/metrics": hang}, []string{"list", "cm", "--request-timeout", "2s"}, "/metrics not read"},
		{"metrics hangs, probe", map[string]framework.ScriptAnswer{"/metrics": hang}, []string{"probe", "cm", "--metrics", "--request-timeout", "2s"}, "watch-cache metrics not shown: GET /metrics ("},
		{"metrics hangs, top", map[string]framework.ScriptAnswer{"/metrics": hang}, []string{"top", "--once", "--interval", "1s", "--request-timeout", "2s"}, "GET /metrics ("},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, kc := framework.ServeScript(t, c.script)
			host := s.Host()
			for _, args := range [][]string{c.args, append(append([]string{}, c.args...), "--endpoints", host)} {
				if args[0] == "list" && len(args) > 4 {
					continue // list --endpoints reads no /metrics
				}
				r := framework.RunUnderMemoryLimit(t, memoryLimit, kc, time.Minute, args...)
				out := r.Stdout + r.Stderr
				for _, raw := range []string{"context deadline exceeded", "Client.Timeout exceeded", "name%5B%5D", "name[]="} {
					if strings.Contains(out, raw) {
						t.Fatalf("%v: exit %d, raw words %q:\n%s", args, r.Code, raw, out)
					}
				}
				if !strings.Contains(out, c.words) {
					t.Fatalf("%v: exit %d, no %q:\n%s", args, r.Code, c.words, out)
				}
			}
		})
	}
}
