package clients

import (
	"fmt"
	"strings"
	"testing"
)

// TestVersionRule: where each list mode is read from with the watch cache
// on, minor by minor, and on what each rule rests: seen on the matrix's
// servers, read in the source of the minors between them, the nearest
// checked minor's rule (said to be one) outside them.
func TestVersionRule(t *testing.T) {
	const s, c, u = fromStorage, fromCache, fromUnknown
	// unset, 0, N, N with a limit, exact, continue
	old := [6]string{s, c, c, s, s, s}
	noSnapshots := [6]string{c, c, c, c, s, s}
	snapshots := [6]string{c, c, c, c, u, u}
	rests := map[int]string{
		29: "seen on v1.30.14, the oldest version checked; v1.29 was not checked",
		30: "seen on v1.30.14",
		31: "read in the source of v1.31 (k8s.io/apiserver v0.31.14)",
		32: "read in the source of v1.32 (k8s.io/apiserver v0.32.13)",
		33: "seen on v1.33.13",
		34: "read in the source of v1.34 (k8s.io/apiserver v0.34.13)",
		35: "seen on v1.35.4",
		36: "seen on v1.36.3",
		37: "seen on v1.37.2",
		38: "seen on v1.37.2, the newest version checked; v1.38 was not checked",
	}
	for minor := 29; minor <= 38; minor++ {
		want := snapshots
		switch {
		case minor <= 30:
			want = old
		case minor <= 33:
			want = noSnapshots
		}
		v, err := parseVersion(fmt.Sprintf("v1.%d.2", minor))
		if err != nil {
			t.Fatal(err)
		}
		for i, m := range []struct {
			mode  string
			limit bool
		}{{modeUnset, false}, {modeZero, false}, {modeNotOlderThan, false}, {modeNotOlderThan, true}, {modeExact, false}, {modeContinue, false}} {
			from, why := versionRule(v, m.mode, m.limit)
			if from != want[i] || !strings.HasSuffix(why, "; "+rests[minor]) {
				t.Errorf("v1.%d %s (limit %v): %s %q, want %s resting on %q", minor, m.mode, m.limit, from, why, want[i], rests[minor])
			}
		}
	}
}

// The words of a rule say on what it turns at run time, where it does.
func TestVersionRuleWords(t *testing.T) {
	for _, c := range []struct {
		version, mode string
		limit         bool
		want          []string
	}{
		{"v1.31.14", modeUnset, false, []string{"ConsistentListFromCache, on by default", "progress notifications (3.4.31 or later, 3.5.13 or later)", "within 3 s", "one-item list"}},
		{"v1.37.2", modeUnset, false, []string{"ConsistentListFromCache", "within 3 s"}},
		{"v1.32.0", modeNotOlderThan, true, []string{"resourceVersionMatch=NotOlderThan and a limit", "makes the list exact"}},
		{"v1.34.1", modeContinue, false, []string{"while it keeps one", "else by etcd", "the audit log does not tell"}},
		{"v1.36.3", modeExact, false, []string{"while it keeps one at or below that RV", "else by etcd", "the audit log does not tell"}},
		{"v1.33.13", modeExact, false, []string{"ListFromCacheSnapshot is off by default on v1.33"}},
	} {
		v, _ := parseVersion(c.version)
		_, why := versionRule(v, c.mode, c.limit)
		for _, w := range c.want {
			if !strings.Contains(why, w) {
				t.Errorf("%s %s: %q lacks %q", c.version, c.mode, why, w)
			}
		}
	}
	// From v1.37 the current RV is read without a list.
	if _, why := versionRule(version{known: true, major: 1, minor: 37}, modeUnset, false); strings.Contains(why, "one-item list") {
		t.Errorf("v1.37: %q", why)
	}
}
