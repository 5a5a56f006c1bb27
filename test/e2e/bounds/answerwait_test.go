//go:build e2e

package bounds

import (
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// A server that takes the request and never answers ends every command
// with "no answer" (exit 4) once apiclient.AnswerWait has passed, when no
// --request-timeout bounds it (fresh user try 19: top hung for ever; list,
// probe and streaming did too once discovery was cached, as here, where
// the script server answers discovery and hangs the rest). A watch is
// bounded by its own time (--timeout, streaming's deadline), not by this.
func TestEveryCommandEndsWhenNoAnswerBegins(t *testing.T) {
	hang := framework.ScriptAnswer{Hang: true}
	_, kc := framework.ServeScript(t, map[string]framework.ScriptAnswer{
		"/api/v1/namespaces/default/configmaps":       hang,
		"/api/v1/namespaces/default/configmaps?watch": hang,
		"/metrics": hang,
	})
	for _, args := range [][]string{
		{"list", "cm"}, {"list", "cm", "--rv-only"}, {"probe", "cm"}, {"probe", "cm", "--metrics"},
		{"top", "--once", "--interval", "1s"}, {"explain-error", "--check", "too old resource version: 1 (2)"},
		{"watch", "cm", "--rv", "list"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			r := framework.Run(t, kc, apiclient.AnswerWait+time.Minute, args...)
			took := time.Since(start)
			if r.Code != 4 || !strings.Contains(r.Stderr, "no answer within 1m15s") {
				t.Errorf("exit %d after %s: want 4 and the bound named: %s", r.Code, took.Round(time.Second), r.Stderr)
			}
			if took > apiclient.AnswerWait+30*time.Second {
				t.Errorf("ended after %s, long past the bound of %s", took.Round(time.Second), apiclient.AnswerWait)
			}
		})
	}
}
