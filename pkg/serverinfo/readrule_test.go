package serverinfo

import (
	"strings"
	"testing"

	"github.com/watchrv/kubectl-watchrv/pkg/listing"
)

// Fresh user try 46 F1, F4: a list's read rule never contradicts the
// Served by line chosen from the same facts: an exact list that the watch
// cache's snapshots may serve is not said to fail once storage compacted
// its RV (seen: 308 items at a compacted RV, from the cache's snapshot);
// an rv=0 list that storage serves is not "possibly stale".
func TestTheReadRuleFollowsWhoServes(t *testing.T) {
	snapshots := map[string]bool{GateListFromCacheSnapshot: true}
	for _, c := range []struct {
		name          string
		in            *Info
		rv, match     string
		limit         int64
		want, wantNot string
	}{
		{"exact, snapshots, cache on", Build("v1.37.2", 37, &MetricsFacts{Gates: snapshots, WatchCache: Yes, Stored: Yes}, "", "configmaps"), "600", "Exact", 0, "compacted in storage and no watch cache snapshot holds it", "ListFromCacheSnapshot"},
		{"exact legacy, snapshots, cache unknown", Build("v1.37.2", 37, nil, ForbiddenNote, "configmaps"), "600", "", 100, "no watch cache snapshot holds it", "ListFromCacheSnapshot"},
		{"exact, no snapshots", Build("v1.33.13", 33, &MetricsFacts{Gates: map[string]bool{GateListFromCacheSnapshot: false}, WatchCache: Yes, Stored: Yes}, "", "configmaps"), "600", "Exact", 0, "once 600 is compacted", "snapshot holds"},
		{"exact, cache off", Build("v1.37.2", 37, &MetricsFacts{Gates: snapshots, WatchCache: No, Stored: Yes}, "", "configmaps"), "600", "Exact", 0, "once 600 is compacted", "snapshot holds"},
		{"any, cache off", Build("v1.37.2", 37, &MetricsFacts{Gates: snapshots, WatchCache: No, Stored: Yes}, "", "configmaps"), "0", "", 0, "here the newest", "stale"},
		{"any, cache on", Build("v1.37.2", 37, &MetricsFacts{Gates: snapshots, WatchCache: Yes, Stored: Yes}, "", "configmaps"), "0", "", 0, "possibly stale", "newest"},
	} {
		s := listing.SemanticsOf(c.rv, c.match, c.limit)
		sv := c.in.ListServed(c.rv, c.match, c.limit)
		rule := c.in.ReadRule(s.Mode, c.rv, sv.FirstFrom, s.OwnRule)
		if !strings.Contains(rule, c.want) || strings.Contains(rule, c.wantNot) {
			t.Errorf("%s: rule %q beside served by %q (%s): want %q, not %q", c.name, rule, sv.First, sv.FirstFrom, c.want, c.wantNot)
		}
	}
}
