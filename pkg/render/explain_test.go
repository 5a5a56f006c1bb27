package render

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
)

func TestExplanationHuman(t *testing.T) {
	var out bytes.Buffer
	p := NewPrinter(&out, &out, "", true)
	d := diagnose.FromText(`Error from server (Expired): too old resource version: 214 (257)`)
	c := diagnose.CompareNow(d, d.RequestedResourceVersion, "1214", nil)
	c.Resource, c.Namespace = "configmaps", "demo"
	if err := p.Explanation(Explanation{Diagnosis: d, Check: &c}); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"Expired / WatchCacheWindow  (confidence: high)",
		"requested 214 · oldest servable 257 · requested is 43 behind the oldest",
		"Server said    Expired: too old resource version: 214 (257)",
		"Found in       kubectl",
		"client-go      The Reflector",
		"Fix            Relist",
		"Checked now    configmaps in namespace demo: RV 214 is 1000 behind",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	if strings.HasPrefix(got, "Expired") == false {
		t.Errorf("the verdict must come first:\n%s", got)
	}
	for _, line := range strings.Split(got, "\n") {
		if len([]rune(line)) > explainWidth {
			t.Errorf("line longer than %d: %q", explainWidth, line)
		}
	}
}

func TestExplanationJSONIsFlat(t *testing.T) {
	var out bytes.Buffer
	p := NewPrinter(&out, &out, FormatJSON, true)
	d := diagnose.FromText(`Timeout: Too large resource version: 50, current: 40`)
	if err := p.Explanation(Explanation{Diagnosis: d}); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(out.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]any{"class": "TooLarge", "kind": "ResourceVersionTooLarge", "requestedResourceVersion": "50", "currentResourceVersion": "40", "gap": "10", "confidence": "high"} {
		if m[k] != want {
			t.Errorf("%s = %v, want %v", k, m[k], want)
		}
	}
	if _, ok := m["check"]; ok {
		t.Error("check must be omitted when not asked")
	}
}

func TestExplanationUnrecognized(t *testing.T) {
	var out bytes.Buffer
	p := NewPrinter(&out, &out, "", true)
	if err := p.Explanation(Explanation{Diagnosis: diagnose.FromText("hello")}); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.HasPrefix(got, "Unrecognized") || !strings.Contains(got, "Fix") || strings.Contains(got, "client-go") {
		t.Errorf("got:\n%s", got)
	}
}

func TestLogExplanation(t *testing.T) {
	log := "too old resource version: 1 (5)\nok\ntoo old resource version: 2 (9)\nHTTP/1.1 429 Too Many Requests\n"
	s, err := diagnose.Summarize(strings.NewReader(log), 0)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	p := NewPrinter(&out, &out, "", true)
	if err := p.LogExplanation(LogExplanation{File: "app.log", Summary: s}); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"Scanned 4 lines (", "of app.log: 3 errors of 2 kinds.",
		"1. Expired / WatchCacheWindow  (confidence: high)  2 times, lines 1, 3",
		"First seen     line 1: too old resource version: 1 (5)",
		"requested is 4 behind the oldest (first seen;", "largest gap 7)",
		"2. Other / TooManyRequests", "1 time, line 4",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}

	out.Reset()
	p = NewPrinter(&out, &out, FormatYAML, true)
	if err := p.LogExplanation(LogExplanation{File: "app.log", Summary: s}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"file: app.log", "findings: 3", "groups:", "count: 2", "- 1\n", "kind: WatchCacheWindow"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("yaml missing %q:\n%s", want, out.String())
		}
	}
}

func TestLogExplanationNothing(t *testing.T) {
	var out bytes.Buffer
	p := NewPrinter(&out, &out, "", true)
	s, _ := diagnose.Summarize(strings.NewReader("a\nb\n"), 0)
	if err := p.LogExplanation(LogExplanation{File: "-", Summary: s}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "no resourceVersion-related error found") {
		t.Errorf("got %q", out.String())
	}
}

func TestLinesTextAndWrap(t *testing.T) {
	g := diagnose.Group{Count: 20, LastLine: 99}
	for i := 1; i <= 20; i++ {
		g.Lines = append(g.Lines, i)
	}
	if got := explainLines(g); !strings.HasSuffix(got, "12, … (+8 more, last at line 99)") {
		t.Errorf("explainLines = %q", got)
	}
	if got := explainWrap("aaa bbb ccc", "> ", "  ", 8); got != "> aaa\n  bbb\n  ccc\n" {
		t.Errorf("explainWrap = %q", got)
	}
	if explainCount(1234567) != "1,234,567" || explainCount(12) != "12" {
		t.Error("explainCount")
	}
}
