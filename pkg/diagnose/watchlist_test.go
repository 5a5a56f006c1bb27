package diagnose

import (
	"errors"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// capturedWatchListOff is the 422 that v1.30.14 and v1.33.13 gave a
// streaming list (captured by test/e2e/matrix into docs/servers.md).
const capturedWatchListOff = `ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled`

func TestIsWatchListRefusedReadsTheCapturedAnswer(t *testing.T) {
	refused := &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: 422, Reason: metav1.StatusReasonInvalid, Message: capturedWatchListOff}}
	if !IsWatchListRefused(refused) || !IsWatchListRefused(errors.Join(errors.New("streaming list"), refused)) {
		t.Fatal("the captured 422 is a server without streaming lists")
	}
	// Another 422 of the samples (a write without resourceVersion) is not.
	other := &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: 422, Reason: metav1.StatusReasonInvalid,
		Message: `foos.example.com "demo" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update`}}
	if IsWatchListRefused(other) || IsWatchListRefused(nil) {
		t.Fatal("only the WatchList refusal is one")
	}
	// The phrase is a prefilter anchor: a log line holding it is read.
	if !worthClassifying([]byte("E1201 watch failed: " + capturedWatchListOff)) {
		t.Fatal("a line with the WatchList refusal is skipped by the prefilter")
	}
}
