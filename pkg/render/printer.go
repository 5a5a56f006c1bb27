// Package render is the only writer of the plugin's output: human tables (with
// color when a person is reading) and machine-readable JSON or YAML with a
// stable schema. Data goes to Out, warnings and notes to ErrOut.
package render

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/fatih/color"
	"golang.org/x/term"
	"k8s.io/cli-runtime/pkg/printers"
	"sigs.k8s.io/yaml"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
)

// Output formats accepted by -o.
const (
	FormatTable = ""
	FormatWide  = "wide"
	FormatJSON  = "json"
	FormatYAML  = "yaml"
)

// ValidateFormat returns an error naming the accepted values when format is
// not one of them.
func ValidateFormat(format string, allowed ...string) error {
	if len(allowed) == 0 {
		allowed = []string{FormatWide, FormatJSON, FormatYAML}
	}
	if format == FormatTable {
		return nil
	}
	for _, a := range allowed {
		if format == a {
			return nil
		}
	}
	return fmt.Errorf("unknown output format %q: use one of %s", format, strings.Join(allowed, ", "))
}

// Printer carries the streams, the format and the color decision of one
// command run. Out and ErrOut are TerminalWriters: everything a report
// writes, JSON and YAML included, passes the one sanitizer.
type Printer struct {
	Out    io.Writer
	ErrOut io.Writer
	Format string
	Color  bool
	Style  Style
	// progress: ErrOut is a terminal (TERM not dumb), so Progress lines show.
	progress bool
	// costOf is the run's request account (WithCost; cost.go); runClock
	// its wall time so far (WithRunClock).
	costOf   func() Cost
	runClock func() time.Duration
	// docPrinter prints every document for -o name and the templates
	// (UseDocumentPrinter); objects is the type -o name names.
	// lastDiagnosis is the summary of the diagnosis printed last (a
	// watch's ERROR event), so that the relist it causes does not repeat it.
	lastDiagnosis string

	docPrinter printers.ResourcePrinter
	objects    apiclient.Resource
	// NoHeaders leaves out the header line of every table (--no-headers,
	// as kubectl get's).
	NoHeaders bool
	// watchHeaderDue: WatchHeader was asked for and is written before the
	// watch's first line, never over nothing.
	watchHeaderDue bool
}

// table writes t to Out, with its header line unless NoHeaders: the one
// way a table is written.
func (p *Printer) table(t *Table) error { return p.tableTo(p.Out, t) }

// tableTo is table, to w (a report built before it is written).
func (p *Printer) tableTo(w io.Writer, t *Table) error {
	if p.NoHeaders {
		return t.write(w, nil, false)
	}
	return t.Write(w, p.Style.Header.Sprint)
}

// NewPrinter decides color once: on only when not disabled by flag, not by
// NO_COLOR (https://no-color.org), TERM is not dumb, and Out is a terminal.
// out and errOut are wrapped in TerminalWriters (once: a TerminalWriter is
// kept as it is).
func NewPrinter(out, errOut io.Writer, format string, noColor bool) *Printer {
	o, e := NewTerminalWriter(out), NewTerminalWriter(errOut)
	if format == FormatYAML {
		o.keepFormat = true
	}
	useColor := !noColor && o.color
	progress := os.Getenv("TERM") != "dumb" && isTerminal(e)
	return &Printer{Out: o, ErrOut: e, Format: format, Color: useColor, Style: NewStyle(useColor), progress: progress}
}

// forceColor turns color on whatever the streams are (tests of colored
// output write to buffers).
func (p *Printer) forceColor() {
	p.Color, p.Style = true, NewStyle(true)
	for _, w := range []io.Writer{p.Out, p.ErrOut} {
		if t, ok := w.(*TerminalWriter); ok {
			t.color = true
		}
	}
}

// Machine reports whether the output is for programs (JSON, YAML, a
// template or names), not a person's tables.
func (p *Printer) Machine() bool {
	switch p.Format {
	case FormatJSON, FormatYAML, FormatName, FormatTemplate:
		return true
	}
	return false
}

// form is what one printed piece is for programs (-o json|yaml).
type form int

const (
	// noDocument: nothing; a piece for a person only (a header, a row
	// printed as it comes), whose data the final document carries.
	noDocument form = iota
	// oneDocument: one JSON document (indented) or YAML document (Object).
	oneDocument
	// streamDocument: one JSON line or one document of a YAML stream
	// (StreamItem), for outputs that go on as long as a watch does.
	streamDocument
)

