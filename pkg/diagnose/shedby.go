package diagnose

import (
	"crypto/rand"
	"encoding/hex"
)

// A real API server sheds a request it cannot seat in two filters, both
// with the same plain-text answer ("Too many requests, please try again
// later.", a 429 with a Retry-After header; k8s.io/apiserver
// pkg/server/filters): API Priority and Fairness, which first sets its
// X-Kubernetes-PF-FlowSchema-UID and X-Kubernetes-PF-PriorityLevel-UID
// headers, and the max-in-flight limit (APF off), which sets none. APF
// also sets them on every request it lets through, so a 429 that a
// handler wrote after it (the watch cache's lagging answer, a JSON
// Status) carries them too: only a 429 that is no Status, with the
// headers, is APF's rejection. The transport marks that answer's Status
// with APFRejectedCause when it makes one of the text (apiclient
// asStatus), and the words "API Priority and Fairness" are said of a
// 429 only when the mark is there (CI: the real server's APF rejection
// was called a proxy's 429, fresh user try 27 F7 having taken any text
// 429 for one).

// APFRejectedCause is the Status cause type that marks a 429 as API
// Priority and Fairness's rejection.
const APFRejectedCause = "APIPriorityAndFairnessRejected"

// APFMarkField is the field of the transport's mark: a random word made
// once per process, never sent nor said, so that the mark is the
// transport's alone. A server's JSON 429 may carry a cause of type
// APFRejectedCause too; without this word it is the server's claim, not
// the mark (adversary try 28 F1: a JSON 429 that claimed the cause, with
// no X-Kubernetes-PF-* headers, was called API Priority and Fairness).
var APFMarkField = newAPFMarkField()

func newAPFMarkField() string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		// No randomness: no mark can be told from a server's claim, so
		// none is ever taken for one ("" is never a mark's field).
		return ""
	}
	return "apf-mark-" + hex.EncodeToString(b)
}

// RejectedByAPF: err is a 429 that API Priority and Fairness sent, as the
// transport marked it (APFMarkField); a server's own cause of that type
// is not the mark.
func RejectedByAPF(err error) bool {
	st, ok := StatusOf(err)
	if !ok || st.Code != 429 || st.Details == nil || APFMarkField == "" {
		return false
	}
	for _, c := range st.Details.Causes {
		if string(c.Type) == APFRejectedCause && c.Field == APFMarkField {
			return true
		}
	}
	return false
}
