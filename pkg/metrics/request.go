package metrics

import (
	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
)

// FailureWords is a failed read of /metrics as a note, a warning or a
// row of a table says it: an answer as the error line says one, its
// status and request with its words (apiclient.FailureWords: "the API
// server answered get /metrics with 503 Service Unavailable: ..."), any
// other failure in ShortRequest's words. The one way every command's note
// of /metrics says why it was not read: list's server facts, probe
// --metrics, top's row of a server (fresh user try 27 F3: "/metrics not
// read (injected metrics outage)", the body alone, no 503, no request).
// ShortRequest keeps the error's own text, which the final error line
// wraps in the same words itself.
func FailureWords(err error) string {
	if diagnose.IsAnswer(err) {
		return apiclient.FailureWords("get", "/metrics", err)
	}
	return text.OneLine(ShortRequest(err).Error())
}

// Request is a read of /metrics as its errors name it
// (apiclient.MetricsRequest).
func Request(families int) string { return apiclient.MetricsRequest(families) }

// ShortRequest is err, a failed read of /metrics, in the one wording of
// every failed request (apiclient.ShortRequest: "GET /metrics (21
// families): ..."): probe --metrics, list's server facts and top (the
// body cap's and the bounds' errors name it so themselves).
func ShortRequest(err error) error { return apiclient.ShortRequest(err) }
