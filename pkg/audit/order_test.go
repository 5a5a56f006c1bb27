package audit

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// file is a Source that can be read again, as a file can.
func file(name string, data []byte) Source {
	return Source{Name: name, R: bytes.NewReader(data), Open: func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(data)), nil
	}}
}

func reversed(lines [][]byte) [][]byte {
	out := slices.Clone(lines)
	slices.Reverse(out)
	return out
}

func gz(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

// readAll reads srcs with a Restart that forgets what was given, as the
// command's analysis does.
func readAll(t *testing.T, o Options, srcs ...Source) ([]string, Stats) {
	t.Helper()
	var ids []string
	o.Restart = func() { ids = nil }
	st, err := Read(context.Background(), srcs, o, func(e *Event) error {
		ids = append(ids, e.StageTimestamp.Format(time.RFC3339Nano)+" "+e.AuditID+"/"+e.Stage)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return ids, st
}

func inOrder(ids []string) bool {
	return slices.IsSortedFunc(ids, func(a, b string) int { return strings.Compare(a[:strings.Index(a, " ")], b[:strings.Index(b, " ")]) })
}

// Input not in time order comes out in order, each event once, and the
// stats say what was done: a newest-first file (tac; plain and gzip) and
// two servers' logs one after the other are read again sorted (with
// chunks small enough that several are held), the same on stdin within
// the window; a file given twice, or with every line twice, gives each
// event once.
func TestReadOrdersAndDedupes(t *testing.T) {
	lines := recordedLines(t)
	want, _ := readAll(t, Options{}, file("a", join(lines)))
	if len(want) != len(lines) || !inOrder(want) {
		t.Fatalf("the recorded log: %d events in order %v", len(want), inOrder(want))
	}
	var odd, even [][]byte
	for i, l := range lines {
		if i%2 == 0 {
			even = append(even, l)
		} else {
			odd = append(odd, l)
		}
	}
	twoLogs := join(append(slices.Clone(odd), even...))
	var doubled [][]byte
	for _, l := range lines {
		doubled = append(doubled, l, l)
	}
	defer func(n, h int) { chunkEvents, maxChunksHeld = n, h }(chunkEvents, maxChunksHeld)
	chunkEvents, maxChunksHeld = 10, 4
	// A window of 5 events: these files are out of order beyond it.
	for _, c := range []struct {
		name          string
		srcs          []Source
		sorted, order string
		duplicates    int64
	}{
		{"newest first", []Source{file("tac.log", join(reversed(lines)))}, "tac.log", "newest first", 0},
		{"newest first, gzip", []Source{file("tac.log.gz", gz(join(reversed(lines))))}, "tac.log.gz", "newest first", 0},
		{"two logs one after the other", []Source{file("both.log", twoLogs)}, "both.log", "not in time order", 0},
		{"stdin, newest first", []Source{{Name: "stdin", R: bytes.NewReader(join(reversed(lines)))}}, "", "", 0},
		{"stdin, two logs one after the other", []Source{{Name: "stdin", R: bytes.NewReader(twoLogs)}}, "", "", 0},
		{"one file given twice", []Source{file("a", join(lines)), file("a", join(lines))}, "", "", int64(len(lines))},
		{"every line twice", []Source{file("twice.log", join(doubled))}, "", "", int64(len(lines))},
		{"every line twice, newest first", []Source{file("tac2.log", join(reversed(doubled)))}, "tac2.log", "newest first", int64(len(lines))},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := Options{Window: 5}
			if c.srcs[0].Open == nil {
				o.Window = 0 // the default holds the whole recorded log
			}
			got, st := readAll(t, o, c.srcs...)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("%d events (in order: %v), want the %d of the log in order", len(got), inOrder(got), len(want))
			}
			if c.srcs[0].Name == "stdin" && st.Reordered == 0 {
				t.Errorf("stdin put in order, but no event counted as reordered")
			}
			if st.Late != 0 || st.Duplicates != c.duplicates {
				t.Errorf("late %d, duplicates %d; want 0, %d", st.Late, st.Duplicates, c.duplicates)
			}
			var sorted []string
			for _, s := range st.Sorted {
				sorted = append(sorted, s.Source+": "+s.Order)
			}
			if wantSorted := strings.TrimSuffix(c.sorted+": "+c.order, ": "); strings.Join(sorted, ",") != wantSorted {
				t.Errorf("sorted %v, want %q", sorted, wantSorted)
			}
			if st.Lines != int64(len(lines))*int64(len(c.srcs))+c.duplicates*int64(2-len(c.srcs)) {
				t.Errorf("lines %d: each line once", st.Lines)
			}
		})
	}
	// Beyond the window, stdin cannot be sorted: its late events are
	// given where they come, and counted.
	got, st := readAll(t, Options{Window: 5}, Source{Name: "stdin", R: bytes.NewReader(join(reversed(lines)))})
	if len(got) != len(lines) || st.Late == 0 || len(st.Sorted) != 0 {
		t.Errorf("stdin beyond the window: %d events, %d late; want %d and some late", len(got), st.Late, len(lines))
	}
}

