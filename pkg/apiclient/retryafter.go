package apiclient

import (
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"strings"
)

// The server's Retry-After header is one of its two ways to say how long
// to wait (the other is a Status's details.retryAfterSeconds, which the
// API server writes together with the header). A proxy, an aggregated
// server or a load balancer may send the header alone: the transport
// writes it into the Status it makes of every error answer (asStatus), so
// that the one retry policy, which reads the Status (RetryAfter), waits
// for it as for the body's (adversary try 25 F6: "Retry-After: 3" gave a
// 1 s wait). The body's value wins when both are there: it is the API
// server's own Status, and the header may be a proxy's.

// maxRetryAfterDigits bounds the header read: more than 9 digits (over
// 31 years) is no delay anyone means; the policy caps every wait anyway.
const maxRetryAfterDigits = 9

// retryAfterHeader is the header's delay in seconds, 0 when there is
// none or it is not delta-seconds (an HTTP-date is not read: no API
// server sends one, and it would hang the wait on the two clocks'
// agreement).
func retryAfterHeader(h http.Header) int32 {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" || len(v) > maxRetryAfterDigits {
		return 0
	}
	n, err := strconv.ParseUint(v, 10, 32)
	if err != nil || n == 0 {
		return 0
	}
	return int32(min(n, math.MaxInt32))
}

// withRetryAfter sets details.retryAfterSeconds of the Status status to
// seconds, unless the Status names a delay of its own; a body that is no
// JSON object (a protobuf Status) is returned as it is.
func withRetryAfter(status []byte, seconds int32) []byte {
	var obj map[string]json.RawMessage
	if seconds <= 0 || json.Unmarshal(status, &obj) != nil {
		return status
	}
	details := map[string]json.RawMessage{}
	if raw, has := obj["details"]; has && json.Unmarshal(raw, &details) != nil {
		return status // details that are no object: client-go reads no delay there either
	}
	var own int32
	if raw, has := details["retryAfterSeconds"]; has && json.Unmarshal(raw, &own) == nil && own > 0 {
		return status
	}
	details["retryAfterSeconds"], _ = json.Marshal(seconds)
	obj["details"], _ = json.Marshal(details)
	out, err := json.Marshal(obj)
	if err != nil {
		return status
	}
	return out
}
