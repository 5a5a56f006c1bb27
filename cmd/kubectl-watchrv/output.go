package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/printers"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/render"
)

// outputFlags is the -o flag of one command, in the manner of kubectl's
// PrintFlags: the command names the formats it prints, and the flag's
// registration, help text and validation all come from that one list.
// Every command with -o also takes kubectl's templates (jsonpath=,
// jsonpath-file=, go-template=, go-template-file=, with --template and
// --allow-missing-template-keys), from cli-runtime's KubeTemplatePrintFlags,
// over the document -o json prints; render.FormatName in the list adds -o
// name (cli-runtime's NamePrintFlags: TYPE/NAME of each object).
type outputFlags struct {
	Output outputChoice

	formats []string // the formats the help names, besides the table
	// wideIsDefault: -o wide is accepted and prints the default table.
	wideIsDefault bool
	// streamed: json and yaml print one document per event.
	streamed bool

	templates *genericclioptions.KubeTemplatePrintFlags
	// noHeaders: --no-headers, as kubectl get's (the tables only).
	noHeaders bool
}

// outputChoice is the value of -o, and once validated, the cli-runtime
// printer it names (for -o name and the templates): what Printer builds
// the run's render.Printer from.
type outputChoice struct {
	format  string
	printer printers.ResourcePrinter
	kind    string       // render.FormatName or render.FormatTemplate, with printer
	flags   *outputFlags // what the command accepts (for completion)
}

func (c *outputChoice) String() string     { return c.format }
func (c *outputChoice) Set(s string) error { c.format = s; return nil }
func (c *outputChoice) Type() string       { return "string" }

var _ pflag.Value = (*outputChoice)(nil)

func newOutputFlags(formats ...string) outputFlags {
	return outputFlags{formats: formats, templates: genericclioptions.NewKubeTemplatePrintFlags()}
}

// addOutputFlag registers -o/--output, --template and
// --allow-missing-template-keys (kubectl's names and defaults).
func (f *outputFlags) addOutputFlag(fs *pflag.FlagSet) {
	f.Output.flags = f
	fs.VarP(&f.Output, "output", "o", f.help())
	fs.StringVar(f.templates.TemplateArgument, "template", "", "Template string or path to template file to use when -o=go-template, -o=go-template-file, -o=jsonpath or -o=jsonpath-file (alone, it means -o go-template). The fields are those of -o json.")
	_ = fs.SetAnnotation("template", cobra.BashCompFilenameExt, []string{})
	fs.BoolVar(&f.noHeaders, "no-headers", false, "When using the default or wide output, don't print the header line of a table (as kubectl get's --no-headers)")
	fs.BoolVar(f.templates.AllowMissingKeys, "allow-missing-template-keys", true, "If true, ignore any errors in templates when a field or map key is missing in the template. Only applies to golang and jsonpath output formats.")
}

// templateFormats are the template values of -o, as kubectl names them.
const templateFormats = "jsonpath=..., jsonpath-file=..., go-template=... or go-template-file=..."

func (f *outputFlags) help() string {
	if f.streamed {
		h := "Output format: json (one JSON object per line) or yaml (a YAML stream)"
		if f.accepts(render.FormatWide) {
			h = "Output format: wide (full UIDs), json (one JSON object per line), yaml (a YAML stream)"
		}
		if f.accepts(render.FormatName) {
			h += ", name (TYPE/NAME of each object an event carries, as kubectl get -w -o name)"
		}
		return h + ", or " + templateFormats + " (applied to each line's JSON document)"
	}
	names := f.formats
	h := "Output format: " + strings.Join(names, ", ")
	if f.accepts(render.FormatName) {
		h = strings.Replace(h, render.FormatName, "name (TYPE/NAME of each object read, as kubectl get -o name)", 1)
	}
	h += ", or " + templateFormats + " (applied to the -o json document)"
	if f.wideIsDefault {
		h += "; wide is accepted and equals the default"
	}
	return h
}

func (f *outputFlags) accepts(format string) bool {
	for _, a := range f.formats {
		if a == format {
			return true
		}
	}
	return false
}

// validateOutput names the accepted values when -o is not one of them;
// a template that does not parse (or a template file that cannot be read)
// is named in one line. It only checks: Printer builds the printer.
func (f *outputFlags) validateOutput() error {
	_, _, err := f.resolve()
	return err
}

// resolve is the printer -o names: for -o name and the templates,
// cli-runtime's printer and its render kind; for the plugin's own formats,
// none (render prints them).
func (f *outputFlags) resolve() (kind string, p printers.ResourcePrinter, err error) {
	format := f.Output.format
	if format == "" && *f.templates.TemplateArgument != "" {
		format = "go-template" // kubectl: --template alone is a go-template
	}
	allowed := f.formats
	if f.wideIsDefault {
		allowed = append([]string{render.FormatWide}, f.formats...)
	}
	if format == render.FormatName && f.accepts(render.FormatName) {
		p, err := genericclioptions.NewNamePrintFlags("").ToPrinter(format)
		return render.FormatName, p, err
	}
	if format == render.FormatName {
		return "", nil, fmt.Errorf("-o name prints the objects a command reads (list, watch); this command reads none: use -o json, or -o jsonpath=... for one field")
	}
	if err := render.ValidateFormat(format, allowed...); err == nil {
		return "", nil, nil
	}
	p, err = f.templates.ToPrinter(format)
	if genericclioptions.IsNoCompatiblePrinterError(err) {
		return "", nil, fmt.Errorf("unknown output format %q: use one of %s, %s", text.Echo(format), strings.Join(allowed, ", "), templateFormats)
	}
	if err != nil {
		return "", nil, fmt.Errorf("-o %s: %s: fix the template (kubectl's syntax; the fields are those of -o json)", text.Echo(format), text.Shorten(text.OneLine(err.Error()), 512))
	}
	return render.FormatTemplate, p, nil
}

// isName reports whether -o name was asked for.
func (f *outputFlags) isName() bool { return f.Output.format == render.FormatName }
