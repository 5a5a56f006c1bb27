package render

import (
	"bytes"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/listing"
	"github.com/watchrv/kubectl-watchrv/pkg/top"
)

// A value from outside (an object name, a metric label, an audit-log
// field, a server's message) cannot forge a line of the human output nor
// hide itself behind a bidi override: in every one-line place (table
// cells, key-value blocks, -o name, the event lines, top's callouts,
// warnings) its \n, \t and U+202E are shown escaped (text.Inline), across
// commands. It used to split top's rows, clients' pattern lines and -o
// name into forged lines.
func TestValuesFromOutsideStayOnTheirLine(t *testing.T) {
	const forged = "error: FORGED"
	hostile := "evil\n" + forged + "\t\u202egpj.exe\u00ad\U000E0041\u200b"
	cm := apiclient.Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Kind: "ConfigMap", Namespaced: true}
	walk := &listing.WalkResult{Attempts: []listing.Attempt{{Pages: []listing.PageInfo{{ResourceVersion: "7", Items: 1}}, ItemCount: 1}}}
	outputs := map[string]func(p *Printer) error{
		"table": func(p *Printer) error {
			tb := NewTable("NAME", "NOTE")
			tb.Row(hostile, "x")
			return tb.Write(p.Out, fmtSprint)
		},
		"key-values": func(p *Printer) error { return KeyValues(p.Out, [][2]string{{"Name", hostile}}) },
		"list -o name": func(p *Printer) error {
			r := NewListReport(ListQuery{Target: apiclient.Target{Resource: cm, Namespace: "demo"}}, walk)
			r.ObjectNames = []string{hostile}
			return p.List(r)
		},
		"watch event": func(p *Printer) error {
			return p.WatchEvent(WatchEventRecord{Record: RecordEvent, Type: "ADDED", Namespace: "demo", Name: hostile, ResourceVersion: "8"})
		},
		"top callout": func(p *Printer) error {
			var b strings.Builder
			p.topCallouts(&b, TopReport{Report: &top.Report{Callouts: []top.Callout{{Kind: "code-429", What: hostile, Meaning: hostile, Fix: hostile}}}})
			_, err := p.Out.Write([]byte(b.String()))
			return err
		},
		"warning": func(p *Printer) error { p.Warnf("label %s", hostile); return nil },
		"watch ERROR note": func(p *Printer) error {
			return p.WatchEvent(WatchEventRecord{Record: RecordEvent, Type: "ERROR", Status: &diagnose.SentStatus{Status: metav1.Status{Code: 410, Reason: metav1.StatusReason(hostile), Message: hostile}, CodeSent: true}})
		},
		"version": func(p *Printer) error { return p.Version(VersionInfo{ServerVersion: hostile}) },
	}
	for name, print := range outputs {
		var out bytes.Buffer
		format := ""
		if name == "list -o name" {
			format = FormatName
		}
		p := NewPrinter(&out, &out, "", true)
		if format == FormatName {
			np, err := genericclioptions.NewNamePrintFlags("").ToPrinter("name")
			if err != nil {
				t.Fatal(err)
			}
			p.UseDocumentPrinter(FormatName, np)
		}
		p.ObjectsOf(cm)
		if err := print(p); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		s := out.String()
		if !strings.Contains(s, "evil") {
			t.Fatalf("%s: the value is not in the output:\n%s", name, s)
		}
		for _, line := range strings.Split(s, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), forged) {
				t.Errorf("%s: a value from outside made a line of its own:\n%s", name, s)
			}
		}
		if strings.ContainsAny(s, "\t\u202e\u00ad\U000E0041\u200b") {
			t.Errorf("%s: a tab or a bidi override reached the terminal raw: %q", name, s)
		}
	}
}

func fmtSprint(a ...any) string {
	var b strings.Builder
	for _, x := range a {
		b.WriteString(x.(string))
	}
	return b.String()
}
