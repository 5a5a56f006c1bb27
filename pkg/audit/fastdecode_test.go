package audit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"reflect"
	"strings"
	"testing"
)

// agree is the decoders' contract on one input: when the fast path accepts
// a line, encoding/json accepts it too and reads the same fields, and the
// fast path reading the line from a reader a few bytes at a time (as it
// reads a line too long to hold) says the same as on the whole line.
func agree(t *testing.T, line []byte) {
	t.Helper()
	var fast Event
	accepted := fastDecode(line, &fast)
	if accepted {
		var std Event
		if err := json.Unmarshal(line, &std); err != nil {
			t.Fatalf("the fast path accepted a line encoding/json refuses (%v):\n%q", err, line)
		}
		if !reflect.DeepEqual(fast, std) {
			t.Fatalf("the fast path read other fields than encoding/json:\nfast %+v\nstd  %+v\nline %q", fast, std, line)
		}
	}
	for _, step := range []int{2, 9} {
		var streamed Event
		got := fastDecodeFrom(&chunkReader{b: line, step: step}, make([]byte, 0, 16), &streamed)
		if got != accepted || accepted && !reflect.DeepEqual(fast, streamed) {
			t.Fatalf("read %d bytes at a time, the fast path says %v (%+v), on the whole line %v (%+v):\n%q", step, got, streamed, accepted, fast, line)
		}
	}
}

// chunkReader returns at most step bytes per Read.
type chunkReader struct {
	b    []byte
	step int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), c.step, len(c.b))
	copy(p, c.b[:n])
	c.b = c.b[n:]
	return n, nil
}

// The fuzz engine mutates the recorded real lines (go test -fuzz
// FuzzFastDecode ./pkg/audit); go test runs the seeds.
func FuzzFastDecode(f *testing.F) {
	for _, l := range recordedLines(f) {
		f.Add(l)
	}
	l := recordedLines(f)[0]
	f.Add(bytes.Replace(l, []byte(`"kind":"Event"`), []byte(`"x":{]}`), 1))
	f.Add(bytes.Replace(l, []byte(`"verb":`), []byte(`"VERB":"get","verb":`), 1))
	f.Fuzz(func(t *testing.T, line []byte) { agree(t, line) })
}

// Every field of every recorded line, mutated in the ways that made the
// decoders disagree (a value of another type, brackets that do not match,
// a key repeated or in another case, an escape, a control byte, a number
// out of the grammar, a cut), and random byte edits: the decoders agree on
// each.
func TestFastDecodeAgreesOnMutatedLines(t *testing.T) {
	n := 0
	for _, l := range mutations(recordedLines(t), 7, 300) {
		agree(t, l)
		n++
	}
	// The instance of issue 25: brackets that do not match in a value
	// the fast path passes over.
	l := recordedLines(t)[0]
	bad := bytes.Replace(l, []byte(`"kind":"Event"`), []byte(`"x":{]}`), 1)
	var e Event
	if fastDecode(bad, &e) {
		t.Errorf("the fast path accepted %q", bad)
	}
	if _, r := Decode(bad, &e); r != ReasonNotJSON {
		t.Errorf("Decode says %q of a line that is not JSON", r)
	}
	t.Logf("%d mutated lines", n)
}

// valueEdits replace one value: every JSON type, and the invalid forms
// each part of the grammar refuses.
var valueEdits = []string{
	`null`, `true`, `false`, `0`, `-0`, `410`, `1.5`, `1e3`, `-1`, `99999999999999999999`,
	`""`, `"x"`, `"\u001b[2J"`, `"\u00e9"`, `"\ud83d\ude00"`, `"tab\there"`, `{}`, `[]`, `[{}]`, `[null,{}]`, `[1]`, `{"a":1}`,
	`{]}`, `[}`, `01`, `1.`, `.5`, `1e`, `+1`, `tru`, `nul`, `"\x"`, "\"raw\x01\"", `"\u12"`, "\"\xff\xfe\"",
	`"2026-12-01T10:44:35Z"`, `"0000-01-01T00:00:00Z"`, `"2026-12-01 10:44:35"`, `"2026-12-01T10:44:35.1234567891Z"`,
}

// mutations derives lines from the recorded ones: for each top-level and
// nested key, its value replaced by each of valueEdits, the key repeated and
// in upper case; then per random edits of bytes.
func mutations(lines [][]byte, seed int64, random int) [][]byte {
	r := rand.New(rand.NewSource(seed))
	var out [][]byte
	keys := append(append(append([]string{}, eventKeys...), objectRefKeys...), "username", "code", "items", "metadata", "resourceVersion", "kind", "annotations")
	for li, l := range lines {
		if li%13 != 0 {
			continue // a sample of the lines, every field of each
		}
		for _, k := range keys {
			q := []byte(`"` + k + `":`)
			at := bytes.Index(l, q)
			if at < 0 {
				continue
			}
			vstart := at + len(q)
			vend := valueEnd(l, vstart)
			for _, v := range valueEdits {
				out = append(out, splice(l, vstart, vend, v))
			}
			out = append(out, splice(l, at, at, string(l[at:vend])+","))                   // repeated
			out = append(out, splice(l, at+1, at+1+len(k), strings.ToUpper(k)))            // another case
			out = append(out, splice(l, at+1, at+2, fmt.Sprintf(`\u%04x`, l[at+1])))       // an escaped key
			out = append(out, splice(l, vend, vend, ` `), splice(l, vstart, vstart, "\n")) // white space
		}
		out = append(out, l[:len(l)/2], l[:len(l)-1], append(append([]byte{}, l...), '}'), append([]byte("\x00"), l...))
	}
	for i := 0; i < random; i++ {
		l := append([]byte{}, lines[r.Intn(len(lines))]...)
		for e := r.Intn(4) + 1; e > 0; e-- {
			p := r.Intn(len(l))
			switch r.Intn(4) {
			case 0:
				l[p] = byte(r.Intn(256))
			case 1:
				l = append(l[:p], l[p+1:]...)
			case 2:
				l = splice(l, p, p, string("{}[]\",:\\0ne-"[r.Intn(12)]))
			case 3:
				l[p] = "{}[]\",:\\"[r.Intn(8)]
			}
		}
		out = append(out, l)
	}
	return out
}

func splice(l []byte, from, to int, with string) []byte {
	out := append([]byte{}, l[:from]...)
	out = append(out, with...)
	return append(out, l[to:]...)
}

// valueEnd is where the JSON value starting at i ends (for the recorded
// lines, which are valid).
func valueEnd(l []byte, i int) int {
	d := json.NewDecoder(bytes.NewReader(l[i:]))
	var v json.RawMessage
	if d.Decode(&v) != nil {
		return i
	}
	return i + int(d.InputOffset())
}
