package diagnose

import "strings"

// This file is the one place a status code is read from text.

// statusCodeIn finds an HTTP status code written in any of the wrappers:
// "code":410, code: 410, statusCode: 410, HTTP response code: 410,
// HTTP-Code: 410, (410), HTTP/1.1 410, status="410 Gone", "410 Gone".
func statusCodeIn(s string) int {
	code := 0
	valuesAfterKey(s, "code", func(i int, _ string) bool {
		code = httpCode(s, i)
		return code == 0
	})
	if code != 0 {
		return code
	}
	for _, p := range []string{"HTTP/1.1 ", "HTTP/1.0 ", "HTTP/2 ", "HTTP/2.0 ", "status=\"", "status: "} {
		if i := strings.Index(s, p); i >= 0 {
			if c := httpCode(s, i+len(p)); c != 0 {
				return c
			}
		}
	}
	// Python's ApiException prints "(410)" on a line of its own.
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
	if i := strings.Index(s, qualStatusName); i >= 0 {
		rest := s[i+len(qualStatusName):]
		if k := strings.IndexByte(rest[:min(len(rest), 24)], '\''); k > 0 {
			if c, ok := statusNames[rest[:k]]; ok {
				return c
			}
		}
	}
	for _, p := range []string{" Gone", " Gateway Timeout", " Too Many Requests", " Internal Server Error"} {
		if i := strings.Index(s, p); i >= 4 && s[i-4] == ' ' || i == 3 {
			if c := httpCode(s, i-3); c != 0 {
				return c
			}
		}
	}
	return 0
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

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// qualStatusName is how the .NET client (KubernetesClient, AutoRest) names
// a status: "Operation returned an invalid status code 'Gone'".
const qualStatusName = "invalid status code '"

// statusNames are the HTTP status names .NET prints, for the codes that matter here.
var statusNames = map[string]int{
	"Conflict": 409, "Gone": 410, "UnprocessableEntity": 422, "TooManyRequests": 429,
	"InternalServerError": 500, "BadGateway": 502, "ServiceUnavailable": 503, "GatewayTimeout": 504,
}
