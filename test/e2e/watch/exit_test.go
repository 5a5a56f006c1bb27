//go:build e2e

package watch

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// exitCase is one outcome of the exit rule's table: how the watch request
// is answered (nil: by the real server), the extra flags, and the exit
// code both modes must give.
type exitCase struct {
	name   string
	answer framework.WatchAnswer
	// future: start the watch from an RV ahead of the server; else from
	// the namespace's current RV.
	future bool
	want   int
	// status is the code of the ERROR event the run must show (0: none).
	status int
	// stderr must appear in the error line (both modes).
	stderr string
	// noResume is the summary's noResumePoint without --follow ("": a
	// resume point remains, the start RV).
	noResume string
}

// TestWatchExitRuleOverModesAndOutcomes is the one exit rule of watch
// (docs/watch.md "Exit codes") as a table: each outcome of a watch, with
// and without --follow, exits with the same code. The outcomes that no
// real server gives on demand (a held response, an ERROR event of every
// code a watch can carry, a cut, a stream ended at once) come from a watch
// front (framework.WatchFront) in front of the real v1.37.2 server, which
// answers everything else (discovery, the current-RV check, relists); the
// quiet watch and the future RV held silently are the real server's own.
func TestWatchExitRuleOverModesAndOutcomes(t *testing.T) {
	t.Parallel()
	cs, ns := newNamespace(t, shared, "watch-exit-rule")
	w := cmWriter{t: t, cs: cs, ns: ns}
	a := w.create("a", nil)
	prevKv := fmt.Sprintf("etcd event received with PrevKv=nil (key=\"/registry/configmaps/%s/a\", modRevision=%s, type=PUT)", ns, a.ResourceVersion)
	cases := []exitCase{
		{name: "never answered", answer: framework.HoldWatch(), want: 4, stderr: "no response headers came"},
		{name: "answered, quiet", want: 0},
		{name: "ERROR 400", answer: status(400, "BadRequest", "invalid request"), want: 2, status: 400},
		{name: "ERROR 401", answer: status(401, "Unauthorized", "Unauthorized"), want: 6, status: 401},
		{name: "ERROR 403", answer: status(403, "Forbidden", `configmaps is forbidden: User "x" cannot watch resource "configmaps"`), want: 7, status: 403},
		{name: "ERROR 404", answer: status(404, "NotFound", "the server could not find the requested resource"), want: 9, status: 404},
		{name: "ERROR 410 Expired", answer: status(410, "Expired", "too old resource version: 5 (9)"), want: 10, status: 410, noResume: "rv-expired-or-too-large"},
		{name: "ERROR 410 Gone", answer: status(410, "Gone", "too old resource version: 5 (9)"), want: 10, status: 410, noResume: "rv-expired-or-too-large"},
		{name: "ERROR 429", answer: status(429, "TooManyRequests", "Too many requests, please try again later."), want: 8, status: 429},
		{name: "ERROR 500", answer: status(500, "InternalError", "Internal error occurred: boom"), want: 1, status: 500, stderr: "500 InternalError: Internal error occurred: boom"},
		{name: "ERROR 500 PrevKv=nil", answer: status(500, "InternalError", prevKv), want: 1, status: 500, noResume: "change-lost", stderr: "Relist, or watch again from"},
		// A server's words are never the kubeconfig's failure (adversary
		// round 6: exit 2, "check the exec command of the kubeconfig").
		{name: "ERROR 500 quoting a credential plugin", answer: status(500, "InternalError", "getting credentials: exec: executable boom failed"), want: 1, status: 500},
		{name: "ERROR 503", answer: status(503, "ServiceUnavailable", "the server is currently unable to handle the request"), want: 1, status: 503},
		{name: "ERROR 504 TooLarge", answer: framework.ErrorEvent(framework.WatchStatus{Code: 504, Reason: "Timeout", Message: "Timeout: Too large resource version: 99999999, current: 5", Cause: "ResourceVersionTooLarge"}),
			want: 10, status: 504, noResume: "rv-expired-or-too-large"},
		{name: "ERROR 504 Timeout", answer: status(504, "Timeout", "Timeout: request did not complete within the allotted timeout"), want: 1, status: 504, stderr: "504 Timeout: request did not complete"},
		// Refused before any stream: the summary and its failureStreak
		// are there too (fresh user try 16: a 403 printed the header
		// alone, and -o json nothing).
		{name: "refused 401", answer: framework.RefuseWatch(framework.WatchStatus{Code: 401, Reason: "Unauthorized", Message: "Unauthorized"}), want: 6},
		{name: "refused 403", answer: framework.RefuseWatch(framework.WatchStatus{Code: 403, Reason: "Forbidden", Message: `configmaps is forbidden: User "x" cannot watch resource "configmaps"`}), want: 7, stderr: "cannot watch resource"},
		{name: "refused 429", answer: framework.RefuseWatch(framework.WatchStatus{Code: 429, Reason: "TooManyRequests", Message: "Too many requests, please try again later."}), want: 8},
		{name: "cut mid-stream", answer: framework.CutWatch(ns, "a", a.ResourceVersion), want: 4},
		{name: "future RV held", future: true, want: 0, noResume: "start-rv-ahead"},
		{name: "future RV ended at once", answer: framework.EmptyWatch(), future: true, want: 10, noResume: "start-rv-ahead", stderr: "ended the watch from RV"},
		{name: "ended at once", answer: framework.EmptyWatch(), want: 1, stderr: "ended the watch from RV"},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, kc := frontAnswering(t, c.answer, fmt.Sprintf("front-%s-%d.kubeconfig", ns, i))
			start := a.ResourceVersion
			if c.future {
				start = fmt.Sprint(rvNum(t, a.ResourceVersion) + 10000000)
			}
			for _, mode := range [][]string{nil, {"--follow"}} {
				out := runWatch(t, kc, 2*time.Minute, append([]string{"cm", "-n", ns, "--rv", start, "--timeout", "4s"}, mode...)...)
				where := fmt.Sprintf("%s, watch %v", c.name, mode)
				if out.Code != c.want {
					t.Fatalf("%s: want exit %d, got %d\nstderr: %s\nstdout: %s", where, c.want, out.Code, out.Stderr, out.Stdout)
				}
				if c.stderr != "" && !strings.Contains(out.Stderr, c.stderr) {
					t.Fatalf("%s: stderr lacks %q: %s", where, c.stderr, out.Stderr)
				}
				bads := []string{"Timeout: Timeout:", "raise --request-timeout"}
				if c.noResume == "change-lost" {
					bads = append(bads, "then run again") // the same lost change again (user try 24 F2)
				}
				for _, bad := range bads {
					if strings.Contains(out.Stderr+out.Stdout, bad) {
						t.Fatalf("%s: the output says %q:\n%s\n%s", where, bad, out.Stderr, out.Stdout)
					}
				}
				sum := out.summary(t)
				if (c.want == 0) != (sum.FailureStreak == nil) {
					t.Fatalf("%s: exit %d must go with a failure in the summary exactly when it is not 0: %+v", where, out.Code, sum.FailureStreak)
				}
				if c.status != 0 {
					var seen bool
					for _, e := range out.events() {
						seen = seen || e.Type == "ERROR" && e.Status != nil && e.Status.Code == c.status
					}
					if !seen {
						t.Fatalf("%s: no ERROR record with code %d:\n%s", where, c.status, out.Stdout)
					}
				}
				if mode != nil {
					continue
				}
				if sum.NoResumePoint != c.noResume {
					t.Fatalf("%s: noResumePoint %q, want %q (summary %+v)", where, sum.NoResumePoint, c.noResume, sum)
				}
				if c.noResume == "" && (sum.LastResourceVersion != start || sum.ResumeFrom != "start") {
					t.Fatalf("%s: the start RV %s stays the resume point, got %q from %q", where, start, sum.LastResourceVersion, sum.ResumeFrom)
				}
				if c.noResume != "" && sum.LastResourceVersion != "" {
					t.Fatalf("%s: no resume point, yet lastResourceVersion %q", where, sum.LastResourceVersion)
				}
			}
		})
	}
}

