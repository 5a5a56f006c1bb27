package main

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// Validate is pure in every command: Complete derives, Validate only
// checks. Each case parses a command line, runs Complete, then Validate
// twice; the options must be the same after each Validate as before it, and
// both Validates must give the same answer.
func TestValidateChangesNothing(t *testing.T) {
	t.Setenv("KUBECONFIG", "/nonexistent-watchrv-unit")
	type built struct {
		cmd      *cobra.Command
		options  any // a pointer to the command's Options
		validate func(cmd *cobra.Command, args []string) error
	}
	newRoot := func() *RootOptions {
		var out bytes.Buffer
		return &RootOptions{
			ConfigFlags: genericclioptions.NewConfigFlags(true),
			IOStreams:   genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &out},
		}
	}
	builders := map[string]func() built{
		"list": func() built {
			o := &ListOptions{RootOptions: newRoot()}
			return built{listCommand(o), o, func(c *cobra.Command, _ []string) error { return o.Validate(c) }}
		},
		"watch": func() built {
			o := &WatchOptions{RootOptions: newRoot()}
			return built{watchCommand(o), o, func(c *cobra.Command, _ []string) error { return o.Validate(c) }}
		},
		"probe": func() built {
			o := &ProbeOptions{RootOptions: newRoot()}
			return built{probeCommand(o), o, o.Validate}
		},
		"streaming": func() built {
			o := &StreamingOptions{RootOptions: newRoot()}
			return built{streamingCommand(o), o, o.Validate}
		},
		"clients": func() built {
			o := &ClientsOptions{RootOptions: newRoot()}
			return built{clientsCommand(o), o, o.Validate}
		},
		"explain-error": func() built {
			o := &ExplainErrorOptions{RootOptions: newRoot()}
			return built{explainErrorCommand(o), o, o.Validate}
		},
		"version": func() built {
			o := &VersionOptions{RootOptions: newRoot()}
			return built{versionCommand(o), o, func(c *cobra.Command, _ []string) error { return o.Validate(c) }}
		},
	}
	complete := func(o any, c *cobra.Command, args []string) error {
		return o.(interface {
			Complete(*cobra.Command, []string) error
		}).Complete(c, args)
	}
	cases := []struct {
		command string
		args    []string
		valid   bool
	}{
		{"list", []string{"cm", "--servers", "--endpoints", "10.0.0.1:6443,10.0.0.2:6443"}, true},
		{"list", []string{"cm", "--endpoints", "nope"}, false},
		{"list", []string{"cm", "--rv-only", "--rv-match", "exact"}, false},
		{"list", []string{"cm", "--rv", "5", "--rv-match", "exact"}, true},
		{"watch", []string{"cm", "--follow", "--until", "added"}, true},
		{"watch", []string{"cm", "--rv", "list", "--send-initial-events"}, false},
		{"probe", []string{"cm", "--servers", "--from-rv", "42"}, true},
		{"probe", []string{"cm", "--endpoints", "10.0.0.1:6443", "--from-rv", "12"}, true},
		{"probe", []string{"--all", "--future"}, false},
		{"streaming", []string{"cm", "--deadline", "5s"}, true},
		{"streaming", []string{"--all", "cm"}, false},
		{"clients", []string{"-f", "audit.log", "--top", "3"}, true},
		{"clients", []string{"-f", "-", "-f", "-"}, false},
		{"explain-error", []string{"--endpoints", "10.0.0.1:6443", "too old resource version: 1 (2)"}, false},
		{"explain-error", []string{"--check", "--servers", "--endpoints", "10.0.0.1:6443", "too old resource version: 1 (2)"}, true},
		{"explain-error", []string{"--rv", "9", "--operation", "watch", "msg"}, true},
		{"version", []string{"-o", "json"}, true},
		{"version", []string{"-o", "xml"}, false},
	}
	for _, c := range cases {
		t.Run(c.command+" "+strings.Join(c.args, " "), func(t *testing.T) {
			b := builders[c.command]()
			if err := b.cmd.ParseFlags(c.args); err != nil {
				t.Fatalf("parse: %v", err)
			}
			args := b.cmd.Flags().Args()
			if err := complete(b.options, b.cmd, args); err != nil {
				t.Fatalf("Complete: %v", err)
			}
			before := reflect.ValueOf(b.options).Elem().Interface()
			first := b.validate(b.cmd, args)
			if got := reflect.ValueOf(b.options).Elem().Interface(); !reflect.DeepEqual(before, got) {
				t.Fatalf("Validate changed the options:\nbefore %+v\nafter  %+v", before, got)
			}
			second := b.validate(b.cmd, args)
			if got := reflect.ValueOf(b.options).Elem().Interface(); !reflect.DeepEqual(before, got) {
				t.Fatalf("the second Validate changed the options:\nbefore %+v\nafter  %+v", before, got)
			}
			if (first == nil) != c.valid {
				t.Fatalf("Validate = %v, want valid %v", first, c.valid)
			}
			if (first == nil) != (second == nil) || (first != nil && first.Error() != second.Error()) {
				t.Fatalf("Validate answered %v, then %v", first, second)
			}
		})
	}
}

