package diagnose

import (
	"os"
	"strings"
	"testing"
)

func readLines(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimRight(string(b), "\n"), "\n")
}

// answerOnly is a kubectl -v=6 trace as kubectl get prints it at -v=6:
// the last request's line and kubectl's error line, without the answer's
// body (fresh user try 51 F11's paste).
func answerOnly(lines []string) []string {
	var last string
	for _, l := range lines {
		if strings.Contains(l, "round_trippers.go") {
			last = l
		}
	}
	return []string{lines[0], last, lines[len(lines)-1]}
}

// TestOnePastedTextIsReadAsItsLog: a pasted text of several lines holds
// several requests (a kubectl -v=6 trace logs its discovery requests
// first, each answered 200 OK): each line's code, RV and URL are its own
// request's, so the one-message form (FromText, explain-error MESSAGE)
// tells the error with its own request's kind, RV and operation wherever
// the other requests' lines are, the same as -f (Summarize) tells it
// (fresh user try 51 F11, adversary try 51 F13: a discovery line's
// "200 OK" made a 410 or a 504 Unrecognized, a list's 200 OK line before
// a watch's error took its RV and operation). Every text is recorded
// real output (testdata/README.md), only put together.
func TestOnePastedTextIsReadAsItsLog(t *testing.T) {
	discovery := readLines(t, "discovery-kubectl-v6.log")
	exact := readLines(t, "expired-list-exact-kubectl-v6.log")
	watch := readLines(t, "expired-watch-kubectl-v6.log")
	large := readLines(t, "toolarge-list-exact-kubectl-v6.log")
	traces := []struct {
		name      string
		lines     []string
		class     Class
		kind, rv  string
		op        string
		requestRV string // the request --check asks again ("" none)
	}{
		{"exact list at a compacted RV", exact, ClassExpired, KindEtcdCompactedExactList, "214", OpListExact, "214"},
		{"exact list at a compacted RV, without the body", answerOnly(exact), ClassExpired, KindEtcdCompactedExactList, "214", OpListExact, "214"},
		{"watch from before the window", watch, ClassExpired, KindWatchCacheWindow, "214", OpWatch, "214"},
		{"exact list ahead of the server", large, ClassTooLarge, KindResourceVersionTooLarge, "99999", OpListExact, "99999"},
		{"exact list ahead of the server, the last answer without the body", answerOnly(large), ClassTooLarge, KindResourceVersionTooLarge, "99999", OpListExact, "99999"},
	}
	join := func(parts ...[]string) string {
		var all []string
		for _, p := range parts {
			all = append(all, p...)
		}
		return strings.Join(all, "\n") + "\n"
	}
	for _, tr := range traces {
		forms := map[string]string{
			"alone":                       join(tr.lines),
			"after the discovery":         join(discovery, tr.lines),
			"before the discovery":        join(tr.lines, discovery),
			"between two discovery runs":  join(discovery, tr.lines, discovery),
			"after the list's 200 OK":     join(discovery[len(discovery)-1:], tr.lines),
			"before the list's 200 OK":    join(tr.lines, discovery[len(discovery)-1:]),
			"after the 200 OK of /api":    join(discovery[:2], tr.lines),
			"the discovery's lines split": join(discovery[:2], tr.lines, discovery[2:]),
		}
		for form, text := range forms {
			d, read := ReadText(text, Context{})
			if d.Class != tr.class || d.Kind != tr.kind || d.RequestedResourceVersion != tr.rv || d.Operation != tr.op {
				t.Errorf("%s, %s: %s/%s RV %q operation %q, want %s/%s RV %q operation %q (notes %q)", tr.name, form,
					d.Class, d.Kind, d.RequestedResourceVersion, d.Operation, tr.class, tr.kind, tr.rv, tr.op, d.Notes)
				continue
			}
			switch {
			case tr.requestRV == "" && d.Request != nil:
				t.Errorf("%s, %s: request %+v, from a line of another request", tr.name, form, *d.Request)
			case tr.requestRV != "" && (d.Request == nil || d.Request.ResourceVersion != tr.requestRV || d.Request.Resource != "configmaps" || d.Request.Namespace != "demo"):
				t.Errorf("%s, %s: request %+v (unread %q), want configmaps in demo at RV %s", tr.name, form, d.Request, d.RequestUnread, tr.requestRV)
			}
			if read.Kinds != 1 || read.Line == 0 {
				t.Errorf("%s, %s: read as %+v, want one kind and the line explained", tr.name, form, read)
			}
			if f := FromText(text); f.Class != d.Class || f.Kind != d.Kind || f.RequestedResourceVersion != d.RequestedResourceVersion {
				t.Errorf("%s, %s: FromText %s/%s RV %q, ReadText %s/%s RV %q", tr.name, form, f.Class, f.Kind, f.RequestedResourceVersion, d.Class, d.Kind, d.RequestedResourceVersion)
			}
			// The same as -f: one group, of the same kind, RV and operation.
			s, err := Summarize(strings.NewReader(text), 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Groups) != 1 || s.Findings != read.Findings {
				t.Errorf("%s, %s: -f found %d in %d groups, the one-message form %d in %d", tr.name, form, s.Findings, len(s.Groups), read.Findings, read.Kinds)
				continue
			}
			if g := s.Groups[0]; g.Class != d.Class || g.Kind != d.Kind || g.RequestedResourceVersion != d.RequestedResourceVersion || g.Operation != d.Operation {
				t.Errorf("%s, %s: -f %s/%s RV %q operation %q, the one-message form %s/%s RV %q operation %q", tr.name, form,
					g.Class, g.Kind, g.RequestedResourceVersion, g.Operation, d.Class, d.Kind, d.RequestedResourceVersion, d.Operation)
			}
		}
	}
	// The discovery alone holds no error, and says nothing of another's.
	if d := FromText(join(discovery)); d.Recognized() || len(d.Notes) != 0 {
		t.Fatalf("the discovery's 200 OK lines: %s/%s %q", d.Class, d.Kind, d.Notes)
	}
}
