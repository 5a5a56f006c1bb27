package apiclient

import (
	"errors"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Every request's error leaves capError without its closing full stop,
// and is still the API error it was: an error line goes on with ": ".
func TestCapErrorLeavesTheClosingPeriodOut(t *testing.T) {
	for _, c := range []struct{ message, want string }{
		{"Too many requests, please try again later.", "Too many requests, please try again later"},
		{"please wait...", "please wait..."},
		{"too old resource version: 10 (50)", "too old resource version: 10 (50)"},
	} {
		in := &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: 429, Reason: metav1.StatusReasonTooManyRequests, Message: c.message}}
		got := capError(in)
		var status *apierrors.StatusError
		if got.Error() != c.want || !errors.As(got, &status) || !apierrors.IsTooManyRequests(got) {
			t.Errorf("capError(%q) = %q (an API error: %v), want %q, still a 429", c.message, got.Error(), errors.As(got, &status), c.want)
		}
	}
	if capError(nil) != nil {
		t.Error("capError(nil) is not nil")
	}
}
