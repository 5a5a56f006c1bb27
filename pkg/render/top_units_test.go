package render

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/metrics"
	"github.com/watchrv/kubectl-watchrv/pkg/top"
)

// recordedTop is one interval of top over a recording of a real server
// (pkg/top/testdata).
func recordedTop(t *testing.T, name string) *top.Report {
	t.Helper()
	read := func(n int) *top.Values {
		f, err := os.Open("../top/testdata/" + name + "." + string(rune('0'+n)) + ".metrics.txt")
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		sel, err := metrics.ParseSelected(f, top.Families, true)
		if err != nil {
			t.Fatal(err)
		}
		return top.Extract(sel, nil)
	}
	t0 := time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC)
	s := &top.Server{Index: 1, Endpoint: "https://127.0.0.1:6443", ReadRequests: 2,
		First:  &top.Sample{At: t0, Values: read(1), Bytes: 190000, Filtered: true},
		Second: &top.Sample{At: t0.Add(5 * time.Second), Values: read(2), Bytes: 190500, Filtered: true}}
	s.Build(nil)
	return top.Assemble([]*top.Server{s}, 5*time.Second, "watchers", 1)
}

// Every byte count top prints (the BYTES/S cells, the callouts, the cost
// line) is in the plugin's one unit, apiclient.Bytes's (the request
// ledger's KiB), never in 1000s.
func TestTopPrintsBytesInOneUnit(t *testing.T) {
	decimal := regexp.MustCompile(`\d(B|KB|MB|GB)\b|\d (KB|MB|GB)\b`)
	for _, format := range []string{"", FormatWide} {
		var out bytes.Buffer
		p := &Printer{Out: &out, ErrOut: &out, Style: NewStyle(false), Format: format}
		if err := p.Top(TopReport{Report: recordedTop(t, "v1.37.2-etcd-cache-on")}); err != nil {
			t.Fatal(err)
		}
		if m := decimal.FindAllString(out.String(), -1); len(m) > 0 || !strings.Contains(out.String(), "KiB") {
			t.Errorf("-o %q: byte counts %q not in apiclient.Bytes's unit:\n%s", format, m, out.String())
		}
	}
}
