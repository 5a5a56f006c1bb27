package diagnose

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/watchrv/kubectl-watchrv/internal/rv"
)

// FuzzFromText checks that FromText never panics and that its answers keep
// their invariants whatever the input.
func FuzzFromText(f *testing.F) {
	for _, s := range samples {
		f.Add(s.text)
	}
	f.Add(`{"type":"ERROR","object":` + strings.Repeat(`{"a":`, 40) + `1` + strings.Repeat(`}`, 41))
	f.Add(`"code":"message":\"continue\":'reason':(410)`)
	f.Fuzz(func(t *testing.T, s string) {
		d := FromText(s)
		switch d.Class {
		case ClassExpired, ClassTooLarge, ClassOther:
			if d.Kind == "" || d.Summary == "" || d.Fix == "" {
				t.Fatalf("recognized without kind or texts: %+v", d)
			}
			if _, ok := advices[d.Kind]; !ok {
				t.Fatalf("kind %q has no advice", d.Kind)
			}
		case ClassUnrecognized:
			if d.Kind != "" {
				t.Fatalf("unrecognized with kind %q", d.Kind)
			}
		default:
			t.Fatalf("class %q", d.Class)
		}
		switch d.Confidence {
		case ConfidenceHigh, ConfidenceMedium, ConfidenceLow:
		default:
			t.Fatalf("confidence %q", d.Confidence)
		}
		// RVs are decimal digits, kept whole even when too long for a
		// uint64 (then a note says so); gaps are always uint64s.
		for _, n := range []string{d.RequestedResourceVersion, d.OldestResourceVersion, d.CurrentResourceVersion} {
			if n == "" {
				continue
			}
			if strings.Trim(n, "0123456789") != "" || len(n) > maxDigits {
				t.Fatalf("not digits: %q in %+v", n, d)
			}
			if !rv.Valid(n) && len(d.Notes) == 0 {
				t.Fatalf("RV %q does not fit in 64 bits and no note says so: %+v", n, d)
			}
		}
		if d.Gap != "" && !rv.Valid(d.Gap) {
			t.Fatalf("gap not a number: %q in %+v", d.Gap, d)
		}
		// Numbers no server prints together are never told as fact.
		if impossibleNumbers(d) || d.Inconsistent != "" {
			notNarrated(t, s, d)
		}
	})
}

// pathological inputs: their cost is measured by BenchmarkPathological,
// never asserted with a clock here.
func pathological() map[string]string {
	r := rand.New(rand.NewSource(1))
	garbage := make([]byte, 1<<20)
	r.Read(garbage)
	const mb = 1 << 20
	rep := func(s string) string { return strings.Repeat(s, mb/len(s)+1)[:mb] }
	return map[string]string{
		"random bytes":           string(garbage),
		"nested objects":         rep(`{"a":`),
		"nested arrays":          rep(`[`),
		"nested status":          `{"kind":"Status","code":410,"details":` + rep(`{"x":`),
		"quotes":                 rep(`"`),
		"escaped quotes":         rep(`\"`),
		"code keys":              rep(`code `),
		"Code keys unterminated": rep(`"Code":`),
		"message keys":           rep(`"message":"`),
		"escaped message keys":   rep(`\"message\":\"`),
		"reason keys":            rep(`reason: Ex`),
		"continue keys":          rep(`'continue': '`),
		"parens":                 rep(`(410`),
		"too old prefixes":       rep(`too old resource version: `),
		"too large prefixes":     rep(`Too large resource version: 1, current: `),
		"digits":                 rep(`1234567890`),
		"newlines":               rep("\n"),
		"urls":                   rep(`?resourceVersion=`),
		"HTTP":                   rep(`HTTP/1.1 `),
		"error from server":      rep(`Error from server (`),
		"continue parameter":     rep(`The provided continue parameter is too old`),
		"compacted":              rep(`mvcc: etcdserver: required revision has been compacted`),
		"conflict ops":           rep(`Operation cannot be fulfilled on `),
		"conflict":               rep(`the object has been modified`),
		"update without RV":      rep(`must be specified for an update`),
		"PrevKv":                 rep(`etcd event received with PrevKv=nil (key="/a", `),
		"v2 history":             rep(`The event in requested index is outdated and cleared (the requested history has been cleared [1/`),
		".NET status names":      rep(`invalid status code '`),
	}
}

func TestFromTextPathological(t *testing.T) {
	for name, in := range pathological() {
		d := FromText(in)
		switch name {
		case "random bytes", "nested objects", "nested arrays", "quotes", "escaped quotes", "digits", "newlines", "code keys", "conflict ops":
			if d.Recognized() {
				t.Errorf("%s: recognized as %s/%s", name, d.Class, d.Kind)
			}
		}
	}
}

func TestScanLogPathological(t *testing.T) {
	for name, in := range pathological() {
		if err := ScanLog(strings.NewReader(in), func(Finding) {}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
}

// BenchmarkPathological measures FromText and ScanLog on each pathological
// input (1 MiB): the ns/op column shows any that is far from linear.
func BenchmarkPathological(b *testing.B) {
	for name, in := range pathological() {
		b.Run("FromText/"+name, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			for i := 0; i < b.N; i++ {
				FromText(in)
			}
		})
		b.Run("ScanLog/"+name, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			for i := 0; i < b.N; i++ {
				if err := ScanLog(strings.NewReader(in), func(Finding) {}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// FuzzScanLogAgrees checks that the log prefilter never hides a line that
// the classifier recognizes: on one line, ScanLog finds an error exactly
// when classifyText does.
func FuzzScanLogAgrees(f *testing.F) {
	for _, s := range samples {
		f.Add(s.text)
	}
	f.Fuzz(func(t *testing.T, s string) {
		line := strings.NewReplacer("\n", " ", "\r", " ").Replace(s)
		if len(line) > MaxLineBytes {
			return
		}
		found := 0
		if err := ScanLog(strings.NewReader(line), func(Finding) { found++ }); err != nil {
			t.Fatal(err)
		}
		want := 0
		if line != "" && classifyText(line, Context{}).Recognized() {
			want = 1
		}
		if found != want {
			t.Fatalf("ScanLog found %d, classifyText %d, in %q", found, want, line)
		}
	})
}
