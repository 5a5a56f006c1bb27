package follow

import (
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/watchstream"
)

// Fresh user try 25 F5: a stall line said the watch cache "sends a quiet
// watch one about every 1m15s" (no "bookmark", and the bound given as the
// period). Every reason silenceProvesHang gives that states the period
// says it in BookmarkEvery's one phrase, whatever the stall and facts.
func TestEveryStallReasonStatesTheBookmarkPeriodInOnePhrase(t *testing.T) {
	const phrase = "a bookmark about once a minute (at most 1m15s apart)"
	if got := BookmarkEvery(WatchCacheBookmarkPeriod); got != phrase {
		t.Fatalf("BookmarkEvery(%s) = %q, want %q", WatchCacheBookmarkPeriod, got, phrase)
	}
	for _, stall := range []time.Duration{4 * time.Second, 76 * time.Second} {
		s := &Session{StallTimeout: stall, BookmarkPeriod: WatchCacheBookmarkPeriod, Options: watchstream.Options{AllowBookmarks: true}}
		_, why := s.silenceProvesHang()
		if !strings.Contains(why, phrase) || strings.Contains(why, "about every") {
			t.Errorf("--stall-timeout %s: %q does not state the period as %q", stall, why, phrase)
		}
	}
}
