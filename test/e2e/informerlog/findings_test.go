//go:build e2e

package informerlog

import (
	"sort"
	"strings"
	"testing"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// finding is one error line of an informer's real log as explain-error -f
// grouped it, with that very line's own diagnosis (a group only shows its
// first finding's numbers).
type finding struct {
	Line  int
	Text  string
	Group logGroup
	Own   diagnosis
}

// rvErrorPhrases are the wordings of a resourceVersion error that the
// informer's log may hold: none may go unreported by explain-error.
var rvErrorPhrases = []string{
	"too old resource version",
	"resourceVersion for the provided watch is too old",
	"resourceVersion for the provided list is too old",
	"has been compacted",
	"Too large resource version",
}

// scanLog feeds the informer's log to explain-error -f -o json, checks
// that every line naming an RV error was found and that each finding's own
// diagnosis agrees with its group, and logs every finding with its line.
func scanLog(t *testing.T, in *framework.Informer) []finding {
	t.Helper()
	lines := logLines(t, in.LogPath)
	s := explainLog(t, in.LogPath)
	byLine := findingLines(t, s)
	nums := make([]int, 0, len(byLine))
	for n := range byLine {
		nums = append(nums, n)
	}
	sort.Ints(nums)
	var out []finding
	for _, n := range nums {
		if n < 1 || n > len(lines) {
			t.Fatalf("%s: explain-error reported line %d of a %d-line log", in.Name, n, len(lines))
		}
		g := byLine[n]
		f := finding{Line: n, Text: lines[n-1], Group: g, Own: explainLine(t, lines[n-1])}
		if f.Own.Class != g.Class || f.Own.Kind != g.Kind {
			t.Errorf("%s line %d: explain-error -f grouped it as %s/%s, but the line alone is %s/%s:\n%s", in.Name, n, g.Class, g.Kind, f.Own.Class, f.Own.Kind, f.Text)
		}
		t.Logf("%s line %d -> %s/%s requested=%q oldest=%q gap=%q\n    %s", in.Name, n, f.Own.Class, f.Own.Kind, f.Own.Requested, f.Own.Oldest, f.Own.Gap, f.Text)
		out = append(out, f)
	}
	for i, l := range lines {
		for _, p := range rvErrorPhrases {
			if strings.Contains(l, p) {
				if _, ok := byLine[i+1]; !ok {
					t.Errorf("%s line %d names an RV error (%q) but explain-error -f did not report it:\n%s", in.Name, i+1, p, l)
				}
				break
			}
		}
	}
	t.Logf("%s: %d lines, %d findings in %d groups", in.Name, len(lines), s.Findings, len(s.Groups))
	return out
}

// ofKind keeps the findings of one kind.
func ofKind(fs []finding, kind string) []finding {
	var out []finding
	for _, f := range fs {
		if f.Own.Kind == kind {
			out = append(out, f)
		}
	}
	return out
}
