package follow

import (
	"fmt"
	"time"
)

// BookmarkEvery is how every line says the bookmark period, as
// docs/watch.md does: the watch cache's is "a bookmark about once a
// minute (at most 1m15s apart)", its minute and the bound the stall rule
// uses, never the bound alone as the period (fresh user try 25 F5: "sends
// a quiet watch one about every 1m15s", where bookmarks came 60 s apart).
func BookmarkEvery(period time.Duration) string {
	if period == WatchCacheBookmarkPeriod {
		return fmt.Sprintf("a bookmark about once a minute (at most %s apart)", period)
	}
	return fmt.Sprintf("a bookmark at most %s apart", period)
}
