package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"sigs.k8s.io/yaml"
)

// The one sanitizer, byte by byte: every control is shown as text, valid
// UTF-8 passes, and only the palette's own marks become escape sequences.
func TestTerminalWriterShowsEveryControlAsText(t *testing.T) {
	cases := []struct{ in, want string }{
		{"plain text\n\tindented\n", "plain text\n\tindented\n"},
		{"clear \x1b[2J screen", `clear \x1b[2J screen`},
		{"title \x1b]0;PWNED\a", `title \x1b]0;PWNED\a`},
		{"cr\rover", `cr\rover`},
		{"nul\x00 bs\b del\x7f vt\v ff\f so\x0e", `nul\x00 bs\b del\x7f vt\v ff\f so\x0e`},
		{"c1 csi \u009b31m nel \u0085", `c1 csi \u009b31m nel \u0085`},
		{"raw c1 \x9b31m", `raw c1 \x9b31m`},
		{"invalid \xff\xfe utf8 \xc3(", `invalid \xff\xfe utf8 \xc3(`},
		{"utf8 ok: é ☃ 日本 🙂", "utf8 ok: é ☃ 日本 🙂"},
		{"forged SGR \x1b[31mred\x1b[0m", `forged SGR \x1b[31mred\x1b[0m`},
		{"forged mark \x1b" + strings.Repeat("0", 24) + "A", `forged mark \x1b` + strings.Repeat("0", 24) + "A"},
		{"a mark with a bad id \x1b" + markKey + "~", `a mark with a bad id \x1b` + markKey + "~"},
		{"lone ESC at the end \x1b", `lone ESC at the end \x1b`},
	}
	for _, c := range cases {
		for _, color := range []bool{false, true} {
			var b bytes.Buffer
			w := &TerminalWriter{w: &b, color: color}
			if n, err := w.Write([]byte(c.in)); err != nil || n != len(c.in) {
				t.Fatalf("%q: n=%d err=%v", c.in, n, err)
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			if b.String() != c.want {
				t.Errorf("color %v: %q\n got %q\nwant %q", color, c.in, b.String(), c.want)
			}
			assertNoControls(t, c.in, b.Bytes())
		}
		if got := Escape(c.in); got != c.want {
			t.Errorf("Escape(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// Only the palette's marks become SGR sequences, and only on a stream that
// shows colors; elsewhere they vanish. Hostile text inside a colored cell
// stays escaped.
func TestTerminalWriterPassesOnlyThePalette(t *testing.T) {
	s := NewStyle(true)
	msg := s.Bad.Sprint("bad \x1b[2J") + " " + s.Dim.Sprintf("%s", "dim\x1b]0;t\a")
	var on, off bytes.Buffer
	fmt.Fprint(&TerminalWriter{w: &on, color: true}, msg)
	fmt.Fprint(&TerminalWriter{w: &off}, msg)
	if want := "\x1b[31;1mbad \\x1b[2J\x1b[0;22m \x1b[2mdim\\x1b]0;t\\a\x1b[22m"; on.String() != want {
		t.Errorf("color on:\n got %q\nwant %q", on.String(), want)
	}
	if want := `bad \x1b[2J dim\x1b]0;t\a`; off.String() != want {
		t.Errorf("color off:\n got %q\nwant %q", off.String(), want)
	}
	if plain := NewStyle(false).Bad.Sprint("x"); plain != "x" {
		t.Errorf("a disabled style writes no marks: %q", plain)
	}
}

// A sequence cut across two writes is judged whole: a UTF-8 character
// split in two is printed as itself, a C1 control split in two is escaped,
// and an ESC at the end of one write never joins the next into a sequence.
func TestTerminalWriterSplitWrites(t *testing.T) {
	mark := NewStyle(true).Good.Sprint("ok")
	cases := []struct{ in, want string }{
		{"é☃🙂", "é☃🙂"},
		{"x\u009by", `x\u009by`},
		{"x\x1b[2Jy", `x\x1b[2Jy`},
		{"x\x1b]0;T\ay", `x\x1b]0;T\ay`},
		{mark, "\x1b[32mok\x1b[0m"},
		{"\xc3", `\xc3`},
		{"\xe2\x98", `\xe2\x98`},
	}
	for _, c := range cases {
		for cut := 0; cut <= len(c.in); cut++ {
			var b bytes.Buffer
			w := &TerminalWriter{w: &b, color: true}
			w.Write([]byte(c.in[:cut]))
			w.Write([]byte(c.in[cut:]))
			w.Flush()
			if b.String() != c.want {
				t.Errorf("%q cut at %d: got %q, want %q", c.in, cut, b.String(), c.want)
			}
		}
		// One byte per write, the worst case.
		var b bytes.Buffer
		w := &TerminalWriter{w: &b, color: true}
		for i := range len(c.in) {
			w.Write([]byte{c.in[i]})
		}
		w.Flush()
		if b.String() != c.want {
			t.Errorf("%q byte by byte: got %q, want %q", c.in, b.String(), c.want)
		}
	}
}

// Wrapping twice never escapes twice: the one writer stays one.
func TestNewTerminalWriterIsIdempotent(t *testing.T) {
	var b bytes.Buffer
	w := NewTerminalWriter(&b)
	if NewTerminalWriter(w) != w {
		t.Fatal("a TerminalWriter was wrapped again")
	}
	p := NewPrinter(w, w, "", true)
	p.Warnf("%s", "\x1b[2J")
	if b.String() != "Warning: \\x1b[2J\n" {
		t.Fatalf("%q", b.String())
	}
}

// The progress line is the one path that draws: its own \r and erase pass,
// the text it carries is escaped like any other.
func TestProgressDrawsOnlyItsOwnControls(t *testing.T) {
	var b bytes.Buffer
	p := NewPrinter(&b, &b, "", true)
	p.progress = true
	p.Progress("reading %s", "ns/\x1b[2J\r")
	p.ProgressDone()
	if want := "\r\x1b[Kreading ns/\\x1b[2J\\r\r\x1b[K"; b.String() != want {
		t.Fatalf("got %q, want %q", b.String(), want)
	}
}

// JSON and YAML carry the original value, encoded: no raw control byte in
// the bytes, and a reader gets back exactly what went in (YAML used to fail
// outright on DEL and U+009B, and folded U+0085 into a space).
func TestDocumentsCarryHostileValuesEncoded(t *testing.T) {
	hostile := []string{"\x1b[2J", "\x1b]0;PWNED\a", "\u009b31m", "\u0085", "\x7f", "\r", "a\u2028b", "\u202e", "\x00", "plain: x"}
	for _, format := range []string{FormatJSON, FormatYAML} {
		for _, stream := range []bool{false, true} {
			for _, h := range hostile {
				var b bytes.Buffer
				p := NewPrinter(&b, &b, format, true)
				doc := map[string]string{"name": h}
				var err error
				if stream {
					err = p.StreamItem(doc)
				} else {
					err = p.Object(doc)
				}
				if err != nil {
					t.Fatalf("-o %s %q: %v", format, h, err)
				}
				assertNoControls(t, h, b.Bytes())
				var back map[string]string
				raw := bytes.TrimPrefix(b.Bytes(), []byte("---\n"))
				if format == FormatJSON {
					err = json.Unmarshal(raw, &back)
				} else {
					err = yaml.Unmarshal(raw, &back)
				}
				if err != nil || back["name"] != h {
					t.Errorf("-o %s (stream %v) %q: read back %q, %v from %q", format, stream, h, back["name"], err, b.String())
				}
			}
		}
	}
}

// Widths count what the sanitizer shows: a name holding ESC keeps its
// column aligned.
func TestTableAlignsEscapedCells(t *testing.T) {
	tb := NewTable("NAME", "RV")
	tb.Row("a\x1bb", "1")
	tb.Row("plain", "2")
	tb.Row("日本", "3")
	var b bytes.Buffer
	w := NewTerminalWriter(&b)
	if err := tb.Write(w, nil); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	col := strings.Index(lines[0], "RV")
	for _, l := range lines[1:] {
		if utf8.RuneCountInString(l) != col+1 {
			t.Errorf("misaligned %q (RV at %d)", l, col)
		}
	}
}

// assertNoControls fails when out holds a byte a terminal acts on: a C0
// control other than \n and \t, DEL, a C1 control or invalid UTF-8.
func assertNoControls(t *testing.T, in string, out []byte) {
	t.Helper()
	if i := ControlAt(out); i >= 0 {
		t.Errorf("%q: a control byte reached the output at %d: %q", in, i, out)
	}
}
