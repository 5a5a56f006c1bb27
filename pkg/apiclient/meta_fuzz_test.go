package apiclient

import (
	"strconv"
	"testing"
)

// FuzzParseRV: ParseRV never panics and accepts exactly the decimal
// unsigned integers that round-trip.
func FuzzParseRV(f *testing.F) {
	for _, s := range []string{"", "0", "1", "12345", "-1", "abc", "18446744073709551615", "18446744073709551616", " 1", "1e3", "0x10"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, ok := ParseRV(s)
		if ok && strconv.FormatUint(n, 10) != trimZeros(s) {
			t.Fatalf("ParseRV(%q) = %d, which does not print back", s, n)
		}
	})
}

func trimZeros(s string) string {
	for len(s) > 1 && s[0] == '0' {
		s = s[1:]
	}
	return s
}
