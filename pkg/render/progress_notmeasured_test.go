package render

import "testing"

// The Interrupted line says the unmeasured targets as many as they are
// (fresh user try 28 F5: "0 of 1 servers ...; the others were not").
func TestInterruptedLineSaysTheUnmeasuredAsManyAsTheyAre(t *testing.T) {
	for _, c := range []struct {
		done, of int
		want     string
	}{{0, 1, "it was not measured"}, {0, 3, "none of them was measured"}, {1, 2, "the other was not measured"}, {1, 3, "the others were not measured"}, {2, 2, "none was left unmeasured"}} {
		if got := (&Interruption{Done: c.done, Of: c.of}).notMeasured(); got != c.want {
			t.Errorf("%d of %d: %q, want %q", c.done, c.of, got, c.want)
		}
	}
}
