package serverinfo

import (
	"strings"
	"testing"
)

// What the warning says a server does with a watch from the future is only
// what the Info supports: the watch cache holds an exact watch silently; a
// resource served by storage gets both storages' answers (etcd holds it,
// kine ends it at once), since they cannot be told apart; a streaming list
// gets a 504, never "held silently" (issue 25, E26 and H36).
func TestFutureWatchClaimsOnlyWhatIsKnown(t *testing.T) {
	with := func(cache Tri, minor int) *Info {
		in := Build("v1.37.2", minor, &MetricsFacts{WatchCache: cache, Gates: map[string]bool{}}, "", "configmaps")
		return in
	}
	for _, c := range []struct {
		name      string
		in        *Info
		streaming bool
		want, not []string
	}{
		{"exact, cache on", with(Yes, 37), false, []string{"the watch cache holds this watch silently"}, []string{"kine", "504"}},
		{"exact, cache off", with(No, 37), false, []string{"storage serves the watch", "etcd holds", "kine ends it at once", "cannot tell"}, []string{"the watch cache holds", "504"}},
		{"exact, cache unknown", with(Unknown, 37), false, []string{"where the watch cache serves it", "kine ends it at once"}, []string{"504"}},
		{"exact, nothing read", nil, false, []string{"where the watch cache serves it", "kine ends it at once"}, nil},
		{"streaming, cache on", with(Yes, 37), true, []string{"504 TooLarge after the watch cache waited up to ~3 s"}, []string{"silently"}},
		{"streaming, cache off", with(No, 37), true, []string{"504 TooLarge at once"}, []string{"silently", "waited"}},
		{"streaming, cache unknown", with(Unknown, 37), true, []string{"504 TooLarge", "at once where storage serves it"}, []string{"silently"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := c.in.FutureWatch(c.streaming, "99999999")
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("%q lacks %q", got, w)
				}
			}
			for _, n := range c.not {
				if strings.Contains(got, n) {
					t.Errorf("%q claims %q", got, n)
				}
			}
		})
	}
	// A server without streaming lists refuses this one too: no claim.
	off := Build("v1.33.13", 33, &MetricsFacts{WatchCache: Yes, Gates: map[string]bool{GateWatchList: false}}, "", "configmaps")
	if got := off.FutureWatch(true, "99999999"); got != "" {
		t.Errorf("WatchList off: want no claim, got %q", got)
	}
}
