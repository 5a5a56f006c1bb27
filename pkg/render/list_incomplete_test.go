package render

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
)

// The recorded walk cut after its first two pages (page 3 unread) is a
// part of the list: every whole-list field is left out of the human
// output and of -o json alike, and -o json marks it incomplete (fresh
// user try 22 F2, F3). The same walk read whole keeps them, so that the
// test fails if the fields go missing for every list.
func TestAPartReportSaysNothingOfTheWholeList(t *testing.T) {
	tg, o, w := recordedWalk(t)
	whole := NewListReport(ListQuery{Target: tg, Walk: o}, w)
	a := w.Final()
	a.Pages, a.ItemCount, a.UnreadFromPage = a.Pages[:2], 4, 3
	part := NewListReport(ListQuery{Target: tg, Walk: o}, w)
	for _, c := range []struct {
		r     ListReport
		whole bool
	}{{whole, true}, {part, false}} {
		var human, doc bytes.Buffer
		if err := NewPrinter(&human, &human, "", false).List(c.r); err != nil {
			t.Fatal(err)
		}
		if err := NewPrinter(&doc, &doc, FormatJSON, false).List(c.r); err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(doc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{"all 3 pages at RV 215", "ok)", "kubectl watchrv watch configmaps"} {
			if strings.Contains(human.String(), s) != c.whole {
				t.Errorf("whole %v: the human output has %q: %v\n%s", c.whole, s, !c.whole, human.String())
			}
		}
		for _, k := range []string{"consistent", "listResourceVersionBelowNewestItem", "watchCommand"} {
			if _, ok := m[k]; ok != c.whole {
				t.Errorf("whole %v: -o json has %q: %v\n%s", c.whole, k, ok, doc.String())
			}
		}
		if _, ok := m["incomplete"]; ok == c.whole || strings.Contains(human.String(), "NOT THE WHOLE LIST") == c.whole {
			t.Errorf("whole %v: marked incomplete in -o json %v:\n%s\n%s", c.whole, ok, doc.String(), human.String())
		}
	}
	if !part.notTheAnswer() || whole.notTheAnswer() {
		t.Error("-o name and the templates must print nothing of a part of the list, and print a whole one")
	}
}

// The walk's wait for the client's rate limit is said beside its time.
func TestTransferSaysTheWaitForTheRateLimit(t *testing.T) {
	tg, o, w := recordedWalk(t)
	w.Paced = 3690 * time.Millisecond
	r := NewListReport(ListQuery{Target: tg, Walk: o, RateLimit: apiclient.RateLimit{QPS: 50, Burst: 100}}, w)
	want := ", and 3.69 s more waiting for the plugin's own rate limit (50 requests a second after a burst of 100: a larger --limit sends fewer requests)"
	if got := transferText(r); !strings.HasSuffix(got, want) || r.Pacing == nil || r.Pacing.Millis != 3690 {
		t.Fatalf("Transfer: %q, pacing %+v; want it to end %q", got, r.Pacing, want)
	}
}
