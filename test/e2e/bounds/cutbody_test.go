//go:build e2e

package bounds

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// Adversary F7: a /metrics answer cut mid-body made top say "the
// connection to the API server ... broke: unexpected EOF", where a list
// cut so says "the list response of ... broke off after 1,860 bytes". The
// class: every body the plugin reads goes through the one wording of a
// cut body (apiclient.BodyCut): the request named, the bytes read, never
// Go's words, and exit 4 (the connection broke, docs/exit-codes.md).
func TestACutBodyIsSaidInOneWording(t *testing.T) {
	var metrics strings.Builder
	metrics.WriteString("# HELP apiserver_longrunning_requests Gauge of all active long-running apiserver requests.\n# TYPE apiserver_longrunning_requests gauge\n")
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&metrics, "apiserver_longrunning_requests{component=\"apiserver\",group=\"\",resource=\"r%d\",scope=\"cluster\",subresource=\"\",verb=\"WATCH\",version=\"v1\"} %d\n", i, i)
	}
	version := `{"major":"1","minor":"37","gitVersion":"v1.37.2","platform":"linux/amd64","buildDate":"2026-01-01T00:00:00Z","goVersion":"go1.25"}`
	cases := []struct {
		name    string
		script  map[string]framework.ScriptAnswer
		args    func(s *framework.ScriptServer) []string
		request string
		cutAt   int
	}{
		{"top", map[string]framework.ScriptAnswer{"/metrics": {Code: 200, Type: "text/plain", Body: metrics.String(), Cut: 3000}},
			func(*framework.ScriptServer) []string { return []string{"top", "--once"} }, "GET /metrics", 3000},
		{"top -o json", map[string]framework.ScriptAnswer{"/metrics": {Code: 200, Type: "text/plain", Body: metrics.String(), Cut: 3000}},
			func(*framework.ScriptServer) []string { return []string{"top", "--once", "-o", "json"} }, "GET /metrics", 3000},
		{"top --endpoints", map[string]framework.ScriptAnswer{"/metrics": {Code: 200, Type: "text/plain", Body: metrics.String(), Cut: 3000}},
			func(s *framework.ScriptServer) []string { return []string{"top", "--once", "--endpoints", s.Host()} }, "GET /metrics", 3000},
		{"version", map[string]framework.ScriptAnswer{"/version": {Code: 200, Type: "application/json", Body: version, Cut: 40}},
			func(*framework.ScriptServer) []string { return []string{"version"} }, "GET /version", 40},
	}
	goWords := regexp.MustCompile(`(?i)\bunexpected EOF\b|\bEOF\b`)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, kc := framework.ServeScript(t, c.script)
			r := framework.Run(t, kc, 30*time.Second, c.args(s)...)
			all := r.Stdout + r.Stderr
			if r.Code != 4 {
				t.Fatalf("exit %d, want 4 (the connection broke, docs/exit-codes.md):\n%s", r.Code, all)
			}
			var line string
			for _, l := range strings.Split(r.Stderr, "\n") {
				if strings.HasPrefix(l, "error: ") {
					line = l
				}
			}
			want := fmt.Sprintf("broke off after %s bytes: the connection closed before the answer's end", fmt.Sprint(c.cutAt))
			if c.cutAt >= 1000 {
				want = fmt.Sprintf("broke off after %d,%03d bytes", c.cutAt/1000, c.cutAt%1000)
			}
			if !strings.Contains(line, c.request) || !strings.Contains(line, want) {
				t.Errorf("the error line does not name %s and the bytes read (%q):\n%s", c.request, want, all)
			}
			if goWords.MatchString(all) {
				t.Errorf("the output says a cut in Go's words:\n%s", all)
			}
		})
	}
}
