package main

import (
	"strings"

	"github.com/spf13/pflag"

	"github.com/watchrv/kubectl-watchrv/pkg/render"
)

// outputFlags is the -o flag of one command, in the manner of kubectl's
// PrintFlags: the command names the formats it prints, and the flag's
// registration, help text and validation all come from that one list.
type outputFlags struct {
	Output string

	formats []string // the formats the help names, besides the table
	// wideIsDefault: -o wide is accepted and prints the default table.
	wideIsDefault bool
	// streamed: json and yaml print one document per event.
	streamed bool
}

func newOutputFlags(formats ...string) outputFlags { return outputFlags{formats: formats} }

// addOutputFlag registers -o/--output.
func (f *outputFlags) addOutputFlag(fs *pflag.FlagSet) {
	fs.StringVarP(&f.Output, "output", "o", "", f.help())
}

func (f *outputFlags) help() string {
	if f.streamed {
		return "Output format: json (one JSON object per line) or yaml (a YAML stream)"
	}
	names := f.formats
	h := "Output format: " + names[len(names)-1]
	if len(names) > 1 {
		h = "Output format: " + strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
	}
	if f.wideIsDefault {
		h += " (wide is accepted and equals the default)"
	}
	return h
}

// validateOutput names the accepted values when -o is not one of them.
func (f *outputFlags) validateOutput() error {
	allowed := f.formats
	if f.wideIsDefault {
		allowed = append([]string{render.FormatWide}, f.formats...)
	}
	return render.ValidateFormat(f.Output, allowed...)
}
