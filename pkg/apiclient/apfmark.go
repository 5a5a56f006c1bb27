package apiclient

import (
	"encoding/json"
	"net/http"

	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
)

// API Priority and Fairness's response headers (k8s.io/api flowcontrol
// ResponseHeaderMatched...): it sets them before its 429 as on every
// request it lets through (diagnose.APFRejectedCause says why only a text
// 429 with them is its rejection).
const (
	apfPriorityLevelHeader = "X-Kubernetes-PF-PriorityLevel-UID"
	apfFlowSchemaHeader    = "X-Kubernetes-PF-FlowSchema-UID"
)

// shedByAPF: the answer carries API Priority and Fairness's headers.
func shedByAPF(h http.Header) bool {
	return h.Get(apfPriorityLevelHeader) != "" || h.Get(apfFlowSchemaHeader) != ""
}

// withAPFMark adds the cause that marks status, a Status the transport
// made of a text 429, as API Priority and Fairness's rejection.
func withAPFMark(status []byte) []byte {
	var obj map[string]any
	if json.Unmarshal(status, &obj) != nil {
		return status
	}
	obj["reason"] = "TooManyRequests"
	obj["details"] = map[string]any{"causes": []map[string]string{{
		"reason":  diagnose.APFRejectedCause,
		"field":   diagnose.APFMarkField, // the mark is the transport's alone
		"message": "the 429 carried API Priority and Fairness's X-Kubernetes-PF-* headers",
	}}}
	out, err := json.Marshal(obj)
	if err != nil {
		return status
	}
	return out
}
