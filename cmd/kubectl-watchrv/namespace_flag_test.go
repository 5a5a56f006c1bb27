package main

import (
	"strings"
	"testing"
)

// Every command refuses a -n that is no namespace name, with the same one
// line and exit 2, before any request: those that apply a namespace and
// those that apply none (top, clients) alike.
func TestEveryCommandRefusesABadNamespace(t *testing.T) {
	for _, args := range [][]string{
		{"list", "cm"}, {"watch", "cm", "--timeout", "2s"}, {"probe", "cm"}, {"streaming", "cm"},
		{"explain-error", "--check", "too old resource version: 1 (2)"},
		{"top", "--once"}, {"clients", "-f", "/nonexistent-watchrv-unit.log"},
	} {
		for _, ns := range []string{"Bad_NS", "a\x07b", strings.Repeat("a", 64)} {
			_, errOut, code := runWithEnv(t, "/nonexistent-watchrv-unit", append([]string{"-n", ns}, args...)...)
			line := strings.TrimSpace(errOut)
			if code != ExitUsage || strings.Count(line, "\n") != 0 || !strings.Contains(line, "is not a namespace name") {
				t.Errorf("%v -n %q: exit %d, stderr %q: want exit %d and one line naming the namespace", args, ns, code, errOut, ExitUsage)
			}
		}
	}
}
