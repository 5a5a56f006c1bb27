package framework

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestFaultsListsEveryFault: every Fault constant of the package is in
// Faults, so that test/e2e/fakeserver offers it.
func TestFaultsListsEveryFault(t *testing.T) {
	re := regexp.MustCompile(`(?m)^\s+(Fault[A-Z]\w*)\s+Fault\s*=`)
	files, _ := os.ReadDir(".")
	n := 0
	for _, f := range files {
		if !strings.HasSuffix(f.Name(), ".go") {
			continue
		}
		b, err := os.ReadFile(f.Name())
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllSubmatch(b, -1) {
			n++
			found := false
			for _, k := range Faults {
				if strings.EqualFold(strings.ReplaceAll(string(k), "-", ""), strings.TrimPrefix(string(m[1]), "Fault")) {
					found = true
				}
			}
			if !found {
				t.Errorf("%s (%s) is not in Faults", m[1], f.Name())
			}
		}
	}
	if n != len(Faults) {
		t.Errorf("%d Fault constants, %d in Faults", n, len(Faults))
	}
}
