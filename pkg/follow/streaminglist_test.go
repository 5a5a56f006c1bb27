package follow

import (
	"context"
	"net/http"
	"testing"

	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/watchstream"
)

// The operation the classifier is told is the request sent (fresh user
// try 26 F1): a streaming list whose request itself is refused (no stream
// opened: a 504 where storage answers it) is still a streaming list, and
// a plain watch sent after one is a watch.
func TestStreamingListIsTheRequestSentStreamOrNot(t *testing.T) {
	// The Status a v1.37.2 server sent a streaming list from RV 100209.
	const status = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Timeout: Too large resource version: 100209, current: 212","reason":"Timeout","details":{"causes":[{"reason":"ResourceVersionTooLarge","message":"Too large resource version"}],"retryAfterSeconds":1},"code":504}`
	for _, c := range []struct {
		name string
		opts watchstream.Options
		want bool
	}{
		{"streaming list", watchstream.Options{ResourceVersion: "100209", RVSet: true, SendInitialEvents: true, AllowBookmarks: true}, true},
		{"watch", watchstream.Options{ResourceVersion: "100209", RVSet: true, AllowBookmarks: true}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, cl := newReplayServer(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
				w.WriteHeader(http.StatusGatewayTimeout)
				_, _ = w.Write([]byte(status))
			}, nil)
			s := &Session{Client: cl, Target: cmTarget(), Options: c.opts}
			s.askedState = !c.want // what an earlier request was must not stay
			if err := s.Run(context.Background()); err == nil {
				t.Fatal("want the 504's error")
			}
			if got := s.SentContext(nil).Operation == diagnose.OpStreamingList; got != c.want {
				t.Fatalf("SentContext(nil) is a streaming list: %v after a refused request, want %v", got, c.want)
			}
		})
	}
}
