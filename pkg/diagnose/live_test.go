package diagnose

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Adversary try 28 F5 and F6, attacked as classes over recorded answers of
// v1.37.2 (the messages of messages_test.go): a live answer's diagnosis
// never speaks of a pasted text, never takes the server's number as the
// request's when the request sent none, and the HTTP status decides the
// kind whatever the Status's reason says.
func TestLiveAnswersSpeakOfTheAnswer(t *testing.T) {
	pasted := []string{"pieced together", "Find the original error", "paste the full", "says the text", "the text was edited", "the line was"}
	answers := []metav1.Status{
		{Code: 410, Reason: metav1.StatusReasonExpired, Message: "too old resource version: 214 (257)"},
		{Code: 410, Reason: metav1.StatusReasonGone, Message: ""},
		{Code: 504, Reason: metav1.StatusReasonTimeout, Message: "Timeout: Too large resource version: 5000, current: 4000"},
		{Code: 410, Reason: metav1.StatusReasonExpired, Message: "The resourceVersion for the provided watch is too old."},
	}
	contexts := []Context{
		{Operation: OpWatch, Live: true, NoResourceVersionSent: true},
		{Operation: OpWatch, Live: true, RequestedResourceVersion: "300"},
		{Operation: OpStreamingList, Live: true, NoResourceVersionSent: true},
		{Operation: OpList, Live: true},
	}
	for _, st := range answers {
		for _, ctx := range contexts {
			d := FromStatus(st, ctx)
			all := strings.Join(append([]string{d.Summary, d.What, d.Why, d.Fix}, d.Notes...), "\n")
			for _, w := range pasted {
				if strings.Contains(all, w) {
					t.Errorf("%d %q in %+v: a live answer's diagnosis speaks of a pasted text (%q):\n%s", st.Code, st.Message, ctx, w, all)
				}
			}
			if ctx.NoResourceVersionSent && d.IsRVProblem() {
				if d.Class == ClassTooLarge {
					// A lagging watch cache's own answer to a consistent
					// read: no contradiction, and no RV said as asked.
					if strings.Contains(d.Summary, "the request asked for RV") {
						t.Errorf("%d %q: a consistent read's RV said as the request's:\n%s", st.Code, st.Message, all)
					}
					continue
				}
				if d.Inconsistent == "" || d.Confidence != ConfidenceLow {
					t.Errorf("%d %q to a request that sent no RV is not inconsistent: %+v", st.Code, st.Message, d)
				}
				if strings.Contains(all, "asked for the events after RV") {
					t.Errorf("the server's number is taken as the request's:\n%s", all)
				}
			}
		}
	}
}

func TestTheHTTPStatusDecidesOverTheReason(t *testing.T) {
	const msg = "Timeout: Too large resource version: 5000, current: 4000" // v1.37.2's, recorded
	for _, c := range []struct {
		code   int32
		reason metav1.StatusReason
		want   string
	}{
		{504, metav1.StatusReasonTimeout, KindResourceVersionTooLarge},
		{504, metav1.StatusReasonTooManyRequests, KindResourceVersionTooLarge},
		{504, metav1.StatusReasonExpired, KindResourceVersionTooLarge},
		{504, "", KindResourceVersionTooLarge},
		{429, metav1.StatusReasonTooManyRequests, KindConsistentReadCacheLagging},
		{429, metav1.StatusReasonTimeout, KindConsistentReadCacheLagging},
	} {
		for _, op := range []string{OpList, OpStreamingList, ""} {
			d := FromStatus(metav1.Status{Code: c.code, Reason: c.reason, Message: msg}, Context{Operation: op, RequestedResourceVersion: "5000", Live: true})
			if d.Kind != c.want {
				t.Errorf("%d %s (%s): kind %s, want %s (the HTTP status wins)", c.code, c.reason, op, d.Kind, c.want)
			}
		}
	}
}
