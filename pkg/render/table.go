package render

import (
	"io"
	"strings"

	"github.com/watchrv/kubectl-watchrv/internal/text"
)

// Table writes aligned columns like kubectl get: upper-case headers, three
// spaces between columns. Colors are applied to whole cells after padding is
// computed on the plain text, so escape codes never break the alignment;
// widths are the text as the sanitizer shows it (displayWidth), so a name
// holding a control byte stays aligned too.
// Every aligned output of the plugin (tables, "Key:  value" blocks, the
// watch's event lines) pads through padCell.
type Table struct {
	headers []string
	rows    [][]cell
}

type cell struct {
	text  string
	paint func(a ...any) string
}

// NewTable starts a table with the given column headers.
func NewTable(headers ...string) *Table { return &Table{headers: headers} }

// cellLimit bounds one table cell and one "Key:  value" value: a server's
// message can be a quarter MiB (the error body cap), which no row should
// carry; -o json keeps the whole of it.
const cellLimit = 1024

// Row adds a row of plain cells.
func (t *Table) Row(cells ...string) {
	r := make([]cell, len(cells))
	for i, c := range cells {
		r[i] = cell{text: text.Inline(text.Shorten(c, cellLimit))}
	}
	t.rows = append(t.rows, r)
}

// PaintLast colors cell i of the last row with paint (for example Style.Bad.Sprint).
func (t *Table) PaintLast(i int, paint func(a ...any) string) {
	if len(t.rows) == 0 || i >= len(t.rows[len(t.rows)-1]) {
		return
	}
	t.rows[len(t.rows)-1][i].paint = paint
}

// Len is the number of rows.
func (t *Table) Len() int { return len(t.rows) }

// Write renders the table to w.
func (t *Table) Write(w io.Writer, header func(a ...any) string) error {
	return t.write(w, header, true)
}

// write writes the rows, after the header line when withHeader; the
// widths are the header's and the rows' either way.
func (t *Table) write(w io.Writer, header func(a ...any) string, withHeader bool) error {
	widths := make([]int, len(t.headers))
	for i, h := range t.headers {
		widths[i] = displayWidth(h)
	}
	for _, r := range t.rows {
		for i, c := range r {
			if w := displayWidth(c.text); i < len(widths) && w > widths[i] {
				widths[i] = w
			}
		}
	}
	var b strings.Builder
	for i, h := range t.headers {
		if !withHeader {
			break
		}
		s := pad(h, widths[i], i == len(t.headers)-1)
		if header != nil {
			s = header(s)
		}
		b.WriteString(s)
	}
	if withHeader {
		b.WriteString("\n")
	}
	for _, r := range t.rows {
		for i, c := range r {
			s := pad(c.text, widths[min(i, len(widths)-1)], i == len(r)-1)
			if c.paint != nil {
				// Paint only the text, not the padding, so trailing spaces stay plain.
				s = c.paint(c.text) + s[len(c.text):]
			}
			b.WriteString(s)
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// tableGap is the space between the columns of a Table.
const tableGap = 3

func pad(s string, width int, last bool) string {
	if last {
		return s
	}
	return padCell(s, width, tableGap)
}

// padCell pads s to width, then adds gap spaces: the one alignment rule.
func padCell(s string, width, gap int) string {
	s = text.Inline(s)
	return s + strings.Repeat(" ", max(width-displayWidth(s), 0)+gap)
}

// namespaceCell is how every human output names the namespace of what it
// read: the namespace, "(all)" for -A (a namespaced resource read in every
// namespace), "-" for a cluster-scoped resource (it has none).
func namespaceCell(ns string, namespaced bool) string {
	switch {
	case ns != "":
		return ns
	case namespaced:
		return "(all)"
	}
	return "-"
}

// KeyValues writes "Key:  value" lines with the values aligned, for the
// detail blocks that follow a summary.
func KeyValues(w io.Writer, pairs [][2]string) error {
	width := 0
	for _, kv := range pairs {
		width = max(width, displayWidth(kv[0])+1)
	}
	var b strings.Builder
	for _, kv := range pairs {
		b.WriteString(padCell(kv[0]+":", width, 2))
		b.WriteString(text.Inline(text.Shorten(kv[1], 2*cellLimit)))
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
