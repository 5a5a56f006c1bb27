package diagnose

import (
	"strings"
	"testing"
)

// TestCheckedOtherwiseNoTextStatesTheClaim attacks the class of adversary
// try 28 F8: after --check measured against the text's claim, no field
// states it as fact, the headline included. Every Expired text of the
// real samples (messages_test.go), checked with an RV ahead of the current
// one (it never expired here), and every text that names who answered a
// watch, checked on a server where the other one serves: the headline
// says it is the text's claim, what happened, why and the fix hold only
// if the claims do, and one note says why.
func TestCheckedOtherwiseNoTextStatesTheClaim(t *testing.T) {
	type checked struct {
		name  string
		d     Diagnosis
		check Check
	}
	var cases []checked
	for _, s := range samples {
		d := FromTextContext(s.text, Context{RequestedResourceVersion: "600"})
		if d.Class != ClassExpired || d.Inconsistent != "" {
			continue
		}
		c := CompareNow(d, "600", Now{ResourceVersion: "543"}, nil)
		c.Resource = "configmaps"
		cases = append(cases, checked{s.name + ", RV ahead", d, c})
		if w := watchAnswerer(d.Kind); w != "" {
			c := CompareNow(d, "500", Now{ResourceVersion: "543", WatchCache: w == "storage", NoWatchCache: w == "cache"}, nil)
			c.Resource = "configmaps"
			cases = append(cases, checked{s.name + ", the other answerer serves", d, c})
		}
	}
	if len(cases) < 10 {
		t.Fatalf("only %d cases: the samples lost their Expired texts", len(cases))
	}
	for _, c := range cases {
		got := Reconcile(c.d, c.check)
		if got.Confidence != ConfidenceLow || strings.Count(strings.Join(got.Notes, "\n"), "not certain") != 1 {
			t.Errorf("%s: confidence %s, notes %q: want low, one note", c.name, got.Confidence, got.Notes)
		}
		if !strings.HasPrefix(got.Summary, "the text says: ") || !strings.Contains(got.Summary, "checked now, this server says otherwise") {
			t.Errorf("%s: the headline states the text's claim as fact: %q", c.name, got.Summary)
		}
		for name, p := range map[string]string{"what": got.What, "why": got.Why, "fix": got.Fix} {
			if p != "" && !strings.HasPrefix(p, "If ") {
				t.Errorf("%s: %s states the claim as fact: %q", c.name, name, p)
			}
		}
		if c.check.Ahead != "" && !strings.Contains(got.What, "RV 600 expired in this cluster's history, as the text says") {
			t.Errorf("%s: what happened is not conditional on RV 600's history: %q", c.name, got.What)
		}
	}
}

// TestAnInconsistentRefusalConfirmsNothing (adversary try 28 F7): the
// one-server check's own refusal, with numbers that cannot answer the
// request tried (the watch cache's wording, as a v1.37 server prints it,
// with the numbers of the adversary's fake), lowers the confidence with a
// note and is said so in the verdict, as the --endpoints row says it; it
// is no fact against the text (the headline stays), and no refusal as
// another kind. A consistent refusal changes nothing.
func TestAnInconsistentRefusalConfirmsNothing(t *testing.T) {
	for _, text := range []string{"too old resource version: 214 (300)", "The resourceVersion for the provided watch is too old."} {
		d := FromTextContext(text, Context{Operation: OpWatch, RequestedResourceVersion: "214"})
		for _, c := range []struct {
			answer       string
			inconsistent bool
		}{
			{"HTTP 410 Expired: too old resource version: 214 (50)", true},
			{"HTTP 410 Expired: too old resource version: 1 (50)", true},
			{"HTTP 410 Expired: too old resource version: 214 (300)", false},
		} {
			// What Repeat puts in Tried: probe.Try's reading of the answer.
			ans := FromTextContext(strings.TrimPrefix(c.answer, "HTTP 410 Expired: "), Context{Operation: OpWatch, RequestedResourceVersion: "214"})
			if (ans.Inconsistent != "") != c.inconsistent {
				t.Fatalf("%q: inconsistent %q", c.answer, ans.Inconsistent)
			}
			tr := &Tried{Request: "a watch from RV 214", Refused: true, Answer: c.answer, Inconsistent: ans.Inconsistent}
			chk := CompareNow(d, "214", Now{ResourceVersion: "543"}, tr)
			got := Reconcile(d, chk)
			if !c.inconsistent {
				if text == "too old resource version: 214 (300)" && (got.Confidence != d.Confidence || len(got.Notes) != len(d.Notes)) {
					t.Errorf("%q on %q: a consistent refusal changed it: %s %q", c.answer, text, got.Confidence, got.Notes)
				}
				continue
			}
			if got.Confidence != ConfidenceLow || !strings.Contains(strings.Join(got.Notes, "\n"), "that refusal confirms nothing") {
				t.Errorf("%q on %q: confidence %s, notes %q", c.answer, text, got.Confidence, got.Notes)
			}
			if got.Summary != d.Summary || strings.Contains(strings.Join(got.Notes, "\n"), "refused by this server as") {
				t.Errorf("%q on %q: an inconsistent refusal counted as a fact: %q %q", c.answer, text, got.Summary, got.Notes)
			}
			if !strings.Contains(chk.Verdict, "numbers are inconsistent") || !strings.Contains(chk.Verdict, "confirms nothing") {
				t.Errorf("%q: the verdict takes it as a plain refusal: %q", c.answer, chk.Verdict)
			}
		}
	}
}
