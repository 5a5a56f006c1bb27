package diagnose

import (
	"encoding/json"
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

// A code absent or null is no code 0 (adversary: "0 Expired: too old" of a
// Status that had no code): every wording of a received Status says it
// missing, a 0 sent as 0, any other code as sent; the class is Other for
// all three (no HTTP error code), and the JSON keeps what was sent.
func TestSentStatusSaysAMissingCodeMissing(t *testing.T) {
	base := metav1.Status{Status: metav1.StatusFailure, Reason: metav1.StatusReasonExpired, Message: "too old resource version: 1 (50)"}
	cases := []struct {
		name      string
		st        SentStatus
		said      string
		text      string
		json, not string
	}{
		{"absent", SentStatus{Status: base}, "an ERROR event whose Status carries no code: Expired: too old resource version: 1 (50)", "a Status of reason Expired and no code", `"reason":"Expired"`, `"code"`},
		{"zero", SentStatus{Status: base, CodeSent: true}, "an ERROR event: 0 Expired: too old resource version: 1 (50)", "0 Expired", `"code":0`, "no code"},
		{"999", SentStatus{Status: func() metav1.Status { s := base; s.Code = 999; return s }(), CodeSent: true}, "an ERROR event: 999 Expired: too old resource version: 1 (50)", "999 Expired", `"code":999`, "no code"},
	}
	for _, c := range cases {
		if got := c.st.Said("an ERROR event", c.st.Message); got != c.said {
			t.Errorf("%s: Said %q, want %q", c.name, got, c.said)
		}
		if got := c.st.Text(); got != c.text {
			t.Errorf("%s: Text %q, want %q", c.name, got, c.text)
		}
		if got := c.st.Said("", c.st.Message); c.name == "absent" && (strings.Contains(got, "0 ") || !strings.Contains(got, "no code")) {
			t.Errorf("%s: bare %q", c.name, got)
		}
		if f := ClassifySent(c.st.Status); f != FailureOther {
			t.Errorf("%s: class %s, want Other", c.name, f)
		}
		b, err := json.Marshal(c.st)
		if err != nil || !strings.Contains(string(b), c.json) || (c.not == `"code"` && strings.Contains(string(b), c.not)) {
			t.Errorf("%s: JSON %s (%v), want %s", c.name, b, err, c.json)
		}
		var back SentStatus
		if err := json.Unmarshal(b, &back); err != nil || back.CodeSent != c.st.CodeSent || back.Code != c.st.Code {
			t.Errorf("%s: JSON read back as %+v (%v)", c.name, back, err)
		}
	}
	if got := (SentStatus{}).Said("an ERROR event", ""); got != "an ERROR event whose Status carries no code, reason or message" {
		t.Errorf("empty: %q", got)
	}
}
