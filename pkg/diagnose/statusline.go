package diagnose

import (
	"strconv"
	"strings"
)

// StatusLine is the one way a Status is written on one line: "CODE Reason:
// message". The API server's own constructors often start the message with
// the reason already (apierrors.NewTimeoutError writes "Timeout: Too large
// resource version: N, current: M"), so a message that begins with its
// reason does not repeat it: "504 Timeout: Too large ...", never "504
// Timeout: Timeout: Too large ...". code 0 or an empty reason is left out.
func StatusLine(code int32, reason, message string) string {
	message = strings.TrimSpace(message)
	head := reason
	if code != 0 {
		head = strings.TrimSpace(strconv.Itoa(int(code)) + " " + reason)
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
