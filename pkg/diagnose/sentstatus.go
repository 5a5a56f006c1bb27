package diagnose

import (
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
