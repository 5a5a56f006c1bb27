//go:build e2e

package bounds

import (
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestNoneMeasuredSaysTheFirstAnswerAndWhatTheReadNeeds (fresh user try
// 29 F5, adversary try 29 F6): when no server of a per-server run could be
// measured, the line says the first failure as an answer of its read, with
// its status ("server X answered list configmaps with 429 Too Many
// Requests: upstream busy (...)"), as a one-server run does, never its body
// alone; and a run forbidden everywhere says what its read needs: top's
// GET /metrics a nonResourceURLs rule, not "list and watch them".
func TestNoneMeasuredSaysTheFirstAnswerAndWhatTheReadNeeds(t *testing.T) {
	const path = "/api/v1/namespaces/default/configmaps"
	busy := framework.ScriptAnswer{Head: "HTTP/1.1 429 Too Many Requests\r\nContent-Type: text/plain\r\nRetry-After: 0", Body: "upstream busy"}
	down := framework.ScriptAnswer{Head: "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nRetry-After: 0", Body: "upstream down"}
	hosts := func(a framework.ScriptAnswer) string {
		s1, _ := framework.ServeScript(t, map[string]framework.ScriptAnswer{path: a})
		s2, _ := framework.ServeScript(t, map[string]framework.ScriptAnswer{path: a})
		return s1.Host() + "," + s2.Host()
	}
	_, kc := framework.ServeScript(t, nil)
	busyEps, downEps := hosts(busy), hosts(down)
	forbiddenEps := hosts(framework.ScriptDefaults()[path]) // /metrics: 403 (ScriptDefaults)
	for _, c := range []struct {
		args      []string
		want, not []string
	}{
		{[]string{"probe", "configmaps", "--endpoints", busyEps}, []string{" with 429 Too Many Requests", "upstream busy (not marked as API Priority and Fairness's rejection)"}, nil},
		{[]string{"list", "configmaps", "--endpoints", busyEps}, []string{" answered list configmaps with 429 Too Many Requests", "upstream busy (not marked"}, nil},
		{[]string{"probe", "configmaps", "--endpoints", downEps}, []string{" with 503 Service Unavailable", "upstream down"}, nil},
		{[]string{"list", "configmaps", "--endpoints", downEps}, []string{" answered list configmaps with 503 Service Unavailable", "upstream down"}, nil},
		{[]string{"top", "--once", "--interval", "1s", "--endpoints", forbiddenEps},
			[]string{"forbidden: none of the 2 API servers could be measured", " answered get /metrics with 403", `needs a ClusterRole with nonResourceURLs ["/metrics"], verbs ["get"]`},
			[]string{"list and watch"}},
	} {
		t.Run(strings.Join(c.args[:2], " ")+" "+c.want[0], func(t *testing.T) {
			r := framework.Run(t, kc, 2*time.Minute, append(c.args, "--request-timeout", "5s")...)
			line := r.Stderr
			if i := strings.LastIndex(line, "error: "); i >= 0 {
				line = line[i:]
			}
			if !strings.Contains(line, "none of the 2 API servers could be measured (the first, server ") {
				t.Fatalf("exit %d, no none-measured line:\n%s", r.Code, r.Stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(line, w) {
					t.Errorf("exit %d, the line lacks %q:\n%s", r.Code, w, line)
				}
			}
			for _, w := range c.not {
				if strings.Contains(line, w) {
					t.Errorf("exit %d, the line says %q:\n%s", r.Code, w, line)
				}
			}
		})
	}
}

// TestPartlyMeasuredSaysTheFirstAnswer: when some servers answered and
// some failed, the line says the first failure as an answer of its read
// too, with its status, never "Throttled: upstream busy" (fresh user try
// 29 F5, the partial line).
func TestPartlyMeasuredSaysTheFirstAnswer(t *testing.T) {
	const path = "/api/v1/namespaces/default/configmaps"
	busy := framework.ScriptAnswer{Head: "HTTP/1.1 429 Too Many Requests\r\nContent-Type: text/plain\r\nRetry-After: 0", Body: "upstream busy"}
	good, kc := framework.ServeScript(t, nil)
	bad, _ := framework.ServeScript(t, map[string]framework.ScriptAnswer{path: busy})
	for _, args := range [][]string{{"probe", "configmaps"}, {"list", "configmaps"}} {
		r := framework.Run(t, kc, 2*time.Minute, append(args, "--endpoints", good.Host()+","+bad.Host(), "--request-timeout", "5s")...)
		if !strings.Contains(r.Stderr, "1 of 2 API servers failed (server "+bad.Host()+" answered list configmaps with 429 Too Many Requests: upstream busy") {
			t.Errorf("%v: exit %d, the partial line does not say the answer with its status and request:\n%s", args, r.Code, r.Stderr)
		}
	}
}
