package listing

import (
	"testing"
)

func TestSemanticsOfFollowsTheServerRules(t *testing.T) {
	cases := []struct {
		rv, match string
		limit     int64
		want      string
	}{
		{"", "", 500, "Consistent"},
		{"0", "", 500, "Any"},
		{"0", "NotOlderThan", 500, "Any"},
		{"12", "NotOlderThan", 500, "NotOlderThan"},
		{"12", "Exact", 500, "Exact"},
		{"12", "", 500, "Exact"}, // legacy: a limit and no match means Exact
		{"12", "", 0, "NotOlderThan"},
	}
	for _, c := range cases {
		if got := SemanticsOf(c.rv, c.match, c.limit).Mode; got != c.want {
			t.Errorf("SemanticsOf(%q, %q, %d) = %s, want %s", c.rv, c.match, c.limit, got, c.want)
		}
	}
}
