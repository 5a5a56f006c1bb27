package diagnose

import (
	"regexp"
	"strings"
	"testing"
)

// digitsOf20 finds a sentence that gives a digit count of 20 (or fewer)
// as a reason: 18446744073709551615 has 20 digits and is an RV, so only
// the value can be why a 20-digit number is none (adversary F5).
var digitsOf20 = regexp.MustCompile(`\b([1-9]|1[0-9]|20) digits\b`)

// everyText is every sentence a diagnosis says.
func everyText(d Diagnosis) string {
	return strings.Join(append([]string{d.Summary, d.What, d.Why, d.ClientGo, d.Fix, d.Inconsistent}, d.Notes...), "\n")
}

// The RVs past 64 bits are said by their value, and by their digit count
// only when it alone is the reason (more than 20), in every phrase form.
func TestPastMaxSaidByValue(t *testing.T) {
	for _, c := range []struct{ n, want string }{
		{"18446744073709551616", "above 18446744073709551615"},
		{"18446744073709551617", "above 18446744073709551615"},
		{"99999999999999999999", "above 18446744073709551615"},
		{"123456789012345678901", "has 21 digits"},
		{strings.Repeat("9", 70), "has 64 digits or more"},
	} {
		for _, base := range []string{`too old resource version: 214 (257)`, `too old resource version: 100`, `Timeout: Too large resource version: 5000, current: 4000`} {
			for _, text := range []string{strings.Replace(base, "214", c.n, 1), strings.Replace(base, "100", c.n, 1), strings.Replace(base, "5000", c.n, 1), strings.Replace(base, "4000", c.n, 1), strings.Replace(base, "257", c.n, 1)} {
				if text == base {
					continue
				}
				d := FromText(text)
				all := everyText(d)
				if !strings.Contains(all, c.want) {
					t.Errorf("%q: no %q in\n%s", text, c.want, all)
				}
				if m := digitsOf20.FindString(all); m != "" {
					t.Errorf("%q: says %q of a number of at most 20 digits:\n%s", text, m, all)
				}
			}
		}
	}
	if d := FromText(`too old resource version: 18446744073709551615 (5)`); strings.Contains(everyText(d), "64-bit") || d.RequestedResourceVersion != "18446744073709551615" {
		t.Errorf("the largest RV is an RV: %+v", d)
	}
}
