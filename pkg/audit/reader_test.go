package audit

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

const recorded = "testdata/e2e-audit.log"

func recordedLines(t testing.TB) [][]byte {
	t.Helper()
	b, err := os.ReadFile(recorded)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n"))
}

// read collects the events' auditID+stage, in the order Read delivers them.
func read(t *testing.T, o Options, srcs ...Source) ([]string, []Event, Stats) {
	t.Helper()
	var ids []string
	var evs []Event
	st, err := Read(context.Background(), srcs, o, func(e *Event) error {
		ids = append(ids, e.AuditID+"/"+e.Stage)
		evs = append(evs, *e)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return ids, evs, st
}

func join(lines [][]byte) []byte { return append(bytes.Join(lines, []byte("\n")), '\n') }

func TestReadRecorded(t *testing.T) {
	lines := recordedLines(t)
	ids, evs, st := read(t, Options{}, Source{Name: "a", R: bytes.NewReader(join(lines))})
	if st.Events != int64(len(lines)) || st.Lines != int64(len(lines)) || st.UnreadableTotal() != 0 || len(ids) != len(lines) {
		t.Fatalf("events %d lines %d unreadable %v, want %d events", st.Events, st.Lines, st.Unreadable, len(lines))
	}
	// The fields the analysis needs, as the server wrote them.
	var sawWatch, sawItems bool
	for _, e := range evs {
		if e.Verb == "watch" && e.Query.Watch && e.Query.TimeoutSeconds > 0 {
			sawWatch = true
		}
		if e.Verb == "list" && e.Items >= 0 {
			sawItems = true
		}
		if e.RequestReceivedTimestamp.IsZero() || e.StageTimestamp.IsZero() || e.User.Username == "" {
			t.Fatalf("an event without its times or user: %+v", e)
		}
	}
	if !sawWatch || !sawItems {
		t.Errorf("no watch query (%v) or list item count (%v) read from the recorded log", sawWatch, sawItems)
	}
}

func TestReadGzipAndSmallBatches(t *testing.T) {
	lines := recordedLines(t)
	want, _, _ := read(t, Options{}, Source{Name: "plain", R: bytes.NewReader(join(lines))})
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write(join(lines))
	w.Close()
	got, _, st := read(t, Options{Workers: 3}, Source{Name: "audit.log.gz", R: &gz})
	if strings.Join(got, ",") != strings.Join(want, ",") || st.UnreadableTotal() != 0 {
		t.Fatalf("gzip: %d events, unreadable %v; want the %d of the plain file in the same order", len(got), st.Unreadable, len(want))
	}
}

// The wrappers are built from the real lines, as shippers write them.
func TestReadWrapped(t *testing.T) {
	lines := recordedLines(t)
	want, _, _ := read(t, Options{}, Source{Name: "plain", R: bytes.NewReader(join(lines))})
	wrap := map[string]func([]byte) []byte{
		"object field (fluent-bit)": func(l []byte) []byte {
			return []byte(`{"date":1764585875.1,"log":` + string(l) + `,"stream":"stdout"}`)
		},
		"string field (CloudWatch message)": func(l []byte) []byte {
			s, _ := json.Marshal(string(l))
			return []byte(`{"id":"1","timestamp":1764585875000,"message":` + string(s) + `}`)
		},
		"string two levels deep": func(l []byte) []byte {
			s, _ := json.Marshal(string(l))
			return []byte(`{"time":"2026-12-01T10:44:35Z","properties":{"pod":"kube-apiserver-0","log":` + string(s) + `}}`)
		},
		"text prefix (CRI log line)": func(l []byte) []byte {
			return append([]byte("2026-12-01T10:44:35.782551Z stdout F "), l...)
		},
	}
	for name, f := range wrap {
		t.Run(name, func(t *testing.T) {
			var in [][]byte
			for _, l := range lines {
				in = append(in, f(l))
			}
			got, _, st := read(t, Options{}, Source{Name: "w", R: bytes.NewReader(join(in))})
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Fatalf("%d events read, want %d (unreadable %v)", len(got), len(want), st.Unreadable)
			}
			if st.Wrapped != int64(len(lines)) {
				t.Errorf("wrapped %d, want %d", st.Wrapped, len(lines))
			}
		})
	}
}

func TestReadBadLinesCounted(t *testing.T) {
	lines := recordedLines(t)
	var in [][]byte
	in = append(in, lines[0])
	in = append(in, []byte("I1201 10:44:35.782551 12345 httplog.go:134] not an event"))
	in = append(in, lines[1][:len(lines[1])/2]) // truncated, as a log cut mid-write
	in = append(in, []byte(`{"kind":"Status","code":410}`))
	in = append(in, []byte(""))
	in = append(in, lines[2:]...)
	in = append(in, lines[3][:40]) // the last line, cut
	ids, _, st := read(t, Options{}, Source{Name: "audit.log", R: bytes.NewReader(bytes.Join(in, []byte("\n")))})
	if len(ids) != len(lines)-1 {
		t.Errorf("%d events, want %d (every whole line)", len(ids), len(lines)-1)
	}
	want := map[string]int64{ReasonNotJSON: 1, ReasonTruncated: 2, ReasonNotEvent: 1}
	for k, v := range want {
		if st.Unreadable[k] != v {
			t.Errorf("unreadable %q = %d, want %d (all: %v)", k, st.Unreadable[k], v, st.Unreadable)
		}
	}
	if len(st.Examples) < 3 || st.Examples[0].Line != 2 || st.Examples[1].Line != 3 || st.Examples[2].Line != 4 {
		t.Errorf("bad line positions %+v, want lines 2, 3, 4 first", st.Examples)
	}
}

func TestReadTooLongLine(t *testing.T) {
	lines := recordedLines(t)
	long := 0
	for _, l := range lines {
		if len(l) > 1500 {
			long++
		}
	}
	if long == 0 {
		t.Fatal("no recorded line longer than 1500 bytes")
	}
	_, _, st := read(t, Options{MaxLineBytes: 1500}, Source{Name: "a", R: bytes.NewReader(join(lines))})
	if st.Unreadable[ReasonTooLong] != int64(long) || st.Events != int64(len(lines)-long) {
		t.Errorf("too long %d, events %d; want %d and %d", st.Unreadable[ReasonTooLong], st.Events, long, len(lines)-long)
	}
}

// Two files holding alternate lines of one log come out merged as the
// original, in stageTimestamp order.
func TestReadMergesInTimeOrder(t *testing.T) {
	lines := recordedLines(t)
	var odd, even [][]byte
	for i, l := range lines {
		if i%2 == 0 {
			even = append(even, l)
		} else {
			odd = append(odd, l)
		}
	}
	_, evs, st := read(t, Options{}, Source{Name: "1", R: bytes.NewReader(join(odd))}, Source{Name: "2", R: bytes.NewReader(join(even))})
	if st.Events != int64(len(lines)) {
		t.Fatalf("%d events, want %d", st.Events, len(lines))
	}
	for i := 1; i < len(evs); i++ {
		if evs[i].StageTimestamp.Before(evs[i-1].StageTimestamp) {
			t.Fatalf("event %d (%s) before event %d (%s)", i, evs[i].StageTimestamp, i-1, evs[i-1].StageTimestamp)
		}
	}
}

func TestParseQuery(t *testing.T) {
	// requestURIs of the recorded log.
	for uri, want := range map[string]Query{
		"/api/v1/namespaces/clients-b/configmaps?allowWatchBookmarks=true&resourceVersion=221&timeout=5m7s&timeoutSeconds=307&watch=true": {
			Path: "/api/v1/namespaces/clients-b/configmaps", ResourceVersion: "221", HasRV: true, Watch: true, AllowWatchBookmarks: true, TimeoutSeconds: 307},
		"/api/v1/namespaces/clients-b/configmaps?allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&timeout=5m29s&timeoutSeconds=329&watch=true": {
			Path: "/api/v1/namespaces/clients-b/configmaps", ResourceVersionMatch: "NotOlderThan", SendInitialEvents: true, SendInitialEventsSet: true, Watch: true, AllowWatchBookmarks: true, TimeoutSeconds: 329},
		"/api/v1/namespaces/clients-a/configmaps?limit=500":        {Path: "/api/v1/namespaces/clients-a/configmaps", Limit: 500},
		"/api/v1/namespaces/clients-a/configmaps?resourceVersion=": {Path: "/api/v1/namespaces/clients-a/configmaps"},
	} {
		got, ok := ParseQuery(uri)
		if !ok || got != want {
			t.Errorf("ParseQuery(%s) = %+v %v, want %+v", uri, got, ok, want)
		}
	}
	if _, ok := ParseQuery("%zz"); ok {
		t.Error("a URI that does not parse was accepted")
	}
}

// A line longer than the reader's 1 MiB buffer is gathered whole (here a
// real event wrapped beside a shipper's 2 MiB field), and one longer than
// MaxLineBytes is skipped without losing the lines after it.
func TestReadLinesLongerThanTheBuffer(t *testing.T) {
	lines := recordedLines(t)
	big := []byte(`{"pad":"` + strings.Repeat("x", 2<<20) + `","log":` + string(lines[0]) + `}`)
	in := append([][]byte{big}, lines[1:]...)
	_, evs, st := read(t, Options{MaxLineBytes: 4 << 20}, Source{Name: "a", R: bytes.NewReader(join(in))})
	if st.Events != int64(len(lines)) || evs[0].AuditID == "" || st.Wrapped != 1 {
		t.Fatalf("events %d (want %d), first %q, wrapped %d", st.Events, len(lines), evs[0].AuditID, st.Wrapped)
	}
	_, _, st = read(t, Options{MaxLineBytes: 1 << 20}, Source{Name: "a", R: bytes.NewReader(join(in))})
	if st.Events != int64(len(lines)-1) || st.Unreadable[ReasonTooLong] != 1 {
		t.Fatalf("events %d (want %d), too long %d (want 1)", st.Events, len(lines)-1, st.Unreadable[ReasonTooLong])
	}
}

// The fast path reads every recorded line exactly as encoding/json does.
func TestFastDecodeEqualsEncodingJSON(t *testing.T) {
	lines := recordedLines(t)
	// Real lines, and the same with a user agent that needs escapes and
	// non-ASCII (as a client may send), built by encoding/json itself.
	var ua []byte
	{
		var m map[string]any
		if err := json.Unmarshal(lines[0], &m); err != nil {
			t.Fatal(err)
		}
		m["userAgent"] = "tool/1.0 \"quoted\" \u00e9\u4e16 \\ tab\t"
		ua, _ = json.Marshal(m)
	}
	for i, l := range append(lines, ua) {
		var fast, std Event
		if !fastDecode(l, &fast) {
			t.Fatalf("line %d: the fast path gave up on a real line", i+1)
		}
		if err := json.Unmarshal(l, &std); err != nil {
			t.Fatal(err)
		}
		fast.finish()
		std.finish()
		fj, _ := json.Marshal(fast)
		sj, _ := json.Marshal(std)
		if string(fj) != string(sj) || fast.Items != std.Items || fast.Query != std.Query {
			t.Fatalf("line %d:\nfast %s %d\nstd  %s %d", i+1, fj, fast.Items, sj, std.Items)
		}
	}
	// Cut lines: the fast path gives up, so that encoding/json classifies.
	for _, n := range []int{1, 10, len(lines[5]) / 2, len(lines[5]) - 1} {
		var e Event
		if fastDecode(lines[5][:n], &e) {
			t.Errorf("the fast path accepted a line cut at %d bytes", n)
		}
	}
}
