package rv

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	cases := []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"0", 0, true},
		{"1", 1, true},
		{"12345", 12345, true},
		{"007", 7, true},
		{"18446744073709551615", math.MaxUint64, true},
		{"18446744073709551616", 0, false},
		{"", 0, false},
		{"-1", 0, false},
		{"+1", 0, false},
		{" 1", 0, false},
		{"1 ", 0, false},
		{"1e3", 0, false},
		{"0x10", 0, false},
		{"1_000", 0, false},
		{"abc", 0, false},
		{"١٢", 0, false}, // Arabic-Indic digits are not decimal digits here
	}
	for _, c := range cases {
		got, ok := Parse(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("Parse(%q) = %d, %v; want %d, %v", c.in, got, ok, c.want, c.ok)
		}
		if Valid(c.in) != c.ok {
			t.Errorf("Valid(%q) = %v, want %v", c.in, !c.ok, c.ok)
		}
	}
}

func TestOrderAndGap(t *testing.T) {
	max := strconv.FormatUint(math.MaxUint64, 10)
	cases := []struct {
		a, b  string
		after bool
		less  bool
		gap   string
	}{
		{"10", "9", true, false, "1"},
		{"9", "10", false, true, ""}, // compared as numbers, not as text
		{"5", "5", false, false, "0"},
		{max, "0", true, false, max},
		{"0", max, false, true, ""},
		{"abc", "5", true, false, ""}, // not a number: only "different"
		{"abc", "abc", false, false, ""},
		{"", "", false, false, ""},
		{"", "5", true, false, ""},
		{"-1", "0", true, false, ""},
	}
	for _, c := range cases {
		if got := After(c.a, c.b); got != c.after {
			t.Errorf("After(%q, %q) = %v, want %v", c.a, c.b, got, c.after)
		}
		if got := Less(c.a, c.b); got != c.less {
			t.Errorf("Less(%q, %q) = %v, want %v", c.a, c.b, got, c.less)
		}
		if got := Gap(c.a, c.b); got != c.gap {
			t.Errorf("Gap(%q, %q) = %q, want %q", c.a, c.b, got, c.gap)
		}
	}
}

func TestWhyNamesWhatAnRVIs(t *testing.T) {
	for in, want := range map[string]string{
		"12":                    "",
		"":                      "is empty",
		"18446744073709551616":  "is above 18446744073709551615, the largest number 64 bits hold",
		"123456789012345678901": "has 21 digits, more than a 64-bit number holds (at most 20)",
		"-3":                    "is negative",
		"abc":                   "is not a decimal number",
		"-":                     "is not a decimal number",
		"1e3":                   "is not a decimal number",
	} {
		got := Why(in)
		if (want == "") != (got == "") || !strings.HasPrefix(got, want) {
			t.Errorf("Why(%q) = %q, want it to start with %q", in, got, want)
		}
	}
}

func TestOfStorageRefusesWhatNoStorageGives(t *testing.T) {
	for in, want := range map[string]string{
		"1":      "",
		"500":    "",
		"0":      "is 0",
		"00":     "is 0",
		"":       "is empty",
		"1\x1b[": "is not a decimal number",
	} {
		n, why := OfStorage(in)
		if (want == "") != (why == "") || !strings.HasPrefix(why, want) || (why != "" && n != 0) {
			t.Errorf("OfStorage(%q) = %d, %q, want a why starting with %q", in, n, why, want)
		}
	}
}
