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

// A text that names who answered a watch, checked on a server whose
// /metrics shows the other one serves the resource's watches now: lowered,
// the fact named, the text's kind kept, in both directions (a fresh user,
// cache off: "high", blaming a cache the server lacks; fresh user try 26
// F3: storage's words on a server with a watch cache kept "high"). A fact
// that agrees with the text, or a text that names no answerer, changes
// nothing.
func TestReconcileNoWatchCache(t *testing.T) {
	works := &Tried{Request: "watch from RV 5", Works: true, Answer: "the watch started"}
	const cacheText, storageText = "too old resource version: 5 (9)", "The resourceVersion for the provided watch is too old."
	for _, c := range []struct {
		name, text string
		noCache    bool // the server's /metrics: no watch cache for it (else: one)
		note       string
	}{
		{"cache's words, no cache", cacheText, true, "this server has no watch cache for configmaps now"},
		{"storage's words, a cache", storageText, false, "this server has a watch cache for configmaps now"},
		{"cache's words, a cache", cacheText, false, ""},
		{"storage's words, no cache", storageText, true, ""},
		{"an exact list's words, a cache", "The resourceVersion for the provided list is too old.", false, ""},
	} {
		d := FromText(c.text)
		got := Reconcile(d, Check{Resource: "configmaps", NoWatchCache: c.noCache, WatchCache: !c.noCache, Tried: works})
		if got.Kind != d.Kind {
			t.Errorf("%s: the kind changed to %s: the text still says what it says", c.name, got.Kind)
		}
		notes := strings.Join(got.Notes, "\n")
		if c.note == "" {
			if got.Confidence != d.Confidence || len(got.Notes) != len(d.Notes) {
				t.Errorf("%s: changed by a fact that agrees: %s %q", c.name, got.Confidence, got.Notes)
			}
			continue
		}
		if got.Confidence != ConfidenceLow || !strings.Contains(notes, c.note) {
			t.Errorf("%s: confidence %s, notes %q; want low and %q", c.name, got.Confidence, got.Notes, c.note)
		}
	}
}
