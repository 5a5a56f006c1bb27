//go:build e2e

package watch

import (
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// Adversary try 27 F5: watch --rv N's check read was sent 3 times (a 500,
// retried by the plugin's backoff), and its warning said the 500 but not
// the retries nor the wait, as every final error line does. The warning
// after retried reads says them with the one text (withRetryWaits).
func TestWatchRVCheckWarningSaysItsRetries(t *testing.T) {
	t.Parallel()
	const path = "/api/v1/namespaces/default/configmaps"
	failed := framework.ScriptAnswer{Code: 500, Type: "application/json", Body: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"boom","reason":"InternalError","code":500}`}
	srv, kc := framework.ServeScriptSequence(t, path, []framework.ScriptAnswer{failed, failed, failed}, nil)
	r := framework.Run(t, kc, 30*time.Second, "watch", "configmaps", "--rv", "100", "--timeout", "3s")
	all := r.Stdout + r.Stderr
	if srv.Asked(path) < 3 {
		t.Fatalf("the check read was not retried: the case does not reach what it attacks:\n%s", all)
	}
	for _, line := range strings.Split(all, "\n") {
		if strings.Contains(line, "cannot read the current RV to check --rv 100") {
			if !strings.Contains(line, "answered list configmaps with 500") || !strings.Contains(line, "(after 2 retries and ") {
				t.Errorf("the check warning does not say its answer and its retries:\n%s", line)
			}
			return
		}
	}
	t.Fatalf("no check warning:\n%s", all)
}

// The class across commands: list --rv 0's current-RV read, sent again
// after 500s, says its own retries in the advice that could not be
// checked, as watch's --rv check warning does (render.RetriesSaid).
func TestListCurrentRVCheckSaysItsRetries(t *testing.T) {
	t.Parallel()
	const path = "/api/v1/namespaces/default/configmaps"
	failed := framework.ScriptAnswer{Code: 500, Type: "application/json", Body: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"boom","reason":"InternalError","code":500}`}
	list := framework.ScriptDefaults()[path]
	_, kc := framework.ServeScriptSequence(t, path, []framework.ScriptAnswer{list, failed, failed, failed}, nil)
	r := framework.Run(t, kc, 30*time.Second, "list", "configmaps", "--rv", "0")
	all := r.Stdout + r.Stderr
	if !strings.Contains(all, "the current RV could not be read to check it (the API server answered list configmaps with 500 InternalError: boom (after 2 retries and ") {
		t.Fatalf("exit %d: the advice does not say the read's answer and its own retries:\n%s", r.Code, all)
	}
}

// Adversary try 29 F5: a --rv check read answered after retries says so
// before the watch, so that the wait is not silent and the run's retries
// on a later error line are not read as the watch's own.
func TestWatchRVCheckAnsweredAfterRetriesSaysThem(t *testing.T) {
	t.Parallel()
	const path = "/api/v1/namespaces/default/configmaps"
	failed := framework.ScriptAnswer{Code: 503, Type: "application/json", Body: statusBody(503, "ServiceUnavailable", "busy")}
	_, kc := framework.ServeScriptSequence(t, path, []framework.ScriptAnswer{failed}, nil)
	r := framework.Run(t, kc, 30*time.Second, "watch", "configmaps", "--rv", "100", "--timeout", "2s")
	if !strings.Contains(r.Stderr, "the read of the current RV that checks --rv 100 was answered after retries (after 1 retry and ") ||
		!strings.Contains(r.Stderr, "first sent again after: 503 Service Unavailable: busy") {
		t.Fatalf("exit %d: the check read's retries are not said:\n%s", r.Code, r.Stderr)
	}
}
