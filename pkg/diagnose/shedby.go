package diagnose

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

// RejectedByAPF: err is a 429 that API Priority and Fairness sent.
func RejectedByAPF(err error) bool {
	st, ok := StatusOf(err)
	if !ok || st.Code != 429 || st.Details == nil {
		return false
	}
	for _, c := range st.Details.Causes {
		if string(c.Type) == APFRejectedCause {
			return true
		}
	}
	return false
}
