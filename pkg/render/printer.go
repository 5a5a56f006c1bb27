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

	"github.com/fatih/color"
	"sigs.k8s.io/yaml"
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
// command run.
type Printer struct {
	Out    io.Writer
	ErrOut io.Writer
	Format string
	Color  bool
	Style  Style
	// progress: ErrOut is a terminal (TERM not dumb), so Progress lines show.
	progress bool
	// costOf is the run's request account (WithCost; cost.go).
	costOf func() Cost
}

// NewPrinter decides color once: on only when not disabled by flag, not by
// NO_COLOR (https://no-color.org), TERM is not dumb, and Out is a terminal.
func NewPrinter(out, errOut io.Writer, format string, noColor bool) *Printer {
	useColor := !noColor && os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb" && isTerminal(out)
	progress := os.Getenv("TERM") != "dumb" && isTerminal(errOut)
	return &Printer{Out: out, ErrOut: errOut, Format: format, Color: useColor, Style: NewStyle(useColor), progress: progress}
}

// Machine reports whether the output is for programs (JSON or YAML).
func (p *Printer) Machine() bool { return p.Format == FormatJSON || p.Format == FormatYAML }

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
// PrintFlags: JSON and YAML get doc in its form, a person gets human. Every
// report's exported method is emit over the report and its human printer.
func (p *Printer) emit(f form, doc any, human func() error) error {
	if !p.Machine() {
		return human()
	}
	switch f {
	case oneDocument:
		return p.Object(doc)
	case streamDocument:
		return p.StreamItem(doc)
	}
	return nil
}

// Wide reports whether -o wide was asked for.
func (p *Printer) Wide() bool { return p.Format == FormatWide }

// Object writes v as one JSON document (indented) or one YAML document.
func (p *Printer) Object(v any) error {
	switch p.Format {
	case FormatYAML:
		b, err := yaml.Marshal(v)
		if err != nil {
			return err
		}
		_, err = p.Out.Write(b)
		return err
	default:
		enc := json.NewEncoder(p.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
}

// StreamItem writes v as one line of JSON (JSON lines) or as one document of
// a YAML stream, for outputs that go on for as long as a watch does.
func (p *Printer) StreamItem(v any) error {
	switch p.Format {
	case FormatYAML:
		b, err := yaml.Marshal(v)
		if err != nil {
			return err
		}
		if _, err := io.WriteString(p.Out, "---\n"); err != nil {
			return err
		}
		_, err = p.Out.Write(b)
		return err
	default:
		return json.NewEncoder(p.Out).Encode(v)
	}
}

// Warnf writes a warning line to ErrOut.
func (p *Printer) Warnf(format string, args ...any) {
	fmt.Fprintf(p.ErrOut, "%s %s\n", p.Style.Warn.Sprint("Warning:"), fmt.Sprintf(format, args...))
}

// Notef writes an informational line to ErrOut.
func (p *Printer) Notef(format string, args ...any) {
	fmt.Fprintf(p.ErrOut, "%s\n", fmt.Sprintf(format, args...))
}

// Style is the palette of one run; every color is a no-op when color is off.
type Style struct {
	Header, Good, Bad, Warn, Dim, Bold, Added, Modified, Deleted, Bookmark *color.Color
}

// NewStyle builds the palette, disabled unless enabled is true.
func NewStyle(enabled bool) Style {
	mk := func(a ...color.Attribute) *color.Color {
		c := color.New(a...)
		if enabled {
			c.EnableColor()
		} else {
			c.DisableColor()
		}
		return c
	}
	return Style{
		Header:   mk(color.Bold),
		Good:     mk(color.FgGreen),
		Bad:      mk(color.FgRed, color.Bold),
		Warn:     mk(color.FgYellow),
		Dim:      mk(color.Faint),
		Bold:     mk(color.Bold),
		Added:    mk(color.FgGreen),
		Modified: mk(color.FgBlue),
		Deleted:  mk(color.FgRed),
		Bookmark: mk(color.FgMagenta),
	}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	if err != nil {
		return false
	}
	return st.Mode()&os.ModeCharDevice != 0
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
		_, err := fmt.Fprintf(p.Out, "Server Version: %s\n", v.ServerVersion)
		return err
	}
	return nil
}