// What Complete derives from the per-server flags reaches Run.
func TestCompleteDerivesServerFlags(t *testing.T) {
	t.Setenv("KUBECONFIG", "/nonexistent-watchrv-unit")
	o := &ProbeOptions{RootOptions: &RootOptions{ConfigFlags: genericclioptions.NewConfigFlags(true)}}
	cmd := probeCommand(o)
	if err := cmd.ParseFlags([]string{"--endpoints", "10.0.0.2:6443, 10.0.0.1:6443,10.0.0.2:6443", "--from-rv", "42", "cm"}); err != nil {
		t.Fatal(err)
	}
	if err := o.Complete(cmd, cmd.Flags().Args()); err != nil {
		t.Fatal(err)
	}
	if err := o.Validate(cmd, cmd.Flags().Args()); err != nil {
		t.Fatal(err)
	}
	if o.fromRV != 42 || !reflect.DeepEqual(o.endpoints, []string{"10.0.0.2:6443", "10.0.0.1:6443"}) {
		t.Fatalf("fromRV %d, endpoints %v", o.fromRV, o.endpoints)
	}
}

// Fresh user try 19 #12: --from-rv abc said "omit --from-rv for a
// consistent read" (omitting it means the newest current RV), and
// --from-rv 0 was replaced by the newest current RV without a word. Each
// refusal says what omitting the flag does; 0 is refused, never dropped.
func TestFromRVRefusalsSayWhatOmittingDoes(t *testing.T) {
	t.Setenv("KUBECONFIG", "/nonexistent-watchrv-unit")
	for _, tc := range []struct {
		value string
		want  []string
	}{
		{"abc", []string{`--from-rv "abc" is not a resourceVersion`, "omit --from-rv to judge a reconnect from the newest current RV"}},
		{"0", []string{"--from-rv 0 is no reconnect point", "no server refuses it", "omit --from-rv to judge a reconnect from the newest current RV"}},
		{"000", []string{"--from-rv 000 is no reconnect point"}},
	} {
		o := &ProbeOptions{RootOptions: &RootOptions{ConfigFlags: genericclioptions.NewConfigFlags(true)}}
		cmd := probeCommand(o)
		if err := cmd.ParseFlags([]string{"--endpoints", "10.0.0.1:6443", "--from-rv", tc.value, "cm"}); err != nil {
			t.Fatal(err)
		}
		if err := o.Complete(cmd, cmd.Flags().Args()); err != nil {
			t.Fatal(err)
		}
		err := o.Validate(cmd, cmd.Flags().Args())
		if err == nil || exitCode(err) != ExitUsage {
			t.Fatalf("--from-rv %s: want a usage error, got %v", tc.value, err)
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("--from-rv %s: %q lacks %q", tc.value, err, w)
			}
		}
		if strings.Contains(err.Error(), "consistent read") {
			t.Errorf("--from-rv %s: %q: omitting --from-rv is no consistent read", tc.value, err)
		}
	}
	// list --rv keeps its own: omitting it is a consistent read.
	o := &ListOptions{RootOptions: &RootOptions{ConfigFlags: genericclioptions.NewConfigFlags(true)}}
	cmd := listCommand(o)
	if err := cmd.ParseFlags([]string{"--rv", "abc", "cm"}); err != nil {
		t.Fatal(err)
	}
	if err := o.Complete(cmd, cmd.Flags().Args()); err != nil {
		t.Fatal(err)
	}
	if err := o.Validate(cmd); err == nil || !strings.Contains(err.Error(), "omit --rv for a consistent read") {
		t.Fatalf("list --rv abc: %v", err)
	}
}
