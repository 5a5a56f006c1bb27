// Package rv is the arithmetic of resourceVersions: parsing, ordering and
// the distance between two. An RV is opaque by the API's contract, but
// every etcd-backed API server writes a decimal uint64 (an etcd revision),
// and the plugin's numbers rest on that; a value that is not one is never
// ordered or subtracted. Standard library only: every other package may
// use it.
package rv

import (
	"fmt"
	"strconv"
)

// Parse parses a decimal resourceVersion; ok is false (and the number 0)
// for anything else: "", a sign, blanks, another base, or more than a
// uint64 holds.
func Parse(s string) (uint64, bool) {
	if s == "" {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, false
	}
	return n, true
}

// Valid reports whether s is a decimal resourceVersion (Parse accepts it).
func Valid(s string) bool {
	_, ok := Parse(s)
	return ok
}

// After reports a > b for decimal RVs; RVs that are not numbers are
// compared for difference only (a new opaque RV counts as after).
func After(a, b string) bool {
	x, ok1 := Parse(a)
	y, ok2 := Parse(b)
	if !ok1 || !ok2 {
		return a != b
	}
	return x > y
}

// Less reports a < b as numbers; false when either is not a number.
func Less(a, b string) bool {
	x, ok1 := Parse(a)
	y, ok2 := Parse(b)
	return ok1 && ok2 && x < y
}

// Gap returns a-b in decimal for a >= b; "" when either is not a number or
// a < b (a gap is never negative, and never wraps around).
func Gap(a, b string) string {
	x, ok1 := Parse(a)
	y, ok2 := Parse(b)
	if !ok1 || !ok2 || x < y {
		return ""
	}
	return strconv.FormatUint(x-y, 10)
}

// Why says what s is when Parse refuses it, as words that finish "the
// resourceVersion ... ": "" when s is a decimal RV. A run of digits past
// a uint64 is named as such (it is decimal, only too large), never "not a
// decimal number" (adversary try 19).
func Why(s string) string {
	switch {
	case Valid(s):
		return ""
	case s == "":
		return "is empty"
	case digitsOnly(s):
		return PastMax(s)
	case s[0] == '-' && digitsOnly(s[1:]):
		return "is negative"
	}
	return "is not a decimal number"
}

// Max is the largest RV: the largest number 64 bits hold.
const Max = "18446744073709551615"

// PastMax says why a run of digits Parse refuses is no RV, as words that
// finish "the resourceVersion ...": its value is above Max, and only a
// run of more than 20 significant digits is said by its digit count
// (adversary try F5: 18446744073709551617 "has 20 digits, more than a
// 64-bit number holds", when Max has 20 digits too).
func PastMax(s string) string {
	n := len(s)
	for i := 0; i < len(s)-1 && s[i] == '0'; i++ {
		n--
	}
	if n > len(Max) {
		return fmt.Sprintf("has %d digits, more than a 64-bit number holds (at most %d)", n, len(Max))
	}
	return "is above " + Max + ", the largest number 64 bits hold"
}

func digitsOnly(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// OfStorage parses an RV a server gave as its current one (a list's, a
// consistent list's): every storage counts its revisions from 1, so "0"
// (and anything Parse refuses) is no RV of a storage, and never compared
// with one (adversary try 24 F2: a consistent list at RV "0" was taken for
// a storage behind the resume point). why finishes "the resourceVersion
// ..." when ok is false.
func OfStorage(s string) (n uint64, why string) {
	n, ok := Parse(s)
	switch {
	case !ok:
		return 0, Why(s)
	case n == 0:
		return 0, "is 0, which no storage gives as its RV (its revisions count from 1)"
	}
	return n, ""
}
