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
	c := diagnose.CompareNow(d, d.RequestedResourceVersion, diagnose.Now{ResourceVersion: "1214"}, nil)
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

// TestExplanationReasonOnce: kubectl repeats the reason ("Error from
// server (Timeout): Timeout: Too large ..."); it is shown once.
func TestExplanationReasonOnce(t *testing.T) {
	for text, want := range map[string]string{
		`Error from server (Timeout): Timeout: Too large resource version: 5000, current: 400`:                                                                                    "Server said    Timeout: Too large resource version: 5000, current: 400\n",
		`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Timeout: Too large resource version: 9000, current: 8990","reason":"Timeout","code":504}`: "Server said    504 Timeout: Too large resource version: 9000, current: 8990\n",
		`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 214 (257)","reason":"Expired","code":410}`:                      "Server said    410 Expired: too old resource version: 214 (257)\n",
	} {
		var out bytes.Buffer
		p := NewPrinter(&out, &out, "", true)
		if err := p.Explanation(Explanation{Diagnosis: diagnose.FromText(text)}); err != nil {
			t.Fatal(err)
		}
		if got := out.String(); !strings.Contains(got, want) || strings.Contains(got, "Timeout: Timeout") {
			t.Errorf("%s:\nwant %q in:\n%s", text, want, got)
		}
	}
}

