//go:build e2e

package bounds

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestAForbiddenLineNamesTheAnswer (fresh user try 34 F4): the error line
// of a 403 names the server, the request that got it and its status, as
// every other answer's line does and as the run's own Failed line or NOTE
// says it, on every one-target command; exit 7; never "forbidden:
// forbidden:".
func TestAForbiddenLineNamesTheAnswer(t *testing.T) {
	s, kc := serveForbiddenConfigmaps(t)
	line := regexp.MustCompile(`(?m)^error: (no stream of this session was healthy \(1 failed attempt in a row since [0-9:]+\): )?forbidden: the API server at ` + regexp.QuoteMeta(s.URL()) + ` answered (list|watch) configmaps with 403 Forbidden: configmaps is forbidden: `)
	for _, args := range [][]string{
		{"list", "cm"}, {"list", "cm", "--rv-only"}, {"watch", "cm", "--timeout", "2s"}, {"watch", "cm", "--rv", "list", "--timeout", "2s"},
		{"watch", "cm", "--follow", "--timeout", "2s"}, {"probe", "cm"}, {"streaming", "cm"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			r := framework.Run(t, kc, time.Minute, args...)
			if r.Code != 7 || !line.MatchString(r.Stderr) || strings.Contains(r.Stderr, "forbidden: forbidden") {
				t.Errorf("exit %d, want 7 and a line matching /%s/:\n%s", r.Code, line, r.Stderr)
			}
		})
	}
}

// top's read of /metrics refused: the same line, with what the read needs
// (adversary try 35 F4). The message is v1.37.2's own for a user without
// the nonResourceURLs grant.
func TestTopsForbiddenLineNamesTheAnswer(t *testing.T) {
	s, kc := framework.ServeScript(t, map[string]framework.ScriptAnswer{
		"/metrics": {Code: 403, Type: "application/json", Body: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"forbidden: User \"nobody\" cannot get path \"/metrics\"","reason":"Forbidden","details":{},"code":403}`},
	})
	// As the --endpoints run's line says the same answer (fresh user try
	// 36 F3): the one describer, apiclient.AnswerWords.
	r := framework.Run(t, kc, time.Minute, "top", "--once", "--interval", "1s")
	want := "error: forbidden: the API server at " + s.URL() + " answered get /metrics with 403 forbidden: User \"nobody\" cannot get path \"/metrics\": top reads GET /metrics, which needs a ClusterRole"
	if r.Code != 7 || !strings.Contains(r.Stderr, want) {
		t.Errorf("exit %d, want 7 and %q:\n%s", r.Code, want, r.Stderr)
	}
}

// explain-error --check --endpoints of servers that refuse with 403: the
// line names each server's request by its resource, and what it needs
// (fresh user try 35 F1: "answered watch server 127.0.0.1:21207 with
// 403", "it needs RBAC permission to list and watch them").
func TestAForbiddenServerOfTheCheckIsNamedByItsRequest(t *testing.T) {
	s, kc := serveForbiddenConfigmaps(t)
	r := framework.Run(t, kc, time.Minute, "explain-error", "--check", "--endpoints", s.Host(), "too old resource version: 5 (10)")
	out := r.Stdout + r.Stderr
	if strings.Contains(out, "answered watch server ") || strings.Contains(out, "list and watch them") || !strings.Contains(r.Stderr, "answered watch configmaps with 403 Forbidden") && !strings.Contains(r.Stderr, "answered list configmaps with 403 Forbidden") {
		t.Errorf("exit %d: the line does not name the request by its resource:\n%s", r.Code, out)
	}
}

// serveForbiddenConfigmaps is a server that answers every list and watch
// of configmaps (in default and across namespaces) with v1.37.2's 403.
func serveForbiddenConfigmaps(t *testing.T) (*framework.ScriptServer, string) {
	forbidden := framework.ScriptAnswer{Code: 403, Type: "application/json", Body: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps is forbidden: User \"u\" cannot list resource \"configmaps\"","reason":"Forbidden","details":{"kind":"configmaps"},"code":403}`}
	script := map[string]framework.ScriptAnswer{}
	for _, p := range []string{"/api/v1/namespaces/default/configmaps", "/api/v1/configmaps"} {
		script[p], script[p+"?watch"] = forbidden, forbidden
	}
	return framework.ServeScript(t, script)
}
