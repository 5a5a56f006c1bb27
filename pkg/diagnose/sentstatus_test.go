package diagnose

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A Status received as sent is classified and diagnosed by its code, never
// by a reason of another code: reason Expired with a code that is no HTTP
// error code is "other", no Expired and no 410; with 410 it stays Expired.
func TestSentStatusNeverInventsACode(t *testing.T) {
	for _, code := range []int32{200, 999, -5, 0, 302} {
		st := metav1.Status{Status: metav1.StatusFailure, Reason: metav1.StatusReasonExpired, Code: code, Message: "too old resource version: 4 (9)"}
		if f := ClassifySent(st); f != FailureOther {
			t.Errorf("code %d: class %s, want Other", code, f)
		}
		d := FromStatus(st, Context{Operation: OpWatch, RequestedResourceVersion: "4", Live: true})
		if d.IsRVProblem() || d.Code != code || strings.Contains(d.Summary, "410") || strings.Contains(d.Summary, "Gone") {
			t.Errorf("code %d: %s/%s code %d %q", code, d.Class, d.Kind, d.Code, d.Summary)
		}
	}
	st := metav1.Status{Status: metav1.StatusFailure, Reason: metav1.StatusReasonExpired, Code: 410, Message: "too old resource version: 4 (9)"}
	if f := ClassifySent(st); f != FailureExpired {
		t.Errorf("410: class %s, want Expired", f)
	}
	if d := FromStatus(st, Context{Operation: OpWatch, RequestedResourceVersion: "4", Live: true}); d.Class != ClassExpired {
		t.Errorf("410: %s", d.Class)
	}
}
