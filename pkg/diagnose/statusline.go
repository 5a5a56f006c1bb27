package diagnose

import (
	"net/http"
	"strconv"
	"strings"
)

// StatusLine is the one way a Status is written on one line: "CODE Reason:
// message". The API server's own constructors often start the message with
// the reason already (apierrors.NewTimeoutError writes "Timeout: Too large
// resource version: N, current: M"), so a message that begins with its
// reason does not repeat it: "504 Timeout: Too large ...", never "504
// Timeout: Timeout: Too large ...". code 0 or an empty reason is left out.
//
// A message's closing period is left out: a line goes on after it with
// ": " (the diagnosis, a fix), and ".:" reads as a typo (fresh user try
// 38 F4: "... is too old.: too old: storage ...").
func StatusLine(code int32, reason, message string) string {
	message = withoutClosingPeriod(strings.TrimSpace(message))
	head := reason
	if code != 0 {
		head = strings.TrimSpace(strconv.Itoa(int(code)) + " " + ReasonWords(code, reason))
	}
	switch {
	case reason != "" && HasPrefixWord(message, reason):
		if code == 0 {
			return message
		}
		return strconv.Itoa(int(code)) + " " + message
	case head == "":
		return message
	case message == "":
		return head
	}
	return head + ": " + message
}

// Prefixed is "prefix: msg", unless msg already begins with prefix (as a
// word, any case): wrapping an error in what it already says doubles it
// ("Timeout: Timeout: ...", "forbidden: forbidden: ...").
func Prefixed(prefix, msg string) string {
	if prefix == "" || HasPrefixWord(msg, prefix) {
		return msg
	}
	if msg == "" {
		return prefix
	}
	return prefix + ": " + msg
}

// HasPrefixWord reports whether s begins with word (any case), followed by
// the end, a colon or a space: "Timeout: x" begins with "Timeout",
// "Timeouts" does not.
func HasPrefixWord(s, word string) bool {
	if len(s) < len(word) || !strings.EqualFold(s[:len(word)], word) {
		return false
	}
	if len(s) == len(word) {
		return true
	}
	switch s[len(word)] {
	case ':', ' ':
		return true
	}
	return false
}

// ReasonWords is a Status's reason as a status line says it: in HTTP's
// words where the reason is only the code's name run together
// ("TooManyRequests" of a 429 is "Too Many Requests", as net/http and the
// plugin's own lines say it), the reason itself where it says more than
// the code ("410 Expired", "504 Timeout", "422 Invalid"); no reason, in
// HTTP's words (a proxy's "429: <html>..." is "429 Too Many Requests: ..."). One spelling of
// a status on every line (adversary try 37: "429 TooManyRequests" in a
// row and "429 Too Many Requests" in the error line under it).
func ReasonWords(code int32, reason string) string {
	if h := http.StatusText(int(code)); h != "" && IsErrorCode(code) && (reason == "" || strings.EqualFold(strings.ReplaceAll(h, " ", ""), reason)) {
		return h
	}
	return reason
}

// withoutClosingPeriod is message without its closing period (an
// ellipsis kept).
func withoutClosingPeriod(message string) string {
	if strings.HasSuffix(message, ".") && !strings.HasSuffix(message, "..") {
		return strings.TrimSuffix(message, ".")
	}
	return message
}
