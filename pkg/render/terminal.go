package render

import (
	"crypto/rand"
	"encoding/hex"
	"io"
	"os"
	"sync"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/watchrv/kubectl-watchrv/internal/text"
)

// TerminalWriter is the one sanitizer: every byte the plugin writes for a
// person (Out and ErrOut of every command, the error line, cobra's help)
// goes through one. Whatever came from outside (an object name, a server's
// message, an audit-log field, a log line, a kubeconfig value) can hold
// bytes that drive a terminal: ESC sequences that clear the screen or set
// the window title, C1 controls (U+009B is CSI for many terminals), a \r
// that overwrites the line. The writer shows every such byte as text, as
// ls -b does, in Go's escapes (as %q, which the messages quote outside
// values with): C0 controls other than \n and \t as \a \b \f \r \v or
// \xNN, DEL and invalid UTF-8 as \xNN; C1 controls as \uNNNN.
//
// The only escape sequences that pass are the palette's own colors (Style):
// a color-on Style writes marks that carry a key made at random for this
// process and never printed, and the writer turns those marks (only those)
// into fatih/color's SGR sequences when its stream is a terminal, and into
// nothing otherwise. An ESC from outside is not a mark: it is shown as
// \x1b, and so is a forged SGR sequence.
//
// A Write may end inside a multi-byte sequence (a UTF-8 character, a
// mark); the writer holds those bytes until the next Write completes or
// refutes them, so a sequence cut across two writes is judged whole. Flush
// writes what is held (escaped) at the end of a run.
type TerminalWriter struct {
	mu    sync.Mutex
	w     io.Writer
	color bool // the stream shows colors: marks become SGR sequences
	// keepFormat: the stream is a YAML document (-o yaml), whose plain
	// scalars cannot carry an escape: format characters pass as they are
	// there (a reader gets the value back); everywhere else they are shown
	// escaped (formatEscaped).
	keepFormat bool
	pending    []byte // the start of a sequence a later Write completes
	buf        []byte
}

// NewTerminalWriter wraps w; a w that is already a TerminalWriter is
// returned as it is, so that wrapping twice never escapes twice.
func NewTerminalWriter(w io.Writer) *TerminalWriter {
	if t, ok := w.(*TerminalWriter); ok {
		return t
	}
	return &TerminalWriter{w: w, color: colorTerminal(w)}
}

// colorTerminal reports whether w shows colors: a terminal, TERM not dumb,
// NO_COLOR (https://no-color.org) unset.
func colorTerminal(w io.Writer) bool {
	return os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb" && isTerminal(w)
}

// Unwrap is the stream under the writer (to ask whether it is a terminal).
func (t *TerminalWriter) Unwrap() io.Writer { return t.w }

// Write writes p with every control byte shown as text. It reports
// len(p) on success: every byte was taken, escaped or held.
func (t *TerminalWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.pending) == 0 && plainASCII(p) {
		if _, err := t.w.Write(p); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	in := p
	if len(t.pending) > 0 {
		in = append(t.pending, p...)
		t.pending = nil
	}
	out, rest := defang(t.buf[:0], in, t.color, false, t.keepFormat)
	if len(rest) > 0 {
		t.pending = append([]byte(nil), rest...)
	}
	t.buf = out[:0]
	if _, err := t.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes the bytes held for a sequence that never completed, escaped.
func (t *TerminalWriter) Flush() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.flushLocked()
}

func (t *TerminalWriter) flushLocked() error {
	if len(t.pending) == 0 {
		return nil
	}
	out, _ := defang(nil, t.pending, t.color, true, t.keepFormat)
	t.pending = nil
	_, err := t.w.Write(out)
	return err
}

// progressLine is the one path that writes a carriage return and an erase
// sequence: the plugin's own progress line (prefix: "\r\x1b[K"), then
// line, sanitized like everything else.
func (t *TerminalWriter) progressLine(line string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	_ = t.flushLocked()
	out, _ := defang(append(t.buf[:0], "\r\x1b[K"...), []byte(line), t.color, true, false)
	t.buf = out[:0]
	_, _ = t.w.Write(out)
}

// Escape is s as a TerminalWriter shows it on a stream without color (the
// palette's marks dropped): for tests and for widths.
func Escape(s string) string {
	out, _ := defang(nil, []byte(s), false, true, false)
	return string(out)
}

// displayWidth is how many columns s takes once written: escapes counted
// as the text they become, the palette's marks as nothing. Every aligned
// output (tables, key-value blocks, wrapped text) pads by it.
func displayWidth(s string) int {
	if plainASCII(s) {
		return len(s)
	}
	return utf8.RuneCountInString(Escape(s))
}

// plainASCII: s is printable ASCII, \n and \t: nothing to escape.
func plainASCII[T string | []byte](s T) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 && c != '\n' && c != '\t') || c >= 0x7f {
			return false
		}
	}
	return true
}

const hexDigits = "0123456789abcdef"

