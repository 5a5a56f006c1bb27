package diagnose

import (
	"strings"
	"testing"
)

// A text without its numbers, of a request whose RV is known (--rv, or
// the request an answer came to): the note says only the other RV is
// unknown (fresh user try 35 F3: "the requested ... RVs are unknown"
// beside "requested 5000").
func TestANoteDoesNotUnknowTheRequestedRV(t *testing.T) {
	for _, text := range []string{"Too large resource version", "too old resource version", "too large resource version", "Too large resource version: , current: "} {
		d := FromTextContext(text, Context{RequestedResourceVersion: "5000"})
		all := strings.Join(d.Notes, " | ")
		if d.RequestedResourceVersion != "5000" || strings.Contains(all, "the requested and") || !strings.Contains(all, "the requested one, 5000, is the request's") {
			t.Errorf("%q with RV 5000 given: requested %q, notes %q", text, d.RequestedResourceVersion, all)
		}
	}
}
