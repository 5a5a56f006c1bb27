package rv

import (
	"encoding/binary"
	"strconv"
	"strings"
	"testing"
)

// FuzzParseRV holds Parse to its contract from both sides, so that a Parse
// that rejects everything, or accepts everything, fails:
//   - every uint64 round-trips: Parse(FormatUint(n)) == n, also with
//     leading zeros (the input's first 8 bytes make n);
//   - every input is accepted exactly when strconv.ParseUint (base 10, 64
//     bits) accepts it and it is not "" (so no sign, no blank, no "0x", no
//     "_"), and an accepted input prints back as itself without its
//     leading zeros;
//   - a sign or a blank around a valid RV is refused.
func FuzzParseRV(f *testing.F) {
	for _, s := range []string{"", "0", "1", "12345", "-1", "+1", "abc", "18446744073709551615", "18446744073709551616", " 1", "1 ", "1e3", "0x10", "1_000", "0009"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		// Accepted exactly when strconv accepts it, with its value.
		n, ok := Parse(s)
		want, err := strconv.ParseUint(s, 10, 64)
		if ok != (err == nil && s != "") {
			t.Fatalf("Parse(%q) ok = %v, strconv.ParseUint says %v", s, ok, err)
		}
		if ok && (n != want || strconv.FormatUint(n, 10) != trimZeros(s)) {
			t.Fatalf("Parse(%q) = %d, which does not print back", s, n)
		}
		if !ok && n != 0 {
			t.Fatalf("Parse(%q) refused it but returned %d", s, n)
		}
		if Valid(s) != ok {
			t.Fatalf("Valid(%q) = %v, Parse ok = %v", s, Valid(s), ok)
		}

		// Every uint64 round-trips: the input's bytes as a number.
		var b [8]byte
		copy(b[:], s)
		v := binary.BigEndian.Uint64(b[:])
		valid := strconv.FormatUint(v, 10)
		if got, ok := Parse(valid); !ok || got != v {
			t.Fatalf("Parse(%q) = %d, %v; want %d, true", valid, got, ok, v)
		}
		if got, ok := Parse("00" + valid); !ok || got != v {
			t.Fatalf("Parse(%q) = %d, %v; want %d, true", "00"+valid, got, ok, v)
		}
		// What surrounds a valid RV makes it invalid.
		for _, bad := range []string{"+" + valid, "-" + valid, " " + valid, valid + " ", valid + "\n", "0x" + valid, valid + "_0"} {
			if _, ok := Parse(bad); ok {
				t.Fatalf("Parse(%q) accepted it", bad)
			}
		}
		// Gap and Less agree with the numbers.
		if ok {
			if g := Gap(valid, s); (v >= n) != (g != "") || (g != "" && g != strconv.FormatUint(v-n, 10)) {
				t.Fatalf("Gap(%q, %q) = %q", valid, s, g)
			}
			if Less(s, valid) != (n < v) {
				t.Fatalf("Less(%q, %q) = %v", s, valid, Less(s, valid))
			}
		}
	})
}

func trimZeros(s string) string {
	t := strings.TrimLeft(s, "0")
	if t == "" && s != "" {
		return "0"
	}
	return t
}
