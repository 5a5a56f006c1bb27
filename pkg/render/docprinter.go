package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/cli-runtime/pkg/printers"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/watchstream"
)

// The formats whose printer comes from cli-runtime's PrintFlags, as in
// kubectl: -o name (NamePrintFlags), and -o jsonpath=, jsonpath-file=,
// go-template=, go-template-file= and their kin (KubeTemplatePrintFlags).
const (
	FormatName     = "name"
	FormatTemplate = "template"
)

// UseDocumentPrinter makes rp, built by cli-runtime's PrintFlags from -o,
// the printer of every document: format is FormatName or FormatTemplate.
// A template sees the document -o json prints (for a stream, each line's
// document); -o name sees the objects a document names (ObjectsOf says of
// which type).
func (p *Printer) UseDocumentPrinter(format string, rp printers.ResourcePrinter) {
	p.Format, p.docPrinter = format, rp
}

// ObjectsOf names the type of the objects the documents name, for -o name
// (configmap/a, deployment.apps/web, as kubectl prints them).
func (p *Printer) ObjectsOf(r apiclient.Resource) {
	p.objects = r
}

// Names reports whether -o name was asked for (list then keeps the names
// of what it reads).
func (p *Printer) Names() bool { return p.Format == FormatName }

// TemplateError is a -o jsonpath or go-template that failed on a document:
// the template is bad input (exit 2), and nothing of its output is kept.
type TemplateError struct{ Err error }

func (e *TemplateError) Error() string {
	return "-o: the template failed on the output: " + text.Shorten(text.OneLine(e.Err.Error()), 512) +
		": fix the template (the fields are those of -o json)"
}

func (e *TemplateError) Unwrap() error { return e.Err }

// printDocument writes doc through the cli-runtime printer. Its output is
// made in a buffer first: a failed go-template writes its debugging dump
// (the whole document) to its writer, and that is not output.
//
// A document that is not the answer it stands for (notTheAnswer: one the
// contract refused, a list read in part) is not printed: -o name and the
// templates print for scripts, which read what they print as the
// collection's, and would not see the mark that -o json and the human
// output carry (adversary try 20 #8: watch -o name printed an object of
// another namespace, where list -o name printed none; fresh user try 22
// F3: the names of the pages read before a continue token expired).
func (p *Printer) printDocument(doc any) error {
	if r, ok := doc.(notTheAnswer); ok && r.notTheAnswer() {
		return nil
	}
	var objs []*unstructured.Unstructured
	if p.Format == FormatName {
		n, ok := doc.(objectNamer)
		if !ok {
			return nil // a notice or a summary: no object of its own
		}
		for _, name := range n.objectNames() {
			u := &unstructured.Unstructured{}
			u.SetGroupVersionKind(p.objects.GVR.GroupVersion().WithKind(p.objects.Kind))
			u.SetName(text.Inline(name))
			objs = append(objs, u)
		}
	} else {
		b, err := json.Marshal(doc)
		if err != nil {
			return err
		}
		m := map[string]any{}
		// utiljson: integers stay integers (int64), as in kubectl's objects.
		if err := utiljson.Unmarshal(b, &m); err != nil {
			return err
		}
		objs = append(objs, &unstructured.Unstructured{Object: m})
	}
	var buf bytes.Buffer
	for _, o := range objs {
		if err := p.docPrinter.PrintObj(o, &buf); err != nil {
			if p.Format == FormatName {
				return err
			}
			return &TemplateError{Err: firstLineOf(err)}
		}
	}
	_, err := p.Out.Write(buf.Bytes())
	return err
}

// FailingPrinter is the printer of a -o whose template could be checked
// but not built again: every document fails with err, as bad input.
func FailingPrinter(err error) printers.ResourcePrinter {
	return printers.ResourcePrinterFunc(func(runtime.Object, io.Writer) error { return err })
}

// firstLineOf keeps the line that says what failed: cli-runtime's jsonpath
// error goes on with the template and a dump of the whole object.
func firstLineOf(err error) error {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return errors.New(strings.TrimSuffix(s, ". Printing more information for debugging the template:"))
}

// notTheAnswer is a document that may stand for what is not the answer it
// would be read as: an answer that broke the List or the Watch contract
// (diagnose.ContractError), whose names are not known to be the
// collection's, or a list read in part. -o name and the templates print
// none of it; -o json and -o yaml print it marked (contractBreach,
// incomplete), the human output on a line that says so.
type notTheAnswer interface{ notTheAnswer() bool }

// notTheAnswer: the event broke the Watch contract.
func (r WatchEventRecord) notTheAnswer() bool { return r.brokeContract() }

// brokeContract: the event broke the Watch contract (an object the
// request excluded, a change out of RV order).
func (r WatchEventRecord) brokeContract() bool { return r.ContractBreach != "" }

// notTheAnswer: the answer broke the List contract (not one of its names
// is known to be the collection's, the ones it repeated neither), or the
// walk stopped before the list's last page (its names and numbers are a
// part's). A template sees nothing of it: the run's error line says what
// happened.
func (r ListReport) notTheAnswer() bool { return r.ContractBreach != "" || r.Incomplete != nil }

// objectNamer is a document that names objects of the watched or listed
// type: what -o name prints.
type objectNamer interface{ objectNames() []string }

// objectNames: the objects the list read (ObjectNames, kept only for -o
// name).
func (r ListReport) objectNames() []string { return r.ObjectNames }

// objectNames: the object of an event; a bookmark or an ERROR names none.
func (r WatchEventRecord) objectNames() []string {
	if r.Record != RecordEvent || r.Name == "" || r.Type == watchstream.EventBookmark || r.Type == watchstream.EventError {
		return nil
	}
	return []string{r.Name}
}
