package render

import (
	"bytes"
	"errors"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/printers"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/watchstream"
)

func templatePrinter(t *testing.T, format string) printers.ResourcePrinter {
	t.Helper()
	p, err := genericclioptions.NewKubeTemplatePrintFlags().ToPrinter(format)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// -o jsonpath and go-template see the document -o json prints; a stream
// applies them to each line's document; what they print passes the one
// sanitizer.
func TestTemplatesSeeTheJSONDocument(t *testing.T) {
	cases := []struct {
		format string
		print  func(p *Printer) error
		want   string
	}{
		{"jsonpath={.clientVersion}", func(p *Printer) error { return p.Version(VersionInfo{ClientVersion: "v1"}) }, "v1"},
		{"go-template={{.clientVersion}}/{{.serverVersion}}", func(p *Printer) error {
			return p.Version(VersionInfo{ClientVersion: "v1", ServerVersion: "v1.37.2"})
		}, "v1/v1.37.2"},
		{`jsonpath={.type} {.name}{"\n"}`, func(p *Printer) error {
			for _, n := range []string{"a", "b"} {
				if err := p.WatchEvent(WatchEventRecord{Record: RecordEvent, Type: "ADDED", Name: n}); err != nil {
					return err
				}
			}
			return nil
		}, "ADDED a\nADDED b\n"},
		{"jsonpath={.itemCount}", func(p *Printer) error { return p.List(ListReport{ItemCount: 12345678}) }, "12345678"},
		{"jsonpath={.clientVersion}", func(p *Printer) error { return p.Version(VersionInfo{ClientVersion: "v\x1b[2J"}) }, `v\x1b[2J`},
	}
	for _, c := range cases {
		var out bytes.Buffer
		p := NewPrinter(&out, &out, "", true)
		p.UseDocumentPrinter(FormatTemplate, templatePrinter(t, c.format))
		if err := c.print(p); err != nil || out.String() != c.want {
			t.Errorf("-o %s: %q, %v; want %q", c.format, out.String(), err, c.want)
		}
	}
}

// A template that fails on a document is bad input (TemplateError) and
// prints nothing of its own: not go-template's debugging dump.
func TestTemplateFailureIsOneError(t *testing.T) {
	var out bytes.Buffer
	p := NewPrinter(&out, &out, "", true)
	p.UseDocumentPrinter(FormatTemplate, templatePrinter(t, "go-template={{index .clientVersion 5 3}}"))
	err := p.Version(VersionInfo{ClientVersion: "v1"})
	var te *TemplateError
	if !errors.As(err, &te) || out.Len() != 0 {
		t.Fatalf("%v (%T), output %q", err, err, out.String())
	}
}

// -o name prints TYPE/NAME as kubectl does: each object list read, the
// object of each watch event; a bookmark, an ERROR or a summary names none.
func TestNamePrintsTypeSlashName(t *testing.T) {
	name, err := genericclioptions.NewNamePrintFlags("").ToPrinter("name")
	if err != nil {
		t.Fatal(err)
	}
	cm := apiclient.Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Kind: "ConfigMap", Namespaced: true}
	deploy := apiclient.Resource{GVR: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, Kind: "Deployment", Namespaced: true}
	var out bytes.Buffer
	p := NewPrinter(&out, &out, "", true)
	p.UseDocumentPrinter(FormatName, name)
	p.ObjectsOf(cm)
	if err := p.List(ListReport{ObjectNames: []string{"a", "b"}}); err != nil {
		t.Fatal(err)
	}
	p.ObjectsOf(deploy)
	for _, r := range []WatchEventRecord{
		{Record: RecordEvent, Type: watchstream.EventAdded, Name: "web"},
		{Record: RecordEvent, Type: watchstream.EventBookmark},
		{Record: RecordEvent, Type: watchstream.EventError},
	} {
		if err := p.WatchEvent(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.WatchSummary(NewWatchSummary("")); err != nil {
		t.Fatal(err)
	}
	if want := "configmap/a\nconfigmap/b\ndeployment.apps/web\n"; out.String() != want {
		t.Fatalf("%q, want %q", out.String(), want)
	}
}
