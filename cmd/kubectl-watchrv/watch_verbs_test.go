package main

import "testing"

// Fresh user try 11: watch --rv list refused its list by RBAC was told to
// grant watch alone. A run that lists (--rv list, or --follow's relist)
// names both verbs in a refusal's fix.
func TestWatchRefusalNamesTheVerbsTheRunSends(t *testing.T) {
	for _, c := range []struct {
		o    WatchOptions
		want string
	}{
		{WatchOptions{RV: rvList}, "list and watch"},
		{WatchOptions{RV: "12", Follow: true}, "list and watch"},
		{WatchOptions{RV: "12"}, "watch"},
		{WatchOptions{}, "watch"},
	} {
		if got := c.o.verbs(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.o, got, c.want)
		}
	}
}
