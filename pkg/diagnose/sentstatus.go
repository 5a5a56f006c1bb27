package diagnose

import (
	"encoding/json"
	"fmt"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/watchrv/kubectl-watchrv/internal/text"
)

// A Status the plugin received itself (an ERROR event's, an HTTP answer's,
// whose code the transport sets to its status) carries its code as sent:
// the one rule for it never invents a code. A code that is an HTTP error
// code (400 to 599) is what the Status is classified and diagnosed by; any
// other code (a success's 200, 0, 999, -5: none an error's) says nothing a
// client acts on, so the Status is no Expired, TooLarge or any code's
// failure whatever its reason or words: it is said as sent and exits 1
// ("other"). Only a 410 is Expired (adversary: an ERROR event of reason
// Expired and code 999 was told "Expired (Gone): too old: 410 Gone" and
// exited 10).

// IsErrorCode reports whether code is an HTTP error status (4xx or 5xx).
func IsErrorCode(code int32) bool { return code >= 400 && code <= 599 }

// ClassifySent is ClassifyFailure of a Status received as sent: FailureOther
// for a code that is no HTTP error code, whatever its reason; otherwise the
// class of its code (ClassifyFailure).
func ClassifySent(st metav1.Status) Failure {
	if !IsErrorCode(st.Code) {
		return FailureOther
	}
	return ClassifyFailure(apierrors.FromObject(&st))
}

// notErrorCode is the diagnosis of a Status received as sent whose code is
// no HTTP error code (FromStatus with Context.Live): no kind, its code and
// reason as they came, and a note that says why.
func notErrorCode(st metav1.Status) Diagnosis {
	u := unrecognized()
	u.Code, u.Reason, u.Message = st.Code, string(st.Reason), st.Message
	u.Summary = fmt.Sprintf("the server's Status has code %d, which is no HTTP error code: it is told as sent, not by its reason or words", st.Code)
	u.What = "The server sent a Status whose code is no HTTP error status (4xx or 5xx)."
	u.Why = "Clients act on the status code (client-go relists only on a 410, or a 504 for a too new RV); a reason or message without such a code is no Expired or TooLarge answer."
	u.Fix = "Check the API server's logs, and what any proxy in front of it sends, for why it sent this Status."
	note(&u, fmt.Sprintf("the Status's code %d is no HTTP error code: the answer is told as sent, never as another code's", st.Code))
	return u
}

// SentStatus is a Status as received in an ERROR event, with whether its
// "code" was sent: a Status's Code is an int32, whose 0 reads as "sent 0"
// where the server sent no code or "code": null (adversary: a Status of
// reason Expired and no code was told "0 Expired"). CodeSent is false then;
// the class stays ClassifySent's (no code is no HTTP error code: "other").
type SentStatus struct {
	metav1.Status
	CodeSent bool
}

// noCode is how a Status without a code is said: missing, never as 0.
const noCode = "whose Status carries no code"

// Said is the one wording of a received Status after what names it ("an
// ERROR event from the API server at ..."), on one line: "what: CODE
// Reason: message", its code as sent (a 0 sent too, said "0"), or "what
// whose Status carries no code: Reason: message" where none was sent.
// With what "", the Status alone: "CODE Reason: message", or "a Status
// with no code: Reason: message". message is the Status's message as the
// caller shortened it.
func (s SentStatus) Said(what, message string) string {
	if !s.CodeSent {
		if what == "" {
			what = "a Status"
		}
		what += " " + noCode
		line := StatusLine(0, string(s.Reason), message)
		if line == "" {
			return what + ", reason or message"
		}
		return what + ": " + line
	}
	line := StatusLine(s.Code, string(s.Reason), message)
	switch {
	case line == "":
		line = strconv.Itoa(int(s.Code))
	case s.Code == 0:
		// StatusLine leaves a 0 out: it was sent, so it is said.
		line = "0 " + line
	}
	if what == "" {
		return line
	}
	return what + ": " + line
}

// Text is the received Status's code and reason (StatusText), the code as
// sent: "0 Expired" for a 0 sent, "a Status of reason Expired and no code"
// where none was.
func (s SentStatus) Text() string {
	switch {
	case s.CodeSent && s.Code == 0 && s.Reason == "":
		return "0"
	case s.CodeSent && s.Code == 0:
		return "0 " + text.OneLine(string(s.Reason))
	case !s.CodeSent:
		st := s.Status
		st.Code = 0
		return StatusText(st)
	}
	return StatusText(s.Status)
}

// MarshalJSON writes the Status as sent: a 0 sent as "code": 0 (Status's
// omitempty would leave it out, as if none were sent), no code where none
// was.
func (s SentStatus) MarshalJSON() ([]byte, error) {
	st := s.Status
	if !s.CodeSent {
		st.Code = 0
	}
	b, err := json.Marshal(st)
	if err != nil || !s.CodeSent || s.Code != 0 {
		return b, err
	}
	if string(b) == "{}" {
		return []byte(`{"code":0}`), nil
	}
	return append(b[:len(b)-1:len(b)-1], `,"code":0}`...), nil
}

// UnmarshalJSON reads a Status as MarshalJSON wrote it: CodeSent where it
// has a code, null or absent none.
func (s *SentStatus) UnmarshalJSON(b []byte) error {
	var code struct {
		Code json.RawMessage `json:"code"`
	}
	if err := json.Unmarshal(b, &s.Status); err != nil {
		return err
	}
	if err := json.Unmarshal(b, &code); err != nil {
		return err
	}
	s.CodeSent = len(code.Code) > 0 && string(code.Code) != "null"
	return nil
}
