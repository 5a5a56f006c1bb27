//go:build e2e

package bounds

import (
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestTheFirstRetrysCauseIsSaidUnlessItIsTheFinalAnswer (adversary try 28
// F4): the failure the first retry was sent after is said with its status
// ("503 Service Unavailable: server"), and left out only when the final
// answer is the same status and message: not because the line holds its
// message somewhere ("server" is in "the API server at"), nor because the
// final 500 has the 503's message.
func TestTheFirstRetrysCauseIsSaidUnlessItIsTheFinalAnswer(t *testing.T) {
	const path = "/api/v1/namespaces/default/configmaps"
	status := func(code int, reason, msg string) framework.ScriptAnswer {
		a := framework.StatusAnswer(code, reason, msg)
		a.Head = "HTTP/1.1 " + map[int]string{500: "500 Internal Server Error", 503: "503 Service Unavailable"}[code] + "\r\nContent-Type: application/json\r\nRetry-After: 1"
		return a
	}
	final := status(500, "InternalError", "etcd leader changed")
	for _, c := range []struct {
		name  string
		first framework.ScriptAnswer
		want  string // "": no first cause said
	}{
		{"a message the line holds", status(503, "ServiceUnavailable", "server"), "; first sent again after: 503 Service Unavailable: server"},
		{"the final answer's message", status(503, "ServiceUnavailable", "etcd leader changed"), "; first sent again after: 503 Service Unavailable: etcd leader changed"},
		{"the final answer itself", final, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			answers := []framework.ScriptAnswer{c.first}
			for range 10 {
				answers = append(answers, final)
			}
			_, kc := framework.ServeScriptSequence(t, path, answers, nil)
			r := framework.Run(t, kc, time.Minute, "list", "configmaps", "--rv-only")
			said := strings.Contains(r.Stderr, "first sent again after")
			if !strings.Contains(r.Stderr, "etcd leader changed") || !strings.Contains(r.Stderr, "retries") ||
				c.want == "" && said || c.want != "" && !strings.Contains(r.Stderr, c.want) {
				t.Fatalf("exit %d, want the first cause %q:\n%s", r.Code, c.want, r.Stderr)
			}
		})
	}
}

// TestTheFirstRetrysCauseIsWhoSentThe429 (adversary try 29 F1): a 429 is
// also who sent it (diagnose.ThrottledBy): API Priority and Fairness's 429
// and an unmarked one of the same text are two failures, and the first
// is said beside the retries with whose it was; the same 429 twice is one.
func TestTheFirstRetrysCauseIsWhoSentThe429(t *testing.T) {
	const path = "/api/v1/namespaces/default/configmaps"
	const apf = "\r\nX-Kubernetes-PF-FlowSchema-UID: 5e4b1f1e-0000-4000-8000-000000000001\r\nX-Kubernetes-PF-PriorityLevel-UID: 5e4b1f1e-0000-4000-8000-000000000002"
	busy := func(headers string) framework.ScriptAnswer {
		return framework.ScriptAnswer{Head: "HTTP/1.1 429 Too Many Requests\r\nContent-Type: text/plain; charset=utf-8\r\nRetry-After: 0" + headers,
			Body: "Too many requests, please try again later.\n"}
	}
	for _, c := range []struct {
		name         string
		first, final framework.ScriptAnswer
		want         string // the first cause's end ("": none said)
	}{
		{"APF's, then an unmarked one", busy(apf), busy(""), "please try again later (API Priority and Fairness's rejection))"},
		{"an unmarked one, then APF's", busy(""), busy(apf), "please try again later (not marked as API Priority and Fairness's rejection))"},
		{"APF's twice", busy(apf), busy(apf), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			answers := []framework.ScriptAnswer{c.first}
			for range 10 {
				answers = append(answers, c.final)
			}
			_, kc := framework.ServeScriptSequence(t, path, answers, nil)
			r := framework.Run(t, kc, time.Minute, "list", "configmaps", "--rv-only")
			said := strings.Contains(r.Stderr, "first sent again after")
			if !strings.Contains(r.Stderr, "retries") || c.want == "" && said || c.want != "" && !strings.Contains(r.Stderr, "; first sent again after: 429 ") || !strings.HasSuffix(strings.TrimSpace(r.Stderr), c.want) || strings.Contains(r.Stderr, ".:") {
				t.Fatalf("exit %d, want the first cause %q:\n%s", r.Code, c.want, r.Stderr)
			}
		})
	}
}