// A cut gzip file, or one with something appended, gives what was read
// before its end and says how it ends; the other sources are read whole.
func TestReadCutGzip(t *testing.T) {
	lines := recordedLines(t)
	whole := gz(join(lines))
	for name, c := range map[string]struct {
		data []byte
		end  string
	}{
		"cut":      {whole[:len(whole)*2/3], "cut short"},
		"appended": {append(slices.Clone(whole), "garbage after the stream"...), "not gzip data"},
		"damaged":  {append(append(slices.Clone(whole[:len(whole)-8]), 1, 2, 3, 4), whole[len(whole)-4:]...), "checksum"},
	} {
		t.Run(name, func(t *testing.T) {
			got, st := readAll(t, Options{}, file("a.log.gz", c.data), file("b.log", join(lines[:3])))
			if len(st.Cut) != 1 || st.Cut[0].Source != "a.log.gz" || !strings.Contains(st.Cut[0].End, c.end) {
				t.Fatalf("cut %+v, want a.log.gz ending %q", st.Cut, c.end)
			}
			if len(got) < 3 || st.Cut[0].Lines == 0 && name == "cut" {
				t.Errorf("%d events, cut after %d lines", len(got), st.Cut[0].Lines)
			}
		})
	}
}

// A line that starts with NUL bytes (a file system's padding after a
// crash) is read for the event after them; a line of NULs is not JSON, not
// "longer than the limit".
func TestReadNULLines(t *testing.T) {
	lines := recordedLines(t)
	in := [][]byte{append([]byte("\x00\x00"), lines[0]...), []byte("\x00\x00\x00"), lines[1]}
	_, evs, st := read(t, Options{}, Source{Name: "a", R: bytes.NewReader(join(in))})
	if len(evs) != 2 || st.Unreadable[ReasonNotJSON] != 1 || st.Unreadable[ReasonTooLong] != 0 {
		t.Errorf("%d events, unreadable %v; want 2 and one line not JSON", len(evs), st.Unreadable)
	}
}

// An interrupted read gives the events read before: from a pipe that
// stays open (as `tail -f |`), nothing would end it otherwise.
func TestReadInterrupted(t *testing.T) {
	lines := recordedLines(t)
	r, w := io.Pipe()
	defer w.Close()
	go w.Write(join(lines[:20]))
	ctx, cancel := context.WithCancel(context.Background())
	var n int
	done := make(chan struct{})
	var st Stats
	var err error
	go func() {
		defer close(done)
		st, err = Read(ctx, []Source{{Name: "stdin", R: r}}, Options{}, func(*Event) error { n++; return nil })
	}()
	time.Sleep(300 * time.Millisecond)
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Read did not end on cancel while its source stayed open")
	}
	if err == nil || !st.Interrupted || n != 20 || st.Lines != 20 {
		t.Errorf("err %v, interrupted %v, %d events of %d lines; want the 20 lines read", err, st.Interrupted, n, st.Lines)
	}
}

