package streaming

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/sweep"
)

// E22 (issue 25): one rule gives every outcome its meaning for the exit
// code, for one resource and for --all. The results are Judge's, from the
// observations of real runs (test/e2e/streaming) and of the fake servers
// of test/e2e/framework: a 410 refusal was exit 0 ("refused / retries").
func TestOneOutcomeRulePerResult(t *testing.T) {
	n := 2
	statusErr := func(code int32, reason metav1.StatusReason, msg string) error {
		return &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: code, Reason: reason, Message: msg}}
	}
	refused := func(code int32, reason metav1.StatusReason, msg string) Result {
		return Result{Code: code, Reason: string(reason), Message: msg, Err: statusErr(code, reason, msg)}
	}
	cases := []struct {
		name string
		r    Result
		want Outcome
	}{
		{"correct", Result{BookmarkReceived: true, InitialObjects: 2, ListCount: &n}, OutcomeSyncs},
		{"unverified", Result{BookmarkReceived: true, CountUnchecked: true, Problems: []string{"the state was not checked"}}, OutcomeSyncs},
		{"incorrect", Result{BookmarkReceived: true, Problems: []string{"differs"}}, OutcomeDefect},
		{"held open without the bookmark", Result{InitialObjects: 3, StreamMillis: 3000, FirstEventMillis: 40}, OutcomeDefect},
		{"ended after events", Result{StreamEnded: true, StreamMillis: 20, FirstEventMillis: 5}, OutcomeDefect},
		{"ended at once without an event", Result{StreamEnded: true, StreamMillis: 20}, OutcomeNoStream},
		{"410 Expired refusal", refused(410, metav1.StatusReasonExpired, "too old resource version: 1 (2)"), OutcomeNoStream},
		{"504 TooLarge refusal", refused(504, metav1.StatusReasonTimeout, "Timeout: Too large resource version: 9, current: 2"), OutcomeNoStream},
		{"422 without WatchList", refused(422, metav1.StatusReasonInvalid, `ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled`), OutcomeNoStream},
		{"400", refused(400, metav1.StatusReasonBadRequest, "bad"), OutcomeNoStream},
		{"500 ERROR event", refused(500, metav1.StatusReasonInternalError, "boom"), OutcomeNoStream},
		{"401", refused(401, metav1.StatusReasonUnauthorized, "Unauthorized"), OutcomeFailed},
		{"403", refused(403, metav1.StatusReasonForbidden, "forbidden"), OutcomeFailed},
		{"429", refused(429, metav1.StatusReasonTooManyRequests, "slow down"), OutcomeFailed},
		{"no connection", Result{Error: "connection refused", Err: fmt.Errorf("get: %w", &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED})}, OutcomeFailed},
		{"undecodable stream", Result{Error: `unknown watch event type "X"`, Err: errors.New(`unknown watch event type "X"`)}, OutcomeFailed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := c.r
			Judge(&r)
			if got := r.Outcome(); got != c.want {
				t.Fatalf("%s (%s/%s): outcome %s, want %s", c.name, r.Status, r.Informer, got, c.want)
			}
		})
	}
}

// The same rule over an --all run: a resource that does not stream has
// failed (12 among others that stream, the refusal's 1 when none does); a
// defect (hang, wrong state) is the run's own verdict, whatever else.
func TestAllRunsFollowTheOneRule(t *testing.T) {
	n := 1
	syncs := Result{Resource: "secrets", BookmarkReceived: true, ListCount: &n, InitialObjects: 1}
	refused := Result{Resource: "configmaps", Code: 410, Reason: "Expired", Err: &apierrors.StatusError{ErrStatus: metav1.Status{Code: 410, Reason: metav1.StatusReasonExpired}}}
	incorrect := Result{Resource: "widgets", BookmarkReceived: true, Problems: []string{"differs"}}
	run := func(rows ...Result) error {
		res := make([]apiclient.Resource, len(rows))
		r := sweep.Each(context.Background(), res, sweep.Options{What: "resource"}, func(_ context.Context, _ apiclient.Resource) sweep.Step[Result] {
			row := rows[0]
			rows = rows[1:]
			Judge(&row)
			return step(row)
		})
		return AllErr(context.Background(), r)
	}
	var partial *sweep.PartialError
	var none *sweep.NoneError
	var defect *DefectError
	var refusal *RefusedError
	if err := run(syncs, refused); !errors.As(err, &partial) {
		t.Errorf("one refusal among streams: %v, want a partial failure (12)", err)
	}
	if err := run(refused, refused); !errors.As(err, &partial) || len(partial.Failed) != 2 || !errors.As(partial.Failed[0].Err, &refusal) {
		t.Errorf("every resource refused: %v, want a run of answers, each a refusal (the caller's 1)", err)
	}
	throttledToo := Result{Resource: "secrets", Err: apierrors.NewTooManyRequests("slow down", 1)}
	if err := run(throttledToo, throttledToo); !errors.As(err, &none) {
		t.Errorf("no resource answered: %v, want none measured", err)
	}
	if err := run(syncs, refused, incorrect); !errors.As(err, &defect) || len(defect.Incorrect) != 1 {
		t.Errorf("a wrong state: %v, want the defect (1)", err)
	}
	// adversary try 31 F3: refusals are answers; only the failed request
	// was not measured.
	throttled := Result{Resource: "secrets", Err: apierrors.NewTooManyRequests("slow down", 1)}
	if err := run(refused, throttled, refused); !errors.As(err, &partial) || !strings.HasPrefix(err.Error(), "1 of 3 resources could not be measured (secrets: ") || !strings.Contains(err.Error(), "and 2 more failed the check by their answer") {
		t.Errorf("refusals and one throttled check: %v, want a partial failure of the throttled one alone, the refusals counted apart", err)
	}
	// fresh user try 33 F3: among streams too, the refusals are not
	// counted among what could not be measured, and an answer is said once.
	if err := run(refused, syncs, throttled); !errors.As(err, &partial) || !strings.HasPrefix(err.Error(), "1 of 3 resources could not be measured (secrets: ") || !strings.Contains(err.Error(), "and 1 more failed the check by its answer") {
		t.Errorf("a refusal, a stream and a throttled check: %v, want 1 of 3 not measured and 1 answered apart", err)
	}
	if err := run(syncs, refused); err == nil || strings.Contains(err.Error(), "refused the streaming list: ") || !strings.Contains(err.Error(), "1 of 2 resources failed the check by its answer (configmaps: 410 Expired") {
		t.Errorf("one refusal among streams: %v, want the refusal said as its answer, once", err)
	}
	if err := run(syncs, syncs); err != nil {
		t.Errorf("every resource syncs: %v", err)
	}
}
