package render

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

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
// with its status, unless the final failure is the same one (the same
// status and message, compared as recorded: adversary try 28 F4), never
// because the line happens to hold its words (CI: a list's first page
// lost its connection, and only its retry's TLS handshake stall was said).
func TestRetryCauseTextSaysTheFirstTrysFailureOnce(t *testing.T) {
	lost := errors.New(`GET "https://127.0.0.1:1/api/v1/configmaps?limit=3000": http2: client connection lost`)
	unavailable := func(msg string) error { return apierrors.NewServiceUnavailable(msg) }
	internal := func(msg string) error { return apierrors.NewInternalError(errors.New(msg)) }
	for _, c := range []struct {
		name         string
		first, final error
		want         string // "" : left out
	}{
		{"another failure", lost, errors.New("no connection within 10s"), lost.Error()},
		{"the same failure, wrapped", lost, fmt.Errorf("the list response broke off: %w: retry", lost), ""},
		{"a 503 whose message the line holds", unavailable("server"), fmt.Errorf("the API server at x answered: %w", internal("etcd leader changed")), "503 Service Unavailable: server"},
		{"a 503, then a 500 of its message", unavailable("etcd leader changed"), internal("etcd leader changed"), "503 Service Unavailable: etcd leader changed"},
		{"the same answer", unavailable("busy"), fmt.Errorf("x: %w", unavailable("busy")), ""},
		{"the cost line", unavailable("busy"), nil, "503 Service Unavailable: busy"},
	} {
		ctx, sw := apiclient.StartStopwatch(context.Background())
		r := apiclient.Retry{Initial: time.Millisecond, Max: time.Millisecond}
		if err := r.Wait(ctx, r.Delay(1, c.first)); err != nil {
			t.Fatal(err)
		}
		w := apiclient.RetriesOf(apiclient.WithRetriesOf(c.first, sw))
		got := RetryCauseText(w, c.final)
		if c.want == "" && got != "" || c.want != "" && got != "; first sent again after: "+c.want {
			t.Errorf("%s: %q, want the cause %q", c.name, got, c.want)
		}
	}
	if got := RetryCauseText(&apiclient.RetryWait{Retries: 1}, errors.New("x")); got != "" {
		t.Errorf("no cause noted, yet said: %q", got)
	}
}
