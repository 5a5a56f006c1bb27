package diagnose

import (
	"strings"
	"testing"
)

// Every numbered RV phrase, with every kind of token that is no RV as the
// server prints it put in each of its numbers' places (adversary F6): the
// quote holds the whole phrase to the end of its numbers (never cut between
// the requested RV and the other one), the readable number beside the bad
// one is kept, a 20-digit number is never said by its digit count
// (adversary F5), and the texts never say the numbers are missing when
// they are there. The base phrases are the recorded server messages of
// samples and rewordedSamples.
func TestRVPhraseTokens(t *testing.T) {
	type slot struct {
		num   string                 // the number of the recorded message
		field func(Diagnosis) string // where it is read to
		name  string                 // for the failure message
	}
	req := func(d Diagnosis) string { return d.RequestedResourceVersion }
	old := func(d Diagnosis) string { return d.OldestResourceVersion }
	cur := func(d Diagnosis) string { return d.CurrentResourceVersion }
	bases := []struct {
		text, quoteFrom string // the recorded message, and where its quote starts
		slots           []slot
	}{
		{`too old resource version: 214 (257)`, "too old", []slot{{num: "214", field: req, name: "requested"}, {num: "257", field: old, name: "oldest"}}},
		{`Too old resource version: 214 (257)`, "Too old", []slot{{num: "214", field: req, name: "requested"}, {num: "257", field: old, name: "oldest"}}},
		{`too old resource version: 100`, "too old", []slot{{num: "100", field: req, name: "requested"}}},
		{`Timeout: Too large resource version: 5000, current: 4000`, "Timeout: Too large", []slot{{num: "5000", field: req, name: "requested"}, {num: "4000", field: cur, name: "current"}}},
		{`Error from server (Timeout): too large resource version: 9000, current: 8990`, "too large", []slot{{num: "9000", field: req, name: "requested"}, {num: "8990", field: cur, name: "current"}}},
		{`TOO LARGE RESOURCE VERSION: 300, CURRENT: 200`, "TOO LARGE", []slot{{num: "300", field: req, name: "requested"}, {num: "200", field: cur, name: "current"}}},
	}
	tokens := []struct {
		tok, read string // the token, and the RV read from it ("" = none)
		low       bool   // the confidence is low with it
	}{
		{"-5", "", true},
		{"05", "", true},
		{"0x10", "", true},
		{"1e3", "", true},
		{"18446744073709551616", "18446744073709551616", true}, // kept as text, no RV (markNumbers)
		{"123456789012345678901", "123456789012345678901", true},
		{"77.", "77", false}, // a full stop is punctuation
	}
	for _, b := range bases {
		for k, sl := range b.slots {
			for _, tk := range tokens {
				text := strings.Replace(b.text, sl.num, tk.tok, 1)
				d := FromText(text)
				all := everyText(d)
				at := strings.Index(text, b.quoteFrom)
				want := strings.TrimSuffix(text[at:], ".") // a full stop after the last number is the quote's either way
				if got := strings.TrimSuffix(d.Message, "."); got != want {
					t.Errorf("%q: quote %q, want the whole phrase %q", text, d.Message, want)
				}
				if got := sl.field(d); got != tk.read {
					t.Errorf("%q: %s RV %q, want %q", text, sl.name, got, tk.read)
				}
				for o, other := range b.slots {
					if o != k && other.field(d) != other.num {
						t.Errorf("%q: the readable %s RV %s is dropped (%q):\n%s", text, other.name, other.num, other.field(d), all)
					}
				}
				if tk.low && d.Confidence != ConfidenceLow {
					t.Errorf("%q: confidence %s, want low", text, d.Confidence)
				}
				if m := digitsOf20.FindString(all); m != "" {
					t.Errorf("%q: says %q:\n%s", text, m, all)
				}
				if strings.Contains(all, "without the numbers") || strings.Contains(all, "none of the numbers") || strings.Contains(all, "are empty") {
					t.Errorf("%q: says its numbers are missing:\n%s", text, all)
				}
				if tk.read == "" && !strings.Contains(all, `"`+tk.tok+`" is no RV`) && !strings.Contains(all, `"`+tk.tok+`" and `) && !strings.Contains(all, ` and "`+tk.tok+`" are no RVs`) {
					t.Errorf("%q: no note says %q is no RV:\n%s", text, tk.tok, all)
				}
			}
		}
	}
}

// Both numbers no RV: both are named, neither is said to be missing.
func TestRVPhraseBothTokensBad(t *testing.T) {
	for _, text := range []string{`TOO OLD RESOURCE VERSION: 0x10 (0x20)`, `Timeout: Too large resource version: 0x10, current: 0x20`} {
		d := FromText(text)
		all := everyText(d)
		if !strings.Contains(all, `"0x10" and "0x20" are no RVs`) || d.Confidence != ConfidenceLow || !strings.HasSuffix(d.Message, "0x20)") && !strings.HasSuffix(d.Message, "0x20") {
			t.Errorf("%q: %q, %s:\n%s", text, d.Message, d.Confidence, all)
		}
		if strings.Contains(all, "without the numbers") || strings.Contains(all, "are empty") || strings.Contains(all, "not in the text") {
			t.Errorf("%q: says its numbers are missing:\n%s", text, all)
		}
	}
}

// Storage's 410 words are quoted as the text holds them, in any case.
func TestStorageTooOldQuotedAsHeld(t *testing.T) {
	for text, want := range map[string]struct{ kind, conf, msg string }{
		`The resourceVersion for the provided watch is too old.`:                                   {KindEtcdCompactedWatch, ConfidenceHigh, `The resourceVersion for the provided watch is too old.`},
		`02:25:40.403  ERROR   410 Expired: The resourceVersion for the provided watch is too old`: {KindEtcdCompactedWatch, ConfidenceHigh, `The resourceVersion for the provided watch is too old`},
		`the resourceversion for the provided list is too old.`:                                    {KindEtcdCompactedExactList, ConfidenceMedium, `the resourceversion for the provided list is too old.`},
	} {
		d := FromText(text)
		if d.Kind != want.kind || d.Confidence != want.conf || d.Message != want.msg {
			t.Errorf("%q: %s %s %q, want %+v", text, d.Kind, d.Confidence, d.Message, want)
		}
	}
}

// The headline of a too-large text whose numbers are no RVs names them.
func TestTooLargeMalformedHeadline(t *testing.T) {
	for text, want := range map[string]string{
		`Timeout: Too large resource version: 0x10, current: 0x20`: "(its requested and current RVs are in a form the API server never prints: see the note)",
		`Timeout: Too large resource version: 0x10, current: `:     "(its requested RV is in a form the API server never prints: see the note)",
	} {
		if d := FromText(text); !strings.HasSuffix(d.Summary, want) {
			t.Errorf("%q: %q, want it to end %q", text, d.Summary, want)
		}
	}
}
