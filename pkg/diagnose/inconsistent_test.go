package diagnose

import (
	"strings"
	"testing"
)

// Issue 16 item 18: numbers no server prints together (a too-old RV at or
// above the oldest servable one, a too-large RV at or below the current
// one) lower the confidence and are called inconsistent, never "(unknown
// behind)". The consistent forms are the real server's (v1.37.2).
func TestInconsistentNumbersLowerTheConfidence(t *testing.T) {
	for _, c := range []struct {
		text, kind string
		bad        bool
	}{
		{"too old resource version: 214 (257)", KindWatchCacheWindow, false},
		{"too old resource version: 300 (200)", KindWatchCacheWindow, true},
		{"too old resource version: 257 (257)", KindWatchCacheWindow, true},
		{"Timeout: Too large resource version: 999999999, current: 523", KindResourceVersionTooLarge, false},
		{"Timeout: Too large resource version: 100, current: 523", KindResourceVersionTooLarge, true},
		{"Timeout: Too large resource version: 523, current: 523", KindResourceVersionTooLarge, true},
	} {
		d := FromText(c.text)
		if d.Kind != c.kind {
			t.Fatalf("%q: kind %s, want %s", c.text, d.Kind, c.kind)
		}
		notes := strings.Join(d.Notes, " ")
		if !c.bad {
			if d.Confidence != ConfidenceHigh || strings.Contains(notes, "inconsistent") || strings.Contains(d.Summary, "inconsistent") {
				t.Errorf("%q is what a server says: got %s, %q, %q", c.text, d.Confidence, d.Summary, notes)
			}
			continue
		}
		if d.Confidence != ConfidenceLow || !strings.Contains(d.Summary, "inconsistent") || !strings.Contains(notes, "inconsistent") || strings.Contains(d.Summary, "unknown behind") || strings.Contains(d.Summary, "unknown ahead") {
			t.Errorf("%q: want low confidence and 'inconsistent', got %s: %q; notes %q", c.text, d.Confidence, d.Summary, notes)
		}
	}
}

// Issue 16 item 21: tools/pager's full-list fallback applies to a continue
// page only; an exact list fails on page 1, so its client-go paragraph must
// not promise that fallback (the server's own words, v1.37.2).
func TestExactListAdviceDoesNotPromiseThePagerFallback(t *testing.T) {
	for _, text := range []string{"The resourceVersion for the provided list is too old.", "too old resource version: 212"} {
		d := FromText(text)
		if d.Operation != OpListExact {
			t.Fatalf("%q: operation %q, want an exact list", text, d.Operation)
		}
		if strings.Contains(d.ClientGo, "falls back to one full list") || !strings.Contains(d.ClientGo, "first page") {
			t.Errorf("%q (%s): client-go paragraph %q", text, d.Kind, d.ClientGo)
		}
	}
	if d := FromText("The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter."); !strings.Contains(d.ClientGo, "FullListIfExpired") {
		t.Errorf("a continue page does get the pager's fallback: %q", d.ClientGo)
	}
}