// defang appends in to out with every control shown as text and every
// palette mark turned into its SGR sequence (color) or dropped. Unless
// final, an incomplete sequence at the end of in is not written but
// returned as rest, for the next Write to complete.
func defang(out, in []byte, color, final, keepFormat bool) (_, rest []byte) {
	start := 0 // in[start:i] is plain text not yet copied
	for i := 0; i < len(in); {
		c := in[i]
		if c >= 0x20 && c < 0x7f || c == '\n' || c == '\t' {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			if !final && !utf8.FullRune(in[i:]) {
				return append(out, in[start:i]...), in[i:]
			}
			r, n := utf8.DecodeRune(in[i:])
			if r == utf8.RuneError && n == 1 {
				out = append(out, in[start:i]...)
				out = appendByteEscape(out, c)
				i++
				start = i
				continue
			}
			if shownEscaped(r) || (!keepFormat && formatEscaped(r)) {
				out = append(out, in[start:i]...)
				out = appendRuneEscape(out, r)
				i += n
				start = i
				continue
			}
			i += n
			continue
		}
		out = append(out, in[start:i]...)
		if c == 0x1b {
			switch sgr, n := readMark(in[i:]); {
			case n < 0 && !final:
				return out, in[i:]
			case n > 0:
				if color || keptAlways[sgr] {
					out = append(out, sgr...)
				}
				i += n
				start = i
				continue
			}
		}
		out = appendByteEscape(out, c)
		i++
		start = i
	}
	return append(out, in[start:]...), nil
}

// appendRuneEscape writes r as \uXXXX, a rune past U+FFFF as its UTF-16
// surrogate pair (\uD8xx\uDCxx): as text on a terminal, and a valid JSON
// escape of the same rune inside an -o json string (the only place a
// non-ASCII rune can be in JSON).
func appendRuneEscape(out []byte, r rune) []byte {
	hex := func(out []byte, v rune) []byte {
		return append(out, '\\', 'u', hexDigits[v>>12&0xf], hexDigits[v>>8&0xf], hexDigits[v>>4&0xf], hexDigits[v&0xf])
	}
	if r > 0xffff {
		r1, r2 := utf16.EncodeRune(r)
		return hex(hex(out, r1), r2)
	}
	return hex(out, r)
}

// formatEscaped: the invisible characters that reorder, hide or smuggle
// text (Unicode's format characters, Cf: bidi overrides and isolates that
// turn "gpj.exe" into "exe.jpg", zero-width characters, the soft hyphen,
// the tag characters of "ASCII smuggling"), and the line and paragraph
// separators. The plugin's own words hold none of them.
func formatEscaped(r rune) bool {
	return r == 0x2028 || r == 0x2029 || unicode.Is(unicode.Cf, r)
}

// appendByteEscape shows c in the plugin's one form of a byte
// (text.ByteEscape: Go's escapes, as %q writes them).
func appendByteEscape(out []byte, c byte) []byte {
	return append(out, text.ByteEscape(c)...)
}

// shownEscaped: the C1 controls (U+0080-U+009F; many terminals take U+009B
// as CSI, U+009D as OSC). Printable characters, however they render, pass.
func shownEscaped(r rune) bool { return r >= 0x80 && r <= 0x9f }

// A palette mark is ESC, the process's key, and one byte naming the SGR
// sequence. The key is random and never written, so no string from outside
// can hold a mark.
var markKey = func() string {
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		panic("render: no randomness for the palette key: " + err.Error())
	}
	return hex.EncodeToString(b)
}()

const markLen = 1 + 24 + 1

// readMark reads a palette mark at the start of b (b[0] is ESC): its SGR
// sequence and length; 0 when b does not start with a mark; -1 when b is
// too short to tell (a mark may be cut across two writes).
func readMark(b []byte) (string, int) {
	n := min(len(b), markLen-1)
	if string(b[1:n]) != markKey[:n-1] {
		return "", 0
	}
	if len(b) < markLen {
		return "", -1
	}
	id := int(b[markLen-1]) - markBase
	if id < 0 || id >= len(marks) {
		return "", 0
	}
	return marks[id], markLen
}

// marks holds the SGR sequences of the palette, by mark id.
var marks []string

// markBase is the byte of mark id 0 (printable, so a mark is never a
// control itself).
const markBase = 'A'

// keptAlways are the marks written with color off too: the sequences that
// are not colors (top's clear screen, written only to a terminal).
var keptAlways = map[string]bool{}

// newControlMark registers seq as a mark that passes with color off too.
func newControlMark(seq string) string {
	keptAlways[seq] = true
	return newMark(seq)
}

// newMark registers sgr and returns the mark that stands for it.
func newMark(sgr string) string {
	id := len(marks)
	marks = append(marks, sgr)
	return "\x1b" + markKey + string(rune(markBase+id))
}

// ControlAt is the index of the first byte of b a terminal would act on (a
// C0 control other than \n and \t, DEL, a C1 control, invalid UTF-8),
// or -1: what no output of a TerminalWriter
// without color holds. Tests of every command assert it.
func ControlAt(b []byte) int {
	for i := 0; i < len(b); {
		c := b[i]
		if c >= 0x20 && c < 0x7f || c == '\n' || c == '\t' {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			return i
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 || shownEscaped(r) {
			return i
		}
		i += n
	}
	return -1
}
