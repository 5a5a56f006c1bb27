package servers

import (
	"testing"

	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
)

// One question per error, whether one server is asked or many: the
// request the error came from (an exact list stays an exact list: a watch
// proves nothing about it), and nothing for RV 0 or another class.
func TestQuestionOf(t *testing.T) {
	cases := []struct {
		d    diagnose.Diagnosis
		rv   uint64
		ask  bool
		want string
	}{
		{diagnose.Diagnosis{Class: diagnose.ClassExpired, Kind: diagnose.KindWatchCacheWindow}, 214, true, "a watch from RV 214"},
		{diagnose.Diagnosis{Class: diagnose.ClassExpired, Kind: diagnose.KindEtcdCompactedWatch}, 214, true, "a watch from RV 214"},
		{diagnose.Diagnosis{Class: diagnose.ClassExpired, Kind: diagnose.KindEtcdCompactedExactList}, 214, true, "an exact list at RV 214"},
		{diagnose.Diagnosis{Class: diagnose.ClassExpired, Kind: diagnose.KindWatchCacheSnapshot}, 214, true, "an exact list at RV 214"},
		{diagnose.Diagnosis{Class: diagnose.ClassTooLarge, Kind: diagnose.KindResourceVersionTooLarge}, 479, true, "a list not older than RV 479"},
		// The request the error answered decides, whatever the kind: a
		// watch cache's "too old resource version: X (Y)" from an exact
		// list is asked as that exact list (adversary: it was a watch).
		{diagnose.Diagnosis{Class: diagnose.ClassExpired, Kind: diagnose.KindWatchCacheWindow, Operation: diagnose.OpListExact}, 5, true, "an exact list at RV 5"},
		{diagnose.Diagnosis{Class: diagnose.ClassExpired, Kind: diagnose.KindTooOldResourceVersion, Operation: diagnose.OpListExact}, 5, true, "an exact list at RV 5"},
		{diagnose.Diagnosis{Class: diagnose.ClassExpired, Kind: diagnose.KindGone, Operation: diagnose.OpListExact}, 5, true, "an exact list at RV 5"},
		{diagnose.Diagnosis{Class: diagnose.ClassExpired, Kind: diagnose.KindEtcdCompacted, Operation: diagnose.OpListContinue}, 5, true, "an exact list at RV 5"},
		{diagnose.Diagnosis{Class: diagnose.ClassExpired, Kind: diagnose.KindContinueExpired}, 5, true, "an exact list at RV 5"},
		{diagnose.Diagnosis{Class: diagnose.ClassExpired, Kind: diagnose.KindEtcdCompactedExactList, Operation: diagnose.OpWatch}, 5, true, "a watch from RV 5"},
		{diagnose.Diagnosis{Class: diagnose.ClassExpired, Kind: diagnose.KindWatchCacheWindow, Operation: diagnose.OpStreamingList}, 5, true, "a watch from RV 5"},
		// An Expired list was an exact one: no other list is refused as too old.
		{diagnose.Diagnosis{Class: diagnose.ClassExpired, Kind: diagnose.KindWatchCacheWindow, Operation: diagnose.OpList}, 5, true, "an exact list at RV 5"},
		{diagnose.Diagnosis{Class: diagnose.ClassTooLarge, Kind: diagnose.KindResourceVersionTooLarge, Operation: diagnose.OpList}, 479, true, "a list not older than RV 479"},
		{diagnose.Diagnosis{Class: diagnose.ClassTooLarge, Kind: diagnose.KindResourceVersionTooLarge, Operation: diagnose.OpWatch}, 479, true, "a list not older than RV 479"},
		{diagnose.Diagnosis{Class: diagnose.ClassTooLarge}, 0, false, ""},
		{diagnose.Diagnosis{Class: diagnose.ClassOther}, 5, false, ""},
	}
	for _, c := range cases {
		q, ask := QuestionOf(c.d, c.rv)
		if ask != c.ask || (ask && q.request() != c.want) {
			t.Errorf("%s/%s at %d: ask %v %q, want %v %q", c.d.Class, c.d.Kind, c.rv, ask, q.request(), c.ask, c.want)
		}
	}
}

// The servers asked follow the one partial-failure rule, and the line
// says each one's class as its row does (its Reason, never "Other").
func TestCrossCheckErr(t *testing.T) {
	ok := CrossAnswer{Endpoint: "10.0.0.1:6443", Watch: "ok"}
	bad := CrossAnswer{Endpoint: "10.0.0.2:6443", Reason: "transient", Error: "the stream ended before any event"}
	if err := (&CrossCheck{Servers: []CrossAnswer{ok, ok}}).Err(); err != nil {
		t.Fatalf("every server answered: %v", err)
	}
	err := (&CrossCheck{Servers: []CrossAnswer{ok, bad}}).Err()
	if err == nil || err.Error() != "1 of 2 API servers failed (server 10.0.0.2:6443: transient: the stream ended before any event): the verdict covers only what was answered: see the NOTE column for each one's reason and its fix" {
		t.Fatalf("one of two failed: %v", err)
	}
}