// explain-error --check repeats the error's request (a watch from the
// Expired RV): when that request fails for a reason of its own, the
// command exits with that failure's code, as watch does, and still shows
// what it tried (adversary round 5, #5: the watch path exited 0 whatever
// its answer). The watches are answered by a front; the current-RV list
// by the real server.
func TestExplainCheckExitsWithTheWatchsFailure(t *testing.T) {
	t.Parallel()
	cs, ns := newNamespace(t, shared, "explain-check-exit")
	w := cmWriter{t: t, cs: cs, ns: ns}
	w.create("a", nil)
	cases := []struct {
		name   string
		answer framework.WatchAnswer
		want   int
	}{
		{"ERROR 401", status(401, "Unauthorized", "Unauthorized"), 6},
		{"ERROR 403", status(403, "Forbidden", `configmaps is forbidden: User "x" cannot watch resource "configmaps"`), 7},
		{"ERROR 429", status(429, "TooManyRequests", "Too many requests, please try again later."), 8},
		{"ERROR 500", status(500, "InternalError", "Internal error occurred: boom"), 1},
		{"ERROR 403 quoting a credential plugin", status(403, "Forbidden", "getting credentials: exec: executable boom failed"), 7},
		// The one whole event is at RV 2, below any current RV: the
		// check reads on, into the cut.
		{"cut mid-stream", framework.CutWatch(ns, "a", "2"), 4},
		{"refused as the error was", status(410, "Expired", "too old resource version: 1 (9)"), 0},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			front, kc := frontAnswering(t, c.answer, fmt.Sprintf("front-check-%s-%d.kubeconfig", ns, i))
			r := framework.Run(t, kc, time.Minute, "explain-error", "--check", "-n", ns, "too old resource version: 1 (2)")
			if r.Code != c.want {
				t.Fatalf("exit %d, want %d\nstderr: %s\nstdout: %s", r.Code, c.want, r.Stderr, r.Stdout)
			}
			if front.Watches() == 0 || !strings.Contains(r.Stdout, "a watch from RV 1") {
				t.Fatalf("the check's watch was not sent or not shown (%d watches):\n%s", front.Watches(), r.Stdout)
			}
			if c.want != 0 && strings.Count(strings.TrimSpace(r.Stderr), "\n") != 0 {
				t.Fatalf("want one error line: %s", r.Stderr)
			}
		})
	}
}

// frontAnswering starts a watch front on the shared server whose watches
// get answer, and a kubeconfig (file name) for it.
func frontAnswering(t *testing.T, answer framework.WatchAnswer, name string) (*framework.WatchFront, string) {
	front := framework.StartWatchFront(t, shared.APIServers[0])
	front.Answer(answer)
	return front, front.Kubeconfig(t, shared, name)
}

// status is a watch answered with one ERROR event of that Status.
func status(code int32, reason, msg string) framework.WatchAnswer {
	return framework.ErrorEvent(framework.WatchStatus{Code: code, Reason: reason, Message: msg})
}