// Every field an event keeps is bounded, whatever the log holds (a client
// chooses its user agent and its path up to the API server's 1 MB of
// headers): a long one keeps its head and says its length, so that what a
// read holds is bounded by the number of events, not their size.
func TestFieldsBounded(t *testing.T) {
	l := recordedLines(t)[1]
	long := strings.Repeat("é", 50_000)
	var ips []string
	for i := 0; i < 1000; i++ {
		ips = append(ips, `"10.0.0.1"`)
	}
	line := bytes.Replace(l, []byte(`"userAgent":"watchrv-e2e-harness"`), []byte(`"userAgent":"`+long+`"`), 1)
	line = bytes.Replace(line, []byte(`"sourceIPs":["127.0.0.1"]`), []byte(`"sourceIPs":[`+strings.Join(ips, ",")+`]`), 1)
	line = bytes.Replace(line, []byte(`"requestURI":"/api/v1/namespaces"`), []byte(`"requestURI":"/api/v1/namespaces?resourceVersion=`+strings.Repeat("9", 5000)+`"`), 1)
	var e Event
	if _, r := Decode(line, &e); r != "" {
		t.Fatal(r)
	}
	if len(e.UserAgent) > MaxField+32 || !strings.HasSuffix(e.UserAgent, "…[100000 bytes]") || !utf8.ValidString(e.UserAgent) ||
		len(e.SourceIPs) != maxIPs || len(e.Query.ResourceVersion) > maxRVField+32 || len(e.RequestURI) > MaxField+32 {
		t.Errorf("user agent %d bytes (%q...), %d IPs, RV %d bytes, URI %d bytes", len(e.UserAgent), e.UserAgent[len(e.UserAgent)-20:], len(e.SourceIPs), len(e.Query.ResourceVersion), len(e.RequestURI))
	}
}

// A file out of order beside other files: the read starts again, every
// file from its start (the first read consumed them); beside stdin, which
// cannot be read twice, it is read once and its late events counted.
func TestReadAgainFromTheStart(t *testing.T) {
	lines := recordedLines(t)
	want, _ := readAll(t, Options{}, file("a", join(lines)))
	defer func(n int) { chunkEvents = n }(chunkEvents)
	chunkEvents = 10
	got, st := readAll(t, Options{Window: 5}, file("a", join(lines[:60])), file("tac", join(reversed(lines[60:]))))
	if strings.Join(got, "\n") != strings.Join(want, "\n") || len(st.Sorted) != 1 || st.Late != 0 {
		t.Errorf("a file and a file out of order: %d events (want %d), sorted %v, late %d", len(got), len(want), st.Sorted, st.Late)
	}
	got, st = readAll(t, Options{Window: 5}, Source{Name: "stdin", R: bytes.NewReader(join(lines[:60]))}, file("tac", join(reversed(lines[60:]))))
	if len(got) != len(want) || len(st.Sorted) != 0 || st.Late == 0 {
		t.Errorf("stdin and a file out of order: %d events (want %d), sorted %v, late %d", len(got), len(want), st.Sorted, st.Late)
	}
}

// An event whose time is not one is "without a valid time", not "not
// JSON": every field of the recorded line is still a JSON value.
func TestBadTimesClassified(t *testing.T) {
	l := recordedLines(t)[1]
	for _, v := range []string{`"not a time"`, `"10000-01-01T00:00:00Z"`, `5`, `"0000-01-01T00:00:00Z"`, `"1969-12-31T23:59:59Z"`, `""`} {
		line := regexp.MustCompile(`"stageTimestamp":"[^"]*"`).ReplaceAll(l, []byte(`"stageTimestamp":`+v))
		var e Event
		if _, r := Decode(line, &e); r != ReasonBadTime {
			t.Errorf("stageTimestamp %s: %q, want %q", v, r, ReasonBadTime)
		}
	}
}
