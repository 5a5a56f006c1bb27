// Package notetest checks, for tests, that every reference of a report to
// a note under it ("see "LABEL" below") has its note: unit tests of
// pkg/render on recorded answers and e2e tests on real servers read one
// rule (fresh user try 20 #5: "see the notes below", and no note).
package notetest

import (
	"regexp"
	"strings"
)

// reference is a reference of a report to a note under it.
var reference = regexp.MustCompile(`see ([^()]*?) below`)

// Unresolved are the references of out to a note below that out does not
// print: every one must be `see "LABEL" below`, with a line after it that
// begins with LABEL.
func Unresolved(out string) []string {
	var bad []string
	for _, m := range reference.FindAllStringSubmatchIndex(out, -1) {
		ref := out[m[2]:m[3]]
		label, ok := strings.CutPrefix(ref, `"`)
		label, closed := strings.CutSuffix(label, `"`)
		if !ok || !closed || !regexp.MustCompile(`(?m)^`+regexp.QuoteMeta(label)).MatchString(out[m[1]:]) {
			bad = append(bad, ref)
		}
	}
	return bad
}
