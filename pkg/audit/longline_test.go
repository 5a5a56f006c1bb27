package audit

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"
)

// rrList is the parts of a recorded RequestResponse list line: the line up
// to its response's items, one item, and the rest, so that a line of any
// size is that list with its item repeated.
type rrList struct{ head, item, tail []byte }

func recordedList(t testing.TB) rrList {
	t.Helper()
	for _, l := range recordedLines(t) {
		var e struct {
			Stage          string `json:"stage"`
			ResponseObject struct {
				Items []json.RawMessage `json:"items"`
			} `json:"responseObject"`
		}
		if json.Unmarshal(l, &e) != nil || e.Stage != StageResponseComplete || len(e.ResponseObject.Items) != 1 {
			continue
		}
		item := []byte(e.ResponseObject.Items[0])
		at := bytes.Index(l, item)
		if at < 0 || !bytes.Contains(l, []byte(`"kind":"ConfigMapList"`)) {
			continue
		}
		return rrList{head: l[:at], item: item, tail: l[at+len(item):]}
	}
	t.Fatal("no RequestResponse list of one item in the recorded log")
	return rrList{}
}

// reader gives the list with n items (and a newline) without holding it.
func (l rrList) reader(n int) io.Reader {
	parts := []io.Reader{bytes.NewReader(l.head)}
	comma := append([]byte{','}, l.item...)
	parts = append(parts, bytes.NewReader(l.item), &repeat{b: comma, n: n - 1}, bytes.NewReader(l.tail), bytes.NewReader([]byte("\n")))
	return io.MultiReader(parts...)
}

func (l rrList) items(size int) int { return size / (len(l.item) + 1) }

type repeat struct {
	b   []byte
	n   int
	off int
}

func (r *repeat) Read(p []byte) (int, error) {
	k := 0
	for k < len(p) && r.n > 0 {
		c := copy(p[k:], r.b[r.off:])
		k += c
		if r.off += c; r.off == len(r.b) {
			r.off = 0
			r.n--
		}
	}
	if k == 0 {
		return 0, io.EOF
	}
	return k, nil
}

// A RequestResponse list line longer than a batch, than the read buffer
// and than what is ever held whole (12 MiB here) is read in one pass: its
// fields and item count as encoding/json reads them, the lines after it
// too. Wrapped in a shipper's JSON it cannot be read in one pass and says
// so; longer than MaxLineBytes it is skipped as before.
func TestReadLongLines(t *testing.T) {
	l := recordedList(t)
	n := l.items(12 << 20)
	var long bytes.Buffer
	io.Copy(&long, l.reader(n))
	lines := recordedLines(t)
	in := join([][]byte{lines[0], bytes.TrimSpace(long.Bytes()), lines[1]})
	_, evs, st := read(t, Options{}, Source{Name: "a", R: bytes.NewReader(in)})
	if len(evs) != 3 || st.UnreadableTotal() != 0 {
		t.Fatalf("%d events, unreadable %v; want 3", len(evs), st.Unreadable)
	}
	var std Event
	if err := json.Unmarshal(long.Bytes(), &std); err != nil {
		t.Fatal(err)
	}
	std.finish()
	got := evs[2] // in time order: the list came last
	if got.Items != n || got.ResponseRV == "" || got.AuditID != std.AuditID || got.Items != std.Items || got.ResponseRV != std.ResponseRV || got.Query != std.Query {
		t.Errorf("the long line read as %d items, RV %q, ID %s; encoding/json reads %d, %q, %s", got.Items, got.ResponseRV, got.AuditID, std.Items, std.ResponseRV, std.AuditID)
	}
	wrapped := join([][]byte{append(append([]byte(`{"log":`), bytes.TrimSpace(long.Bytes())...), '}'), lines[1]})
	_, evs, st = read(t, Options{}, Source{Name: "a", R: bytes.NewReader(wrapped)})
	if len(evs) != 1 || st.Unreadable[ReasonLongNotPlain] != 1 {
		t.Errorf("wrapped: %d events, unreadable %v; want 1 and the long line not plain", len(evs), st.Unreadable)
	}
	_, evs, st = read(t, Options{MaxLineBytes: 10 << 20}, Source{Name: "a", R: bytes.NewReader(in)})
	if len(evs) != 2 || st.Unreadable[ReasonTooLong] != 1 {
		t.Errorf("over MaxLineBytes: %d events, unreadable %v; want 2 and one too long", len(evs), st.Unreadable)
	}
}
