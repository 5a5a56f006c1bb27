package diagnose

import (
	"strings"
	"testing"
)

// A streaming list (a watch with sendInitialEvents=true) from an RV the
// server has not reached is answered 504 TooLarge, as a list is (seen on
// v1.37.2: the watch cache's ERROR event; storage's at once). However the
// request is told, as the caller's operation or by its URL, TooLarge is its
// own answer: no note, the confidence the words give. Told "watch" (which
// the server holds instead), the same text gets the note and a low one
// (fresh user try 26 F1: watch --send-initial-events told the classifier
// "watch", and the server's real answer was said to be pieced together).
func TestAStreamingListsTooLargeIsItsOwnAnswer(t *testing.T) {
	// The Status of that ERROR event, as the v1.37.2 server sent it
	// (test/e2e/watch TestWatchStreamingListFromTheFutureIsTooLarge).
	const status = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Timeout: Too large resource version: 100209, current: 212","reason":"Timeout","details":{"causes":[{"reason":"ResourceVersionTooLarge","message":"Too large resource version"}],"retryAfterSeconds":1},"code":504}`
	// format: client-go rest/with_retry and round_trippers' "GET <url>" beside the error.
	const url = "GET https://127.0.0.1:6443/api/v1/namespaces/demo/configmaps?allowWatchBookmarks=true&resourceVersion=100209&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&watch=true: "
	for _, c := range []struct {
		name, text, op string
		wantOp         string
		pieced         bool
	}{
		{"told streaming-list", status, OpStreamingList, OpStreamingList, false},
		{"read from the URL", url + status, "", OpStreamingList, false},
		{"told watch", status, OpWatch, OpWatch, true},
		{"a plain watch's URL", strings.Replace(url, "&sendInitialEvents=true", "", 1) + status, "", OpWatch, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := FromTextContext(c.text, Context{Operation: c.op})
			if d.Kind != KindResourceVersionTooLarge || d.Operation != c.wantOp {
				t.Fatalf("want %s of a %s, got %s of %q", KindResourceVersionTooLarge, c.wantOp, d.Kind, d.Operation)
			}
			pieced := strings.Contains(strings.Join(d.Notes, " "), "pieced together")
			if pieced != c.pieced || (d.Confidence == ConfidenceLow) != c.pieced {
				t.Fatalf("pieced together: want %v, got notes %q at confidence %s", c.pieced, d.Notes, d.Confidence)
			}
		})
	}
}
