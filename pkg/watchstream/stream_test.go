package watchstream

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/watchrv/kubectl-watchrv/internal/rv"
)

// The streams under testdata were captured from a real kube-apiserver
// v1.37.2 by test/e2e/watch (TestCaptureWatchStreams -update).

func readStream(t testing.TB, name string) []Event {
	t.Helper()
	evs, err := ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

func TestDecodeRecordedSeedStream(t *testing.T) {
	evs := readStream(t, "seed.jsonl")
	want := []struct{ typ, name string }{
		{EventModified, "a"}, {EventDeleted, "b"}, {EventAdded, "c"}, {EventModified, "c"},
		{EventModified, "a"}, {EventModified, "a"}, {EventDeleted, "c"}, {EventAdded, "c"},
	}
	if len(evs) != len(want) {
		t.Fatalf("want %d events, got %d", len(want), len(evs))
	}
	var prev uint64
	for i, w := range want {
		e := evs[i]
		if e.Type != w.typ || e.Object.Name != w.name || e.Object.Namespace != "capture" || e.Object.UID == "" {
			t.Fatalf("event %d: want %s %s, got %s %+v", i, w.typ, w.name, e.Type, e.Object)
		}
		rv, ok := rv.Parse(e.Object.ResourceVersion)
		if !ok || rv <= prev {
			t.Fatalf("event %d: RVs of a watch from an exact RV increase: %d after %d", i, rv, prev)
		}
		prev = rv
		if e.Status != nil || e.IsInitialEventsEnd() {
			t.Fatalf("event %d is not an ERROR nor the end bookmark: %+v", i, e)
		}
	}
	// c was deleted and recreated: two UIDs for one name.
	if evs[6].Object.UID == evs[7].Object.UID {
		t.Fatalf("the recreated c must have a new UID")
	}
}

func TestDecodeRecordedStreamingList(t *testing.T) {
	evs := readStream(t, "streaming.jsonl")
	if len(evs) != 3 || !evs[2].IsInitialEventsEnd() || evs[0].IsInitialEventsEnd() {
		t.Fatalf("want ADDED, ADDED, then the initial-events-end bookmark, got %+v", evs)
	}
	if evs[2].Object.Annotations[InitialEventsEndAnnotation] != "true" || evs[2].Object.ResourceVersion == "" {
		t.Fatalf("the bookmark carries the annotation and an RV: %+v", evs[2].Object)
	}
}

func TestDecodeRecordedErrorEvents(t *testing.T) {
	exp := readStream(t, "expired.jsonl")
	if len(exp) != 1 || exp[0].Status == nil || exp[0].Status.Code != 410 || exp[0].Status.Reason != "Expired" {
		t.Fatalf("want one 410 Expired Status, got %+v", exp)
	}
	large := readStream(t, "toolarge.jsonl")
	if len(large) != 1 || large[0].Status == nil || large[0].Status.Code != 504 ||
		large[0].Status.Details == nil || len(large[0].Status.Details.Causes) != 1 {
		t.Fatalf("want one 504 with a ResourceVersionTooLarge cause, got %+v", large)
	}
}

func TestDecodeEventRejectsUnknownTypesAndBadObjects(t *testing.T) {
	for _, frame := range []string{
		`{"type":"SYNC","object":{}}`,              // an unknown event type
		`{"type":"ADDED","object":[1]}`,            // an object that is not an object
		`{"type":"ERROR","object":"x"}`,            // an ERROR whose object is not a Status
		`{"type":"ERROR","object":{"kind":"Pod"}}`, // nor this
	} {
		if _, err := FromReader(strings.NewReader(frame)).Next(); err == nil || errors.Is(err, io.EOF) {
			t.Errorf("%s: want a decode error, got %v", frame, err)
		}
	}
}

// A stream cut inside an event is broken, not ended: the recorded seed
// stream cut in the middle of its third event gives two events, then
// io.ErrUnexpectedEOF, never io.EOF (which would read as a clean end).
func TestStreamCutMidEventIsNotAnEnd(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "seed.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	cut := lines[0] + lines[1] + lines[2][:len(lines[2])/2]
	s := FromReader(strings.NewReader(cut))
	for i := 0; i < 2; i++ {
		if _, err := s.Next(); err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
	}
	if _, err := s.Next(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("want io.ErrUnexpectedEOF for a stream cut mid-event, got %v", err)
	}
	whole := FromReader(strings.NewReader(lines[0]))
	_, _ = whole.Next()
	if _, err := whole.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("want io.EOF after the last whole event, got %v", err)
	}
}

// The one event decoder keeps an ERROR event's code as sent: absent and
// null are no code (CodeSent false), never a code 0; a 0 sent is a 0.
func TestErrorEventCodeIsKeptAsSentOrMissing(t *testing.T) {
	const head = `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (50)","reason":"Expired"`
	for _, c := range []struct {
		name, code string
		sent       bool
		want       int32
	}{{"absent", "", false, 0}, {"null", `,"code":null`, false, 0}, {"zero", `,"code":0`, true, 0}, {"410", `,"code":410`, true, 410}, {"999", `,"code":999`, true, 999}} {
		e, err := FromReader(strings.NewReader(head + c.code + "}}\n")).Next()
		if err != nil || e.Status == nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if e.Status.CodeSent != c.sent || e.Status.Code != c.want || e.Status.Reason != "Expired" {
			t.Errorf("%s: code %d sent %v, want %d sent %v", c.name, e.Status.Code, e.Status.CodeSent, c.want, c.sent)
		}
	}
}
