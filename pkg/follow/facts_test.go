package follow

import (
	"context"
	"strings"
	"testing"
	"time"
)

// Adversary try 25 F1: the read of the server's facts after a stream
// (refreshFacts: at a stall, and before the relist of a server behind the
// resume point) held what follows for as long as the server did not
// answer, unsaid. Both call sites go through refreshFacts: it is bounded by
// FactsWait, and the next reconnect or relist notice says the wait.
func TestRefreshFactsIsBoundedAndItsWaitSaid(t *testing.T) {
	for _, current := range []string{"", "120"} { // the stall's read, the behind check's
		var got Notice
		s := &Session{
			ServerFacts: func(ctx context.Context, _ string) (time.Duration, string) {
				<-ctx.Done() // a server that never answers /version
				return 0, ""
			},
			OnNotice: func(n Notice) { got = n },
		}
		s.stats.Streams = 1
		began := time.Now()
		s.refreshFacts(context.Background(), current)
		if took := time.Since(began); took > FactsWait+time.Second {
			t.Fatalf("current %q: the facts read held %s, more than FactsWait (%s)", current, took, FactsWait)
		}
		s.notify(Notice{Kind: NoticeUnchecked})
		if got.Held.For != 0 {
			t.Errorf("current %q: an UNCHECKED notice took the wait that holds the reconnect", current)
		}
		s.notify(Notice{Kind: NoticeRelist})
		if got.Held.For < FactsWait || !strings.Contains(got.Held.By, "no answer within 2s") {
			t.Errorf("current %q: the relist does not say the wait: %+v", current, got.Held)
		}
		s.notify(Notice{Kind: NoticeReconnect})
		if got.Held.For != 0 {
			t.Errorf("current %q: the wait was said twice", current)
		}
	}
}
