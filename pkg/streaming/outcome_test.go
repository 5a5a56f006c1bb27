package streaming

import (
	"errors"
	"fmt"
	"net"
	"syscall"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
