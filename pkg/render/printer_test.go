package render

import (
	"bytes"
	"testing"
)

// emit is the one place the format picks the printer: a person gets the
// human lines in every table format, programs get the document in its form
// and never the human lines.
func TestEmitChoosesThePrinterOnce(t *testing.T) {
	doc := VersionInfo{ClientVersion: "v1"}
	cases := []struct {
		format string
		f      form
		want   string
	}{
		{FormatTable, oneDocument, "human\n"},
		{FormatWide, streamDocument, "human\n"},
		{FormatTable, noDocument, "human\n"},
		{FormatJSON, oneDocument, "{\n  \"clientVersion\": \"v1\"\n}\n"},
		{FormatJSON, streamDocument, "{\"clientVersion\":\"v1\"}\n"},
		{FormatJSON, noDocument, ""},
		{FormatYAML, oneDocument, "clientVersion: v1\n"},
		{FormatYAML, streamDocument, "---\nclientVersion: v1\n"},
		{FormatYAML, noDocument, ""},
	}
	for _, c := range cases {
		var out, errOut bytes.Buffer
		p := NewPrinter(&out, &errOut, c.format, true)
		err := p.emit(c.f, doc, func() error {
			_, err := out.WriteString("human\n")
			return err
		})
		if err != nil || out.String() != c.want || errOut.Len() != 0 {
			t.Errorf("-o %q form %d: %q, %q, %v; want %q", c.format, c.f, out.String(), errOut.String(), err, c.want)
		}
	}
}