// emit is the one place -o chooses the printer, in the manner of kubectl's
// PrintFlags: JSON and YAML get doc in its form, -o name and the templates
// get doc through cli-runtime's printer, a person gets human. Every
// report's exported method is emit over the report and its human printer.
func (p *Printer) emit(f form, doc any, human func() error) error {
	switch {
	case !p.Machine():
		return human()
	case f == noDocument:
		return nil
	case p.docPrinter != nil:
		return p.printDocument(doc)
	case f == oneDocument:
		return p.Object(doc)
	}
	return p.StreamItem(doc)
}

// Wide reports whether -o wide was asked for.
func (p *Printer) Wide() bool { return p.Format == FormatWide }

// Object writes v as one JSON document (indented) or one YAML document.
func (p *Printer) Object(v any) error { return p.document(v, false) }

// StreamItem writes v as one line of JSON (JSON lines) or as one document of
// a YAML stream, for outputs that go on for as long as a watch does.
func (p *Printer) StreamItem(v any) error { return p.document(v, true) }

// document is the one place JSON and YAML are written. Both carry every
// value as it was, encoded: encoding/json escapes C0 controls, and
// machineSafe escapes what it leaves raw (DEL, the C1 controls), so no
// control byte reaches a terminal that shows -o json, and YAML (converted
// from that JSON) neither fails on them ("control characters are not
// allowed") nor folds U+0085 into a space.
func (p *Printer) document(v any, stream bool) error {
	var b []byte
	var err error
	if p.Format == FormatJSON && !stream {
		b, err = json.MarshalIndent(v, "", "  ")
	} else {
		b, err = json.Marshal(v)
	}
	if err != nil {
		return err
	}
	b = machineSafe(b)
	if p.Format == FormatYAML {
		if b, err = yaml.JSONToYAML(b); err != nil {
			return err
		}
		if stream {
			b = append([]byte("---\n"), b...)
		}
	} else {
		b = append(b, '\n')
	}
	_, err = p.Out.Write(b)
	return err
}

// machineSafe rewrites the bytes of encoded JSON that encoding/json leaves
// raw and a terminal may act on, DEL and U+0080-U+009F, as \u escapes: the
// same string for a JSON reader. They can only sit inside strings, where
// such an escape is valid.
func machineSafe(b []byte) []byte {
	var out []byte
	start := 0
	for i := 0; i < len(b); i++ {
		// In UTF-8, DEL is 0x7f and U+0080-U+009F is 0xc2 0x80-0x9f.
		c1 := b[i] == 0xc2 && i+1 < len(b) && b[i+1] >= 0x80 && b[i+1] <= 0x9f
		if b[i] != 0x7f && !c1 {
			continue
		}
		r := b[i]
		if c1 {
			r = b[i+1]
		}
		out = append(out, b[start:i]...)
		out = append(out, '\\', 'u', '0', '0', hexDigits[r>>4], hexDigits[r&0xf])
		if c1 {
			i++
		}
		start = i + 1
	}
	if out == nil {
		return b
	}
	return append(out, b[start:]...)
}

// Warnf writes a warning line to ErrOut.
func (p *Printer) Warnf(format string, args ...any) {
	// Bounded as an error line is: a server's message may be 256 KiB.
	fmt.Fprintf(p.ErrOut, "%s %s\n", p.Style.Warn.Sprint("Warning:"), text.Shorten(fmt.Sprintf(format, inlineArgs(args)...), text.MaxLine))
}

// inlineArgs shows every string argument of a one-line format with
// text.Inline: a value from outside cannot start a line of its own.
func inlineArgs(args []any) []any {
	out := args
	for i, a := range args {
		s, ok := a.(string)
		if !ok || text.Inline(s) == s && len(s) <= maxArg {
			continue
		}
		if &out[0] == &args[0] {
			out = append([]any(nil), args...)
		}
		// Each argument (where a server's words come in) is bounded, so
		// that the line's own words stay whole (adversary try 28 F10);
		// the line's bound is only the last resort.
		out[i] = text.Inline(text.Shorten(s, maxArg))
	}
	return out
}

// maxArg bounds one argument of a warning line.
const maxArg = text.MaxLine / 4

