package render

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/follow"
	"github.com/watchrv/kubectl-watchrv/pkg/watchstream"
)

// The streams were captured from a real kube-apiserver v1.37.2 by
// test/e2e/watch (TestCaptureWatchStreams -update).
func recordedStream(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "watchstream", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// renderStream decodes a recorded stream and renders every event as the
// watch command does, returning the output.
func renderStream(t testing.TB, stream []byte, format, start string) string {
	t.Helper()
	var out bytes.Buffer
	p := NewPrinter(&out, io.Discard, format, true)
	tr := follow.NewTracker()
	evs, err := watchstream.ReadAll(bytes.NewReader(stream))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.WatchHeader(); err != nil {
		t.Fatal(err)
	}
	for _, ev := range evs {
		var obs follow.Observation
		if ev.Type != watchstream.EventError && ev.Type != watchstream.EventBookmark {
			obs = tr.Observe(ev.Type, ev.Object)
		}
		// The session marks the end bookmark of any state (a streaming
		// list's, as streaming.jsonl's; a watch's from RV unset or 0).
		if ev.IsInitialEventsEnd() {
			obs.InitialEventsEnd, obs.InitialObjects = true, tr.Len()
		}
		r := NewWatchEventRecord(ev, obs, start)
		if ev.Status != nil {
			d := diagnose.FromStatus(ev.Status.Status, diagnose.Context{Operation: diagnose.OpWatch, RequestedResourceVersion: "213"})
			r.Diagnosis = &d
		}
		if err := p.WatchEvent(r); err != nil {
			t.Fatal(err)
		}
	}
	return out.String()
}

func TestWatchJSONLinesOfARecordedStream(t *testing.T) {
	out := renderStream(t, recordedStream(t, "seed.jsonl"), FormatJSON, "213")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 8 {
		t.Fatalf("want one line per event (8), got %d:\n%s", len(lines), out)
	}
	for i, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %d is not JSON: %v", i, err)
		}
		for _, k := range []string{"record", "time", "type", "namespace", "name", "uid", "resourceVersion", "sinceStart"} {
			if _, ok := m[k]; !ok {
				t.Fatalf("line %d lacks %q: %s", i, k, l)
			}
		}
		if len(m["uid"].(string)) != 36 {
			t.Fatalf("JSON keeps the whole UID: %s", l)
		}
	}
	var last WatchEventRecord
	if err := json.Unmarshal([]byte(lines[7]), &last); err != nil {
		t.Fatal(err)
	}
	if last.Type != "ADDED" || last.Name != "c" || last.PreviousUID == "" || *last.SinceStart <= 0 {
		t.Fatalf("the recreated c: %+v", last)
	}
}

func TestWatchHumanLinesOfARecordedStream(t *testing.T) {
	stream := recordedStream(t, "seed.jsonl")
	var colored bytes.Buffer
	p := NewPrinter(&colored, io.Discard, FormatTable, true)
	p.forceColor()
	ev := watchstream.FromReader(bytes.NewReader(stream))
	first, err := ev.Next()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.WatchEvent(NewWatchEventRecord(first, follow.Observation{}, "213")); err != nil {
		t.Fatal(err)
	}
	if out := colored.String(); !strings.Contains(out, "\x1b[") || !strings.Contains(out, "capture/a") {
		t.Fatalf("with color on, types are colored:\n%q", out)
	}
	plain := renderStreamNoColor(t, stream)
	lines := strings.Split(strings.TrimSpace(plain), "\n")
	if len(lines) != 9 || !strings.HasPrefix(lines[0], "TIME") {
		t.Fatalf("want a header and 8 lines:\n%s", plain)
	}
	// Columns line up: NAMESPACE/NAME starts at the same offset everywhere.
	col := strings.Index(lines[0], "NAMESPACE/NAME")
	for _, l := range lines[1:] {
		if !strings.HasPrefix(l[col:], "capture/") {
			t.Fatalf("misaligned line %q (name column at %d)", l, col)
		}
	}
	if !strings.Contains(lines[8], "recreated: same name, new UID") {
		t.Fatalf("the recreation is pointed out: %q", lines[8])
	}
}

func renderStreamNoColor(t *testing.T, stream []byte) string {
	var out bytes.Buffer
	p := NewPrinter(&out, io.Discard, FormatTable, true)
	p.Style = NewStyle(false)
	evs, err := watchstream.ReadAll(bytes.NewReader(stream))
	if err != nil {
		t.Fatal(err)
	}
	tr := follow.NewTracker()
	_ = p.WatchHeader()
	for _, ev := range evs {
		if err := p.WatchEvent(NewWatchEventRecord(ev, tr.Observe(ev.Type, ev.Object), "213")); err != nil {
			t.Fatal(err)
		}
	}
	return out.String()
}

func TestWatchErrorEventsAreClassifiedWithTheFix(t *testing.T) {
	for name, class := range map[string]string{"expired.jsonl": "Expired", "toolarge.jsonl": "TooLarge"} {
		js := renderStream(t, recordedStream(t, name), FormatJSON, "")
		var r struct {
			Type   string `json:"type"`
			Status struct {
				Code int `json:"code"`
			} `json:"status"`
			Diagnosis struct {
				Class string `json:"class"`
				Fix   string `json:"fix"`
			} `json:"diagnosis"`
		}
		if err := json.Unmarshal([]byte(js), &r); err != nil {
			t.Fatal(err)
		}
		if r.Type != "ERROR" || r.Diagnosis.Class != class || r.Diagnosis.Fix == "" || r.Status.Code == 0 {
			t.Fatalf("%s: %+v", name, r)
		}
		human := renderStream(t, recordedStream(t, name), FormatTable, "")
		if !strings.Contains(human, class) || !strings.Contains(human, "fix:") {
			t.Fatalf("%s: the human form names the class and the fix:\n%s", name, human)
		}
	}
}

func TestWatchYAMLIsAStream(t *testing.T) {
	out := renderStream(t, recordedStream(t, "streaming.jsonl"), FormatYAML, "")
	if strings.Count(out, "---\n") != 3 || !strings.Contains(out, "initialEventsEnd: true") {
		t.Fatalf("want 3 YAML documents, the last one the end bookmark:\n%s", out)
	}
}
