package apiclient

import (
	"errors"
	"slices"
	"testing"
)

// TestATypoStaysATypoBesideAnotherGroupsFailure: the rule of
// IsTypoBeside over the failures the ledger can hold.
func TestATypoStaysATypoBesideAnotherGroupsFailure(t *testing.T) {
	cut := errors.New("unexpected EOF")
	for _, c := range []struct {
		name        string
		suggestions []string
		derr        error
		want        bool
	}{
		{"configmapz", []string{"configmaps"}, &DiscoveryError{GroupVersion: "apps/v1", Err: cut}, true},
		{"configmapz", []string{"configmaps"}, &DiscoveryError{GroupVersion: "apps/v1, batch/v1", Err: cut}, true},
		{"configmapz", nil, &DiscoveryError{GroupVersion: "apps/v1", Err: cut}, false},                               // no name close: it may be apps'
		{"configmapz", []string{"configmaps"}, &DiscoveryError{Err: cut}, false},                                     // /api or /apis
		{"configmapz", []string{"configmaps"}, &DiscoveryError{GroupVersion: "v1", Err: cut}, false},                 // the core group, the name's own
		{"deploymnts.apps", []string{"deployments.apps"}, &DiscoveryError{GroupVersion: "apps/v1", Err: cut}, false}, // the name's own group
		{"configmapz", []string{"configmaps"}, cut, false},                                                           // not a discovery failure
	} {
		e := &UnknownResourceError{Name: c.name, Suggestions: c.suggestions}
		if got := e.IsTypoBeside(c.derr); got != c.want {
			t.Errorf("%s beside %v: %v, want %v", c.name, c.derr, got, c.want)
		}
		var de *DiscoveryError
		if c.want && errors.As(c.derr, &de) && !slices.Contains(e.Unread, "apps/v1") {
			t.Errorf("%s beside %v: the failed group version is not named: %s", c.name, c.derr, e.Error())
		}
	}
}
