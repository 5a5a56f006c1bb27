package diagnose

import "testing"

// A message that already begins with its reason (the API server's
// NewTimeoutError writes "Timeout: ...") is not given the reason twice.
func TestStatusLineNeverDoublesTheReason(t *testing.T) {
	for _, c := range []struct {
		code        int32
		reason, msg string
		want        string
	}{
		{504, "Timeout", "Timeout: Too large resource version: 99999999, current: 535", "504 Timeout: Too large resource version: 99999999, current: 535"},
		{410, "Expired", "too old resource version: 212 (518)", "410 Expired: too old resource version: 212 (518)"},
		{500, "InternalError", "Internal error occurred: etcd event received with PrevKv=nil", "500 InternalError: Internal error occurred: etcd event received with PrevKv=nil"},
		{403, "Forbidden", "forbidden: User \"x\" cannot watch", "403 forbidden: User \"x\" cannot watch"},
		{429, "TooManyRequests", "", "429 Too Many Requests"},
		{0, "", "plain", "plain"},
		{504, "Timeout", "Timeouts happen", "504 Timeout: Timeouts happen"},
		// fresh user try 38 F4: the line goes on with ": ", never ".:".
		{410, "Expired", "The resourceVersion for the provided watch is too old.", "410 Expired: The resourceVersion for the provided watch is too old"},
		{500, "InternalError", "wait...", "500 InternalError: wait..."},
	} {
		if got := StatusLine(c.code, c.reason, c.msg); got != c.want {
			t.Errorf("StatusLine(%d, %q, %q) = %q, want %q", c.code, c.reason, c.msg, got, c.want)
		}
	}
	if got := Prefixed("Timeout", "Timeout: Too large"); got != "Timeout: Too large" {
		t.Errorf("Prefixed doubled the prefix: %q", got)
	}
	if got := Prefixed("Expired", "too old"); got != "Expired: too old" {
		t.Errorf("Prefixed: %q", got)
	}
}
