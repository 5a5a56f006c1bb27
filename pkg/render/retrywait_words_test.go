package render

import (
	"strings"
	"testing"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
)

// The run's retry waits are said in the Transfer line's words wherever a
// run ends (its error line, its cost line), and who set them (adversary
// try 26 F3).
func TestAfterRetriesTextSaysWhoSetTheWait(t *testing.T) {
	for _, c := range []struct {
		w    *apiclient.RetryWait
		want string
	}{
		{nil, ""},
		{&apiclient.RetryWait{Retries: 2, Millis: 600}, "after 2 retries and 600.0 ms waiting, by the plugin's backoff"},
		{&apiclient.RetryWait{Retries: 2, Millis: 60000, ServerAskedRetries: 2, RetryAfterSeconds: 999999999, CappedRetries: 2},
			"after 2 retries and 60.00 s waiting, as the server's Retry-After asked: up to 999999999.00 s, capped by the plugin's retry policy"},
		// Two capped asks of 31 s: the cap is said from the waits it
		// cut, not guessed from the total (adversary try 27 F1).
		{&apiclient.RetryWait{Retries: 2, Millis: 60040, ServerAskedRetries: 2, RetryAfterSeconds: 31, CappedRetries: 2},
			"after 2 retries and 60.04 s waiting, as the server's Retry-After asked: up to 31.00 s, capped by the plugin's retry policy"},
		// Asks of 2 s and 3 s: the longest is said as such.
		{&apiclient.RetryWait{Retries: 2, Millis: 5000, ServerAskedRetries: 2, RetryAfterSeconds: 3},
			"after 2 retries and 5.00 s waiting, as the server's Retry-After asked: up to 3.00 s"},
		{&apiclient.RetryWait{Retries: 1, Millis: 3000, ServerAskedRetries: 1, RetryAfterSeconds: 3}, "after 1 retry and 3.00 s waiting, as the server's Retry-After asked: 3.00 s"},
		{&apiclient.RetryWait{Retries: 3, Millis: 3500, ServerAskedRetries: 1, RetryAfterSeconds: 3}, "after 3 retries and 3.50 s waiting: 1 retry as the server's"},
	} {
		got := AfterRetriesText(c.w)
		if c.want == "" && got != "" || !strings.HasPrefix(got, c.want) {
			t.Errorf("AfterRetriesText(%+v) = %q, want %q...", c.w, got, c.want)
		}
	}
	if got := costText(Cost{Requests: 3, RetryWait: &apiclient.RetryWait{Retries: 2, Millis: 600}}); !strings.HasSuffix(got, "(after 2 retries and 600.0 ms waiting, by the plugin's backoff)") {
		t.Errorf("the cost line does not say the waits: %q", got)
	}
}

// The failure the first retry was sent after is said beside the retries,
// unless the line already says it (CI: a list's first page lost its
// connection, and only its retry's TLS handshake stall was said).
func TestRetryCauseTextSaysTheFirstTrysFailureOnce(t *testing.T) {
	lost := `GET "https://127.0.0.1:1/api/v1/configmaps?limit=3000": http2: client connection lost`
	w := &apiclient.RetryWait{Retries: 1, Millis: 250, FirstCause: lost}
	if got := RetryCauseText(w, "error: no connection within 10s"); got != "; first sent again after: "+lost {
		t.Errorf("a retry's other cause is not said: %q", got)
	}
	if got := RetryCauseText(w, "error: the list response broke off: "+lost+": retry"); got != "" {
		t.Errorf("a cause the line says is said twice: %q", got)
	}
	long := strings.Repeat("x", 300) + " …[99 bytes left out]… end"
	if got := RetryCauseText(&apiclient.RetryWait{Retries: 1, FirstCause: long}, "line "+strings.Repeat("x", 400)); got != "" {
		t.Errorf("a shortened cause the line holds is said again: %q", got)
	}
	if got := RetryCauseText(&apiclient.RetryWait{Retries: 1}, "x"); got != "" {
		t.Errorf("no cause noted, yet said: %q", got)
	}
}
