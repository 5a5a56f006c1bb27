//go:build e2e

package bounds

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// Every BOOKMARK a watch receives is accounted for, in every mode of
// asking: the contract floors the changes after it and it may be the
// resume point, so the summary's bookmarks count it, and it is an event
// line (named "sent unasked" when the watch did not ask for bookmarks) or
// counted as not shown (asked for only to keep the resume point fresh).
// Adversary try 21 F1: "RV 150 is not after RV 200 (the bookmark before
// it)" beside "bookmarks: 0", and a resume point at a bookmark no line
// or count showed.
func TestEveryBookmarkReceivedIsAccountedFor(t *testing.T) {
	obj := func(typ, name, rv string) string {
		return fmt.Sprintf(`{"type":%q,"object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":%q,"namespace":"default","uid":"u-%s","resourceVersion":%q}}}`, typ, name, name, rv)
	}
	bookmark := func(rv string, end bool) string {
		ann := ""
		if end {
			ann = `,"annotations":{"k8s.io/initial-events-end":"true"}`
		}
		return `{"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"` + rv + `"` + ann + `}}}`
	}
	changes := []string{obj("ADDED", "b", "110"), bookmark("200", false), obj("MODIFIED", "b", "150"), obj("MODIFIED", "d", "310")}
	// The bookmark at 200 floors the change at 150, so it is shown with
	// it even when bookmarks are not; the one at 300 floors nothing.
	state := []string{obj("ADDED", "a", "50"), bookmark("100", true), obj("MODIFIED", "a", "120"), bookmark("200", false), obj("MODIFIED", "a", "150"), bookmark("300", false)}
	const path = "/api/v1/namespaces/default/configmaps"
	for _, c := range []struct {
		name     string
		events   []string
		args     []string
		sent     int  // bookmarks the server sent
		notShown int  // of them, counted as not shown
		unasked  bool // the watch did not ask for bookmarks
	}{
		{"unasked", changes, []string{"watch", "cm", "--rv", "100"}, 1, 0, true},
		{"asked with --bookmarks", changes, []string{"watch", "cm", "--rv", "100", "--bookmarks"}, 1, 0, false},
		{"a streaming list", state, []string{"watch", "cm", "--send-initial-events"}, 3, 1, false},
		{"a streaming list with --bookmarks", state, []string{"watch", "cm", "--send-initial-events", "--bookmarks"}, 3, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, kc := framework.ServeScript(t, map[string]framework.ScriptAnswer{path + "?watch": {Code: 200, Type: "application/json", Body: strings.Join(c.events, "\n") + "\n"}})
			args := append(c.args, "--timeout", "3s")
			j := framework.Run(t, kc, time.Minute, append(args, "-o", "json")...)
			shown, unasked := 0, 0
			var sum struct {
				Bookmarks, BookmarksNotShown int
				ByType                       map[string]int
			}
			for _, line := range strings.Split(strings.TrimSpace(j.Stdout), "\n") {
				var rec struct {
					Record, Type string
					Unasked      bool
				}
				if err := json.Unmarshal([]byte(line), &rec); err != nil {
					t.Fatalf("%v: a line is no JSON: %v: %q", args, err, line)
				}
				switch {
				case rec.Record == "event" && rec.Type == "BOOKMARK":
					shown++
					if rec.Unasked {
						unasked++
					}
				case rec.Record == "summary":
					_ = json.Unmarshal([]byte(line), &sum)
				}
			}
			if j.Code != 1 || !strings.Contains(j.Stderr, "(the bookmark before it)") {
				t.Errorf("%v: exit %d, %q: want exit 1 for the change below the bookmark", args, j.Code, j.Stderr)
			}
			if sum.Bookmarks != c.sent || sum.BookmarksNotShown != c.notShown || shown+sum.BookmarksNotShown != sum.Bookmarks || sum.ByType["BOOKMARK"] != shown {
				t.Errorf("%v: bookmarks %d, not shown %d, event lines %d, byType %d: want %d sent, %d not shown, every one a line or not shown", args, sum.Bookmarks, sum.BookmarksNotShown, shown, sum.ByType["BOOKMARK"], c.sent, c.notShown)
			}
			if (unasked > 0) != c.unasked {
				t.Errorf("%v: %d bookmark lines marked unasked, want unasked %v", args, unasked, c.unasked)
			}
			h := framework.Run(t, kc, time.Minute, args...)
			if c.unasked != strings.Contains(h.Stdout, "sent unasked (the watch did not ask for bookmarks)") {
				t.Errorf("%v: the unasked bookmark is not named so (or a bookmark asked for is):\n%s", args, h.Stdout)
			}
			if !regexp.MustCompile(`(?m)^\S+\s+BOOKMARK\s+200\s`).MatchString(h.Stdout) {
				t.Errorf("%v: the bookmark the breach names (RV 200) has no line:\n%s", args, h.Stdout)
			}
			if (c.notShown > 0) != strings.Contains(h.Stdout, fmt.Sprintf("and %d bookmark not shown", c.notShown)) {
				t.Errorf("%v: the summary does not count the bookmark not shown:\n%s", args, h.Stdout)
			}
		})
	}
}
