package main

import (
	"bytes"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// A series' flags that cannot work are refused before any request, one
// line, exit 2, naming what to give (docs/exit-codes.md: the line names
// the flag, the value and a value to give): a --duration under two
// intervals gives one that holds two (fresh user try 51 F4: it gave none),
// and --verify or --future, which check one probe and would spend their
// requests in every round with nothing shown (fresh user try 51 F9), say
// to run them without the series.
func TestProbeSeriesFlagsThatCannotWorkAreRefused(t *testing.T) {
	t.Setenv("KUBECONFIG", "/nonexistent-watchrv-unit")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--interval", "2s", "--duration", "3s"}, "--duration 3s must cover at least two --interval 2s rounds to measure a rate: give for example --duration 8s"},
		{[]string{"--interval", "1s", "--duration", "10s", "--verify"}, "--verify checks one probe, not a series: run it without --interval and --duration"},
		{[]string{"--interval", "1s", "--duration", "10s", "--future"}, "--future checks one probe, not a series: run it without --interval and --duration"},
		{[]string{"--interval", "1s", "--duration", "10s", "--future", "--verify"}, "--verify checks one probe, not a series: run it without --interval and --duration"},
	} {
		var out bytes.Buffer
		o := &ProbeOptions{RootOptions: &RootOptions{
			ConfigFlags: genericclioptions.NewConfigFlags(true),
			IOStreams:   genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &out},
		}}
		cmd := probeCommand(o)
		args := append([]string{"configmaps"}, tc.args...)
		if err := cmd.ParseFlags(args); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if err := o.Complete(cmd, cmd.Flags().Args()); err != nil {
			t.Fatalf("%v: complete: %v", args, err)
		}
		err := o.Validate(cmd, cmd.Flags().Args())
		if err == nil || exitCode(err) != ExitUsage || err.Error() != tc.want+" (see 'probe --help')" || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: got %v (exit %d)\nwant %q (exit 2)", args, err, exitCode(err), tc.want)
		}
	}
}