// TestExplanationNewKinds: every kind added for the errors confused with
// resourceVersion errors shows its class, numbers, notes and fix, in the
// human output and in JSON (the schema only gains "notes").
func TestExplanationNewKinds(t *testing.T) {
	cases := []struct {
		text, kind string
		human      []string
		json       map[string]any
	}{
		{`Error from server (Conflict): error when replacing "cm.yaml": Operation cannot be fulfilled on configmaps "cm-7": the object has been modified; please apply your changes to the latest version and try again`,
			diagnose.KindConflict, []string{"Other / Conflict", "409 Conflict: Operation cannot be fulfilled on configmaps", "retry.RetryOnConflict", "server-side apply"},
			map[string]any{"class": "Other", "code": float64(409), "reason": "Conflict"}},
		{`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"storage is (re)initializing","reason":"TooManyRequests","details":{"retryAfterSeconds":1},"code":429}`,
			diagnose.KindWatchCacheInitializing, []string{"Other / WatchCacheInitializing", "429 TooManyRequests: storage is (re)initializing", "Back off and retry"},
			map[string]any{"class": "Other", "code": float64(429)}},
		{`Error from server: error when creating "cm.yaml": resourceVersion should not be set on objects to be created`,
			diagnose.KindResourceVersionSetOnCreate, []string{"Other / ResourceVersionSetOnCreate", "Clear metadata.resourceVersion"},
			map[string]any{"class": "Other"}},
		{`The machinedeployments "pool1" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update`,
			diagnose.KindResourceVersionMissingOnUpdate, []string{"Other / ResourceVersionMissingOnUpdate", "422: metadata.resourceVersion: Invalid value: 0x0", "copy its metadata.resourceVersion"},
			map[string]any{"class": "Other", "code": float64(422)}},
		{`E1130 04:11:48.123456       1 watcher.go:425] watch chan error: etcd event received with PrevKv=nil (key="/registry/configmaps/demo/cm-7", modRevision=1043, type=PUT)`,
			diagnose.KindWatchEventLostAtCompaction, []string{"Other / WatchEventLostAtCompaction", "event lost at 1043 · a watch from 1043 or later gets past it", "the event is lost and the server ended the stream", "watch again from RV 1043 or later"},
			map[string]any{"class": "Other", "oldestResourceVersion": "1043"}},
		{`W0204 06:49:18.239674       7 reflector.go:245] pkg/scheduler/factory/factory.go:193: watch of *api.Service ended with: 401: The event in requested index is outdated and cleared (the requested history has been cleared [2578313/2577886]) [2579312]`,
			diagnose.KindEtcdV2IndexCleared, []string{"Expired / EtcdV2IndexCleared", "requested 2577886 · oldest servable 2578313 · requested is 427 behind the oldest", "etcd2 storage"},
			map[string]any{"class": "Expired", "requestedResourceVersion": "2577886", "oldestResourceVersion": "2578313", "gap": "427"}},
		{`{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version","reason":"Expired","code":410}}`,
			diagnose.KindTooOldResourceVersion, []string{"Expired / TooOldResourceVersion  (confidence: low)", "Note           the wording has none of the numbers"},
			map[string]any{"class": "Expired", "confidence": "low"}},
		{`too old resource version: 214 (25`,
			diagnose.KindWatchCacheWindow, []string{"requested 214\n", "Note           the oldest servable RV is missing", "is cut off in this text"},
			map[string]any{"requestedResourceVersion": "214"}},
		{`too old resource version: 12345678901234567890123 (257)`,
			diagnose.KindWatchCacheWindow, []string{"requested 12345678901234567890123 · oldest servable 257\n", "is not a number this server"},
			map[string]any{"requestedResourceVersion": "12345678901234567890123", "confidence": "low"}},
	}
	for _, c := range cases {
		d := diagnose.FromText(c.text)
		if d.Kind != c.kind {
			t.Fatalf("%s: kind %s, want %s", c.text, d.Kind, c.kind)
		}
		var out bytes.Buffer
		if err := NewPrinter(&out, &out, "", true).Explanation(Explanation{Diagnosis: d}); err != nil {
			t.Fatal(err)
		}
		got := out.String()
		for _, want := range c.human {
			if !strings.Contains(got, want) {
				t.Errorf("%s: missing %q in:\n%s", c.kind, want, got)
			}
		}
		out.Reset()
		if err := NewPrinter(&out, &out, FormatJSON, true).Explanation(Explanation{Diagnosis: d}); err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(out.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		if m["kind"] != c.kind || m["fix"] == "" || m["summary"] == "" {
			t.Errorf("%s: json %v", c.kind, m)
		}
		for k, want := range c.json {
			if m[k] != want {
				t.Errorf("%s: json %s = %v, want %v", c.kind, k, m[k], want)
			}
		}
		if _, ok := m["notes"]; ok != (len(d.Notes) > 0) {
			t.Errorf("%s: notes in json = %v, diagnosis has %d", c.kind, ok, len(d.Notes))
		}
	}
}

// Every outside string in an explanation reaches the terminal bounded and
// escaped, through the one bound (text.Echo) and the TerminalWriter: a
// server's 300,000-byte resource name (adversary try 51 F15: one 300 KB
// "Checked now" line) and a text's host holding U+0085 NEL, a C1 control
// (F11: printed as a plain space, misquoting the value).
func TestExplanationBoundsAndEscapesOutsideValues(t *testing.T) {
	var out bytes.Buffer
	p := NewPrinter(&out, &out, "", true)
	d := diagnose.FromText(`too old resource version: 5 (100)`)
	c := diagnose.CompareNow(d, "5", diagnose.Now{ResourceVersion: "680"}, nil)
	c.Resource, c.Namespace, c.RequestFrom = strings.Repeat("w", 300000)+".example.com", "default", diagnose.RequestFromType
	c.TextServer, c.CheckedServer = "a\u0085b.com:443", "127.0.0.1:24971"
	if err := p.Explanation(Explanation{Diagnosis: diagnose.Reconcile(d, c), Check: &c}); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if len(got) > 8<<10 {
		t.Errorf("the explanation is %d bytes", len(got))
	}
	for _, line := range strings.Split(got, "\n") {
		if len(line) > 2*explainWidth {
			t.Errorf("a line of %d bytes: %.200q", len(line), line)
		}
	}
	if !strings.Contains(got, `a\u0085b.com:443`) || strings.Contains(got, "a b.com") || strings.Contains(got, "\u0085") {
		t.Errorf("the NEL is not shown escaped:\n%s", got)
	}
	if !strings.Contains(got, "[300012 bytes]") {
		t.Errorf("the resource's length is not said:\n%.600s", got)
	}
}