// Notef writes an informational line to ErrOut.
func (p *Printer) Notef(format string, args ...any) {
	fmt.Fprintf(p.ErrOut, "%s\n", text.Shorten(fmt.Sprintf(format, args...), text.MaxLine))
}

// Style is the palette of one run; every color is a no-op when color is off.
type Style struct {
	Header, Good, Bad, Warn, Dim, Bold, Added, Modified, Deleted, Bookmark *Paint
}

// Paint is one color of the palette. On, it wraps text in palette marks
// that a TerminalWriter turns into fatih/color's SGR sequences (and that no
// string from outside can forge); off, it returns the text as it is.
type Paint struct{ open, close string }

// Sprint is fmt.Sprint in this color.
func (c *Paint) Sprint(a ...any) string { return c.wrap(fmt.Sprint(a...)) }

// Sprintf is fmt.Sprintf in this color.
func (c *Paint) Sprintf(format string, a ...any) string { return c.wrap(fmt.Sprintf(format, a...)) }

func (c *Paint) wrap(s string) string {
	if c == nil || c.open == "" {
		return s
	}
	return c.open + s + c.close
}

// palette is every color of Style, made once: its SGR sequences are
// fatih/color's, registered as marks.
var palette = func() map[string]*Paint {
	mk := func(a ...color.Attribute) *Paint {
		c := color.New(a...)
		c.EnableColor()
		open, close, _ := strings.Cut(c.Sprint("\x00"), "\x00")
		return &Paint{open: newMark(open), close: newMark(close)}
	}
	return map[string]*Paint{
		"header": mk(color.Bold), "good": mk(color.FgGreen), "bad": mk(color.FgRed, color.Bold),
		"warn": mk(color.FgYellow), "dim": mk(color.Faint), "bold": mk(color.Bold),
		"added": mk(color.FgGreen), "modified": mk(color.FgBlue), "deleted": mk(color.FgRed),
		"bookmark": mk(color.FgMagenta),
	}
}()

// NewStyle builds the palette, disabled unless enabled is true.
func NewStyle(enabled bool) Style {
	if !enabled {
		off := &Paint{}
		return Style{off, off, off, off, off, off, off, off, off, off}
	}
	c := palette
	return Style{
		Header: c["header"], Good: c["good"], Bad: c["bad"], Warn: c["warn"], Dim: c["dim"],
		Bold: c["bold"], Added: c["added"], Modified: c["modified"], Deleted: c["deleted"], Bookmark: c["bookmark"],
	}
}

func isTerminal(w io.Writer) bool { return IsTerminal(w) }

// IsTerminal reports whether s (an io.Reader or io.Writer, or a wrapper
// with Unwrap() io.Writer) is a terminal: the one terminal check of the
// plugin (color, progress, top's live view, stdin left unpiped, exec
// credentials' prompts). It asks the terminal driver (isatty), never the
// file mode: /dev/null is a character device and no terminal (fresh user
// try 29 F4: "top > /dev/null" refreshed forever).
func IsTerminal(s any) bool {
	// A wrapper (the TerminalWriter every Printer writes through) is asked
	// about the stream under it.
	for {
		u, ok := s.(interface{ Unwrap() io.Writer })
		if !ok {
			break
		}
		s = u.Unwrap()
	}
	f, ok := s.(*os.File)
	if !ok || f == nil {
		return false
	}
	return term.IsTerminal(int(f.Fd()))
}

// VersionInfo is the schema of "version -o json|yaml".
type VersionInfo struct {
	// Cost is what the run took from the API server(s) (cost.go).
	Cost          *Cost  `json:"cost,omitempty"`
	ClientVersion string `json:"clientVersion"`
	ServerVersion string `json:"serverVersion,omitempty"`
	ServerError   string `json:"serverError,omitempty"`
}

// Version prints the plugin's and the server's versions.
func (p *Printer) Version(v VersionInfo) error {
	v.Cost = p.cost()
	return p.emit(oneDocument, v, func() error { return p.versionHuman(v) })
}

func (p *Printer) versionHuman(v VersionInfo) error {
	if _, err := fmt.Fprintf(p.Out, "Plugin Version: %s\n", v.ClientVersion); err != nil {
		return err
	}
	if v.ServerVersion != "" {
		_, err := fmt.Fprintf(p.Out, "Server Version: %s\n", text.Inline(v.ServerVersion))
		return err
	}
	return nil
}
