package render

import (
	"bytes"
	"github.com/watchrv/kubectl-watchrv/internal/notetest"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/watchrv/kubectl-watchrv/pkg/metrics"
	"github.com/watchrv/kubectl-watchrv/pkg/top"
)

// recordedTop is one interval of top over a recording of a real server
// (pkg/top/testdata).
func recordedTop(t *testing.T, name string) *top.Report {
	t.Helper()
	s := recordedTopOf(t, name+".1", name+".2")
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

// recordedTopOf is one interval of top over two recordings (pkg/top
// testdata), of the resources only (nil: those with load).
func recordedTopOf(t *testing.T, first, second string, only ...schema.GroupResource) *top.Server {
	t.Helper()
	read := func(name string) *top.Values {
		f, err := os.Open("../top/testdata/" + name + ".metrics.txt")
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
		First:  &top.Sample{At: t0, Values: read(first), Bytes: 190000, Filtered: true},
		Second: &top.Sample{At: t0.Add(5 * time.Second), Values: read(second), Bytes: 190500, Filtered: true}}
	s.Build(only)
	return s
}

// Fresh user try 20 #5, as a class: every reference of top's output to a
// note below names the note, and the note is printed; and the sentence
// of what was not measured says why itself. Over recorded intervals: a
// resource without a watch cache beside one with it, a server without
// any, a restart between the samples, a server not read beside one read.
func TestTopReferencesHaveTheirNotes(t *testing.T) {
	cm, ev := schema.GroupResource{Resource: "configmaps"}, schema.GroupResource{Resource: "events"}
	failed := &top.Server{Index: 2, Endpoint: "https://127.0.0.2:6443", Err: "connection refused", Reason: "Unreachable"}
	for name, servers := range map[string]func() []*top.Server{
		"events beside configmaps": func() []*top.Server {
			return []*top.Server{recordedTopOf(t, "v1.37.2-etcd-cache-on.1", "v1.37.2-etcd-cache-on.2", cm, ev)}
		},
		"events alone": func() []*top.Server {
			return []*top.Server{recordedTopOf(t, "v1.37.2-etcd-cache-on.1", "v1.37.2-etcd-cache-on.2", ev)}
		},
		"no watch cache": func() []*top.Server {
			return []*top.Server{recordedTopOf(t, "v1.37.2-etcd-cache-off.1", "v1.37.2-etcd-cache-off.2")}
		},
		"restarted": func() []*top.Server {
			return []*top.Server{recordedTopOf(t, "v1.30.14-etcd-cache-on.1", "v1.37.2-etcd-cache-on.2", cm)}
		},
		"one server not read": func() []*top.Server {
			return []*top.Server{recordedTopOf(t, "v1.37.2-etcd-cache-on.1", "v1.37.2-etcd-cache-on.2", cm, ev), failed}
		},
	} {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			p := &Printer{Out: &out, ErrOut: &out, Style: NewStyle(false)}
			r := top.Assemble(servers(), 5*time.Second, "watchers", 1)
			zero := 0.0
			r.Checks = top.CheckBounds(r, top.Bounds{Terminated: &zero})
			if err := p.Top(TopReport{Report: r}); err != nil {
				t.Fatal(err)
			}
			text := out.String()
			if bad := notetest.Unresolved(text); len(bad) > 0 {
				t.Errorf("references to notes not printed: %q\n%s", bad, text)
			}
			if _, rest, ok := strings.Cut(text, "not measured in this interval: "); ok {
				if !regexp.MustCompile(`^[a-zA-Z/0-9 ]+ \(`).MatchString(rest) {
					t.Errorf("what was not measured says no reason: %q", rest)
				}
			}
			if strings.Contains(text, " n/a ") && !regexp.MustCompile(`(?m)^(Not exposed|No watch cache) \(n/a\)`).MatchString(text) {
				t.Errorf("n/a cells, and no note says why:\n%s", text)
			}
		})
	}
}
