package diagnose

import (
	"net/http"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// This file is the one place a status code is read from text. Every form
// is bounded: a code is three digits not part of a longer number, and a
// code read without a key that says it is one ("code", "status", "HTTP",
// a client's message) must be a status net/http has a name for.

// statusCodeIn finds an HTTP status code written in any of the wrappers:
//
//   - a key: "code":410, code: 410, statusCode: 410, HTTP response code: 410,
//     HTTP-Code: 410, code=410;
//   - client-go's own message for an answer without a Status body
//     (apimachinery NewGenericServerResponse, clientGoMessages);
//   - a word before it: HTTP 410, HTTP/1.1 410, HTTP/2 410, code 410,
//     status code 410, status 410, status="410 Gone", status: 410;
//   - Python's "(410)" on a line of its own, .NET's "invalid status code 'Gone'";
//   - the code and its name or Status reason: 410 Gone, 410 Expired,
//     504 Gateway Timeout, 504 Timeout, 429 Too Many Requests, 429
//     TooManyRequests, 500 Internal Server Error, 500 InternalError, 503
//     Service Unavailable, 503 ServiceUnavailable, 502 Bad Gateway;
//   - the code alone: the whole text is "410".
//
// Numbers that are not said to be a status (resourceVersion: "410",
// items: 410, 18:04:10.410, a pid [10410]) are not read.
func statusCodeIn(s string) int {
	c, _ := statusCodeOf(s)
	return c
}

// statusCodeOf is statusCodeIn, and whether the code was read from one of
// client-go's fixed messages (clientGoMessages), whose number the text
// does not hold: client-go wrote those words (and kubectl's "Error from
// server (Reason)" beside them) from the code alone, so they are one
// signal, not a code and a reason that confirm each other.
func statusCodeOf(s string) (int, bool) {
	code := 0
	valuesAfterKey(s, "code", func(i int, _ string) bool {
		code = httpCode(s, i)
		return code == 0
	})
	if code != 0 {
		return code, false
	}
	if c, fixed := clientGoCode(s); c != 0 {
		return c, fixed
	}
	for _, w := range [...]string{"HTTP", "code", "status"} {
		if c := codeAfterWord(s, w); c != 0 {
			return c, false
		}
	}
	if c := pythonCode(s); c != 0 {
		return c, false
	}
	if i := strings.Index(s, qualStatusName); i >= 0 {
		rest := s[i+len(qualStatusName):]
		if k := strings.IndexByte(rest[:min(len(rest), 24)], '\''); k > 0 {
			if c, ok := statusNames[rest[:k]]; ok {
				return c, false
			}
		}
	}
	if c, _ := codeWithName(s); c != 0 {
		return c, false
	}
	if t := strings.TrimSpace(s); len(t) == 3 {
		return namedCode(t, 0), false
	}
	return 0, false
}

// codeReasonIn is the Status reason a "410 Expired" form puts beside its
// code ("" if none): only a reason apimachinery gives that code, and not
// the HTTP name of the code ("410 Gone" is an HTTP status line, and says
// nothing of the Status reason).
func codeReasonIn(s string) string {
	_, r := codeWithName(s)
	return r
}

// httpCode reads a three-digit status code at s[i], not part of a longer number.
func httpCode(s string, i int) int {
	if i < 0 || i+3 > len(s) || (i > 0 && isDigit(s[i-1])) || (i+3 < len(s) && isDigit(s[i+3])) {
		return 0
	}
	n := 0
	for _, c := range []byte(s[i : i+3]) {
		if !isDigit(c) {
			return 0
		}
		n = n*10 + int(c-'0')
	}
	if n < 100 || n > 599 {
		return 0
	}
	return n
}

// namedCode is httpCode for a code read without a key: only a status
// net/http has a name for.
func namedCode(s string, i int) int {
	c := httpCode(s, i)
	if c == 0 || http.StatusText(c) == "" {
		return 0
	}
	return c
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// codeStart reports whether a code read without a key may start at s[i]:
// at the start of the text or after a blank, a quote, an opening bracket,
// '=' or the '>' of an HTML tag (a proxy's "<title>502 Bad Gateway</title>"),
// never after '.', ':' or '-' (a timestamp, a version) or a letter.
func codeStart(s string, i int) bool {
	return i == 0 || strings.IndexByte(" \t\r\n\"'([=>", s[i-1]) >= 0
}

// codeAfterWord finds a status code after word (in lower or Title case;
// HTTP in capitals), with blanks, an optional ':' or '=' and an optional
// quote between: "HTTP 410", "code 410", "status code 410", "status: 410",
// status="410 Gone". HTTP may carry its version: "HTTP/1.1 410", "HTTP/2
// 410". The walk is linear in len(s).
func codeAfterWord(s, word string) int {
	it := newKeyIter(s, word)
	for from := 0; from < len(s); {
		i, n := it.next(from)
		if i < 0 {
			return 0
		}
		j := i + n
		from = j
		if i > 0 && isLetter(s[i-1]) && !(s[i] >= 'A' && s[i] <= 'Z') {
			continue // "decode 500 items"; "statusCode 410" and "httpStatus 410" still name a code
		}
		if j < len(s) && isLetter(s[j]) {
			continue // "codes 410", "HTTPS"
		}
		if word == "HTTP" && j < len(s) && s[j] == '/' {
			j++
			for j < len(s) && (isDigit(s[j]) || s[j] == '.') && j-i < 12 {
				j++
			}
		}
		k := skipSpaces(s, j)
		if k < len(s) && (s[k] == ':' || s[k] == '=') {
			k = skipSpaces(s, k+1)
		}
		if k < len(s) && (s[k] == '"' || s[k] == '\'') {
			k++
		}
		if k == j {
			continue // "code410": nothing between the word and the number
		}
		if c := namedCode(s, k); c != 0 {
			return c
		}
	}
	return 0
}

// pythonCode: Python's ApiException prints "(410)" on a line of its own.
func pythonCode(s string) int {
	for from := 0; from < len(s); {
		i := strings.IndexByte(s[from:], '(')
		if i < 0 {
			break
		}
		j := from + i + 1
		from = j
		// Only "(410)" alone at the end of a line (or before an escaped
		// "\n" in a JSON log), after the start of a line, "ApiException: "
		// or "ApiException ": never "(257)" inside a message.
		after := j + 4
		lineEnd := after >= len(s) || s[after] == '\n' || s[after] == '\r' || strings.HasPrefix(s[after:], `\n`) ||
			strings.HasPrefix(s[after:], " Reason: ")
		lineStart := j == 1 || s[j-2] == '\n' || strings.HasSuffix(s[:j-1], ": ") || strings.HasSuffix(s[:j-1], "ApiException ") ||
			strings.HasSuffix(s[:j-1], `\n`)
		if c := httpCode(s, j); c != 0 && j+3 < len(s) && s[j+3] == ')' && lineEnd && lineStart {
			return c
		}
	}
	return 0
}

// codeReasons are the Status reasons apimachinery gives each code
// (k8s.io/apimachinery/pkg/api/errors: NewBadRequest, NewConflict,
// NewResourceExpired, NewInvalid, NewTooManyRequests, NewInternalError,
// NewServerTimeout, NewServiceUnavailable, NewTimeoutError), written
// after the code as the plugin's own "410 Expired" does.
var codeReasons = map[int][]metav1.StatusReason{
	400: {metav1.StatusReasonBadRequest},
	409: {metav1.StatusReasonConflict},
	410: {metav1.StatusReasonExpired},
	422: {metav1.StatusReasonInvalid},
	429: {metav1.StatusReasonTooManyRequests},
	500: {metav1.StatusReasonInternalError, metav1.StatusReasonServerTimeout},
	503: {metav1.StatusReasonServiceUnavailable},
	504: {metav1.StatusReasonTimeout},
}

// codeWithName finds a code followed by a blank and its HTTP name ("410
// Gone", "504 Gateway Timeout") or a Status reason of that code ("410
// Expired", "504 Timeout"), the name ending at a non-letter. The reason
// is returned only for a Status reason that is not the HTTP name.
func codeWithName(s string) (int, string) {
	for i := 0; i+4 < len(s); i++ {
		if !isDigit(s[i]) || !codeStart(s, i) || s[i+3] != ' ' {
			continue
		}
		c := namedCode(s, i)
		if c == 0 {
			continue
		}
		rest := s[i+4:]
		named := func(w string) bool {
			return strings.HasPrefix(rest, w) && (len(rest) == len(w) || !isLetter(rest[len(w)]))
		}
		if named(http.StatusText(c)) {
			return c, ""
		}
		for _, r := range codeReasons[c] {
			if named(string(r)) {
				return c, string(r)
			}
		}
	}
	return 0, ""
}

// qualStatusName is how the .NET client (KubernetesClient, AutoRest) names
// a status: "Operation returned an invalid status code 'Gone'".
const qualStatusName = "invalid status code '"

// statusNames are the HTTP status names .NET prints, for the codes that matter here.
var statusNames = map[string]int{
	"Conflict": 409, "Gone": 410, "UnprocessableEntity": 422, "TooManyRequests": 429,
	"InternalServerError": 500, "BadGateway": 502, "ServiceUnavailable": 503, "GatewayTimeout": 504,
}

// client-go's messages for an answer without a Status body, from
// k8s.io/apimachinery@v0.37.2/pkg/api/errors/errors.go
// NewGenericServerResponse (client-go rest/request.go newUnstructuredResponseError
// calls it), each followed there by " (get configmaps)" or the like. 403
// and 415 keep the server's own message; every other code at or above 500
// gets "an error on the server (%q) has prevented the request from
// succeeding" (phraseServerErr), which does not say which code it was.
const (
	// Every code the switch does not name: "the server responded with
	// the status code %d but did not return more information".
	qualGenericCode = "the server responded with the status code "
	// The one message of a code the classifier reads (503, ServerError)
	// that no other anchor holds: a trigger of the log prefilter.
	phraseUnavailable = "the server is currently unable to handle the request"
)

// clientGoMessages are NewGenericServerResponse's fixed messages and the
// code each one stands for.
var clientGoMessages = []struct {
	code int
	msg  string
}{
	{409, "the server reported a conflict"},
	{404, "the server could not find the requested resource"},
	{400, "the server rejected our request for an unknown reason"},
	{401, "the server has asked for the client to provide credentials"},
	{406, "the server was unable to respond with a content type that the client supports"},
	{405, "the server does not allow this method on the requested resource"},
	{422, "the server rejected our request due to an error in our request"},
	{503, phraseUnavailable},
	{504, "the server was unable to return a response in the time allotted, but may still be processing the request"},
	{429, "the server has received too many requests and has asked us to try again later"},
}

// clientGoCode reads the code client-go's message for a bodiless answer
// stands for; fixed says it was one of the messages without the number.
func clientGoCode(s string) (code int, fixed bool) {
	if i := strings.Index(s, qualGenericCode); i >= 0 {
		if c := httpCode(s, i+len(qualGenericCode)); c != 0 {
			return c, false
		}
	}
	if !strings.Contains(s, "the server ") {
		return 0, false
	}
	for _, m := range clientGoMessages {
		if strings.Contains(s, m.msg) {
			return m.code, true
		}
	}
	return 0, false
}
