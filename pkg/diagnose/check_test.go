package diagnose

import (
	"strings"
	"testing"
)

// TestReconcile: a kind that --check's own request contradicts is not
// kept at its confidence; a check that agrees, works, or tried nothing
// leaves the diagnosis as it is. The answers are the servers' own
// wordings, as ../shared/reference/rv-semantics.md records them.
func TestReconcile(t *testing.T) {
	cacheWindow := FromText("too old resource version: 5 (9)")
	if cacheWindow.Kind != KindWatchCacheWindow || cacheWindow.Confidence != ConfidenceHigh {
		t.Fatalf("the watch cache's 410 classified as %s/%s", cacheWindow.Kind, cacheWindow.Confidence)
	}
	for _, c := range []struct {
		name   string
		tried  *Tried
		lowers bool
	}{
		{"storage refuses it now", &Tried{Request: "watch from RV 5", Refused: true, Answer: "410 Expired: The resourceVersion for the provided watch is too old."}, true},
		{"the watch cache refuses it now", &Tried{Request: "watch from RV 5", Refused: true, Answer: "410 Expired: too old resource version: 5 (12)"}, false},
		{"it works now", &Tried{Request: "watch from RV 5", Works: true, Answer: "the watch started"}, false},
		{"an answer of another class", &Tried{Request: "watch from RV 5", Answer: "403 Forbidden: configmaps is forbidden"}, false},
		{"a 500 that quotes storage's words", &Tried{Request: "watch from RV 5", Answer: "500 InternalError: The resourceVersion for the provided watch is too old."}, false},
		{"nothing tried", nil, false},
	} {
		got := Reconcile(cacheWindow, Check{Tried: c.tried})
		lowered := got.Confidence == ConfidenceLow && len(got.Notes) == len(cacheWindow.Notes)+1 && strings.Contains(got.Notes[len(got.Notes)-1], KindEtcdCompactedWatch)
		if lowered != c.lowers || (!c.lowers && (got.Confidence != ConfidenceHigh || len(got.Notes) != len(cacheWindow.Notes))) {
			t.Errorf("%s: confidence %s, notes %q (want lowered: %v)", c.name, got.Confidence, got.Notes, c.lowers)
		}
		if got.Kind != cacheWindow.Kind {
			t.Errorf("%s: the text's kind changed to %s: the text still says what it says", c.name, got.Kind)
		}
	}
}

// A text that names a watch cache, checked on a server whose /metrics
// shows none for the resource (a fresh user, cache off: "high", blaming a
// cache the server lacks): lowered, the fact named; the text's kind kept.
// A text that names no watch cache is not touched by the fact.
func TestReconcileNoWatchCache(t *testing.T) {
	works := &Tried{Request: "watch from RV 5", Works: true, Answer: "the watch started"}
	got := Reconcile(FromText("too old resource version: 5 (9)"), Check{Resource: "configmaps", NoWatchCache: true, Tried: works})
	if got.Kind != KindWatchCacheWindow || got.Confidence != ConfidenceLow || !strings.Contains(strings.Join(got.Notes, "\n"), "this server has no watch cache for configmaps now") {
		t.Fatalf("kind %s, confidence %s, notes %q", got.Kind, got.Confidence, got.Notes)
	}
	storage := FromText("The resourceVersion for the provided watch is too old.")
	if got := Reconcile(storage, Check{Resource: "configmaps", NoWatchCache: true, Tried: works}); got.Confidence != storage.Confidence || len(got.Notes) != len(storage.Notes) {
		t.Fatalf("storage's text changed by the cache fact: %s %q", got.Confidence, got.Notes)
	}
}
