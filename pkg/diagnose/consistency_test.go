package diagnose

import (
	"strconv"
	"strings"
	"testing"

	"github.com/watchrv/kubectl-watchrv/internal/rv"
)

// impossibleNumbers is the rule of each kind on the numbers it prints,
// written here apart from contradiction(): every RV fits in 64 bits, a
// too-old answer names an RV below the oldest one kept, a too-new answer
// an RV above the current one.
func impossibleNumbers(d Diagnosis) bool {
	req, old, cur := d.RequestedResourceVersion, d.OldestResourceVersion, d.CurrentResourceVersion
	for _, n := range []string{req, old, cur} {
		if n != "" && !rv.Valid(n) {
			return true
		}
	}
	both := func(a, b string) bool { return rv.Valid(a) && rv.Valid(b) }
	switch d.Kind {
	case KindWatchCacheWindow, KindEtcdV2IndexCleared:
		return both(req, old) && !rv.Less(req, old)
	case KindResourceVersionTooLarge, KindConsistentReadCacheLagging:
		return cur != "0" && both(req, cur) && !rv.Less(cur, req)
	}
	return false
}

// notNarrated fails when a diagnosis whose numbers cannot come from one
// answer tells them as what happened.
func notNarrated(t *testing.T, input string, d Diagnosis) {
	t.Helper()
	texts := d.Why + " " + d.ClientGo + " " + d.Fix
	switch {
	case d.Inconsistent == "":
		t.Fatalf("%q: impossible numbers not called inconsistent: %+v", input, d)
	case d.Confidence != ConfidenceLow || d.Gap != "":
		t.Fatalf("%q: confidence %s, gap %q: want low and no gap", input, d.Confidence, d.Gap)
	case !strings.HasPrefix(d.What, "Not known.") || !strings.Contains(d.Summary, "inconsistent"):
		t.Fatalf("%q: told as what happened:\nsummary %s\nwhat %s", input, d.Summary, d.What)
	}
	for _, n := range []string{d.RequestedResourceVersion, d.OldestResourceVersion, d.CurrentResourceVersion} {
		if n != "" && strings.Contains(texts, "RV "+n) {
			t.Fatalf("%q: the texts narrate RV %s: %s", input, n, texts)
		}
	}
}

// F34 (issue 25): numbers no server prints together are never narrated
// as fact, in every form the classifier parses. Each real sample of
// messages_test.go that carries two numbers is made impossible by swapping
// them (too old: the requested RV at or above the oldest kept; too new: at
// or below the current one), and each sample that names a requested RV is
// given a request that named another (--rv, a URL).
func TestImpossibleNumbersAreNeverNarrated(t *testing.T) {
	tried := 0
	for _, s := range samples {
		d := FromText(s.text)
		if impossibleNumbers(d) {
			notNarrated(t, s.text, d)
		}
		a, b := d.RequestedResourceVersion, d.OldestResourceVersion
		if d.Class == ClassTooLarge {
			b = d.CurrentResourceVersion
		}
		if a != "" && b != "" && a != b && strings.Count(s.text, a) == strings.Count(s.text, b) {
			swapped := strings.NewReplacer(a, b, b, a).Replace(s.text)
			sd := FromText(swapped)
			if sd.Kind == d.Kind {
				if !impossibleNumbers(sd) {
					t.Fatalf("%s: swapping %s and %s did not make the numbers impossible: %+v", s.name, a, b, sd)
				}
				notNarrated(t, swapped, sd)
				tried++
			}
		}
		switch d.Kind {
		case KindWatchCacheWindow, KindWatchCacheSnapshot, KindResourceVersionTooLarge, KindEtcdV2IndexCleared:
			if n, ok := rv.Parse(a); ok && s.req != "" {
				other := strconv.FormatUint(n+1, 10)
				notNarrated(t, s.text+" (--rv "+other+")", FromTextContext(s.text, Context{RequestedResourceVersion: other}))
				tried++
			}
		case KindWatchEventLostAtCompaction:
			if d.OldestResourceVersion != "" {
				// The lost event's revision is not after the watch's start.
				notNarrated(t, s.text+" (--rv "+d.OldestResourceVersion+")", FromTextContext(s.text, Context{RequestedResourceVersion: d.OldestResourceVersion}))
				tried++
			}
		}
	}
	if tried < 20 {
		t.Fatalf("only %d impossible variants built from the samples", tried)
	}
	// Consistent numbers are told as they are.
	for _, text := range []string{"too old resource version: 214 (257)", "Timeout: Too large resource version: 9000, current: 8990"} {
		if d := FromText(text); d.Inconsistent != "" || strings.HasPrefix(d.What, "Not known") || d.Confidence != ConfidenceHigh {
			t.Fatalf("%q is what a server says: %+v", text, d)
		}
	}
}

// A too old text whose requested RV is 0, in every sample of the too old
// forms that names one: RV 0 asks for any state, never too old (fresh
// user try 42 F1: confidence high of "too old resource version: 0 (5)").
func TestATooOldRVZeroIsNeverNarrated(t *testing.T) {
	tried := 0
	for _, s := range samples {
		d := FromText(s.text)
		if (d.Kind != KindWatchCacheWindow && d.Kind != KindTooOldResourceVersion) || d.RequestedResourceVersion == "" || strings.Count(s.text, d.RequestedResourceVersion) != 1 {
			continue
		}
		zero := strings.Replace(s.text, d.RequestedResourceVersion, "0", 1)
		zd := FromText(zero)
		if zd.RequestedResourceVersion != "0" {
			continue
		}
		notNarrated(t, zero, zd)
		tried++
	}
	if tried == 0 {
		t.Fatal("no sample of the too old forms names a requested RV")
	}
}
