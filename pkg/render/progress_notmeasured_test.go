package render

import (
	"strings"
	"testing"
)

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

// An interrupted run with no row prints no table header over nothing
// (fresh user try 29 F7); a run with rows, or not interrupted, does.
func TestAnInterruptedRunWithoutRowsPrintsNoHeader(t *testing.T) {
	var out strings.Builder
	p := &Printer{Out: &out}
	tbl := NewTable("SERVER", "NOTE")
	if err := p.tableOfRun(tbl, &Interruption{Of: 2}); err != nil || out.Len() != 0 {
		t.Fatalf("a header over no row of an interrupted run: %q (%v)", out.String(), err)
	}
	tbl.Row("1 127.0.0.1:1", "")
	if err := p.tableOfRun(tbl, &Interruption{Done: 1, Of: 2}); err != nil || !strings.Contains(out.String(), "SERVER") {
		t.Fatalf("the rows of an interrupted run are not printed: %q (%v)", out.String(), err)
	}
}
