package apiclient

import (
	"strconv"
	"testing"
)

// FuzzParseRV: ParseRV never panics, accepts exactly the decimal
// unsigned integers that round-trip, and accepts every valid RV: each input
// also checks the RV made from it (a ParseRV rejecting everything fails).
func FuzzParseRV(f *testing.F) {
	for _, s := range []string{"", "0", "1", "12345", "-1", "abc", "18446744073709551615", "18446744073709551616", " 1", "1e3", "0x10"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, ok := ParseRV(s)
		if ok && strconv.FormatUint(n, 10) != trimZeros(s) {
			t.Fatalf("ParseRV(%q) = %d, which does not print back", s, n)
		}
		// A valid RV made from the input: its bytes as a number.
		var v uint64
		for i := 0; i < len(s) && i < 8; i++ {
			v = v<<8 | uint64(s[i])
		}
		valid := strconv.FormatUint(v, 10)
		if got, ok := ParseRV(valid); !ok || got != v {
			t.Fatalf("ParseRV(%q) = %d, %v; want %d, true", valid, got, ok, v)
		}
	})
}

func trimZeros(s string) string {
	for len(s) > 1 && s[0] == '0' {
		s = s[1:]
	}
	return s
}
