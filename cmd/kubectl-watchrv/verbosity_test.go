package main

import (
	"bytes"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// -v takes its level every way kubectl's does, on every command, and a
// bare -v is every request (6); a bad level is one line and exit 2, never
// strconv's words.
func TestVerbosityLevels(t *testing.T) {
	t.Setenv("KUBECONFIG", "/nonexistent-watchrv-unit")
	explain := []string{"explain-error", "too old resource version: 1 (2)"}
	for _, c := range []struct {
		args []string
		want int
	}{
		{nil, 0},
		{[]string{"-v"}, 6},
		{[]string{"-v=6"}, 6},
		{[]string{"-v", "6"}, 6},
		{[]string{"-v6"}, 6},
		{[]string{"-v=2"}, 2},
		{[]string{"--v=8"}, 8},
		{[]string{"--v", "9"}, 9},
		{[]string{"--verbose=3"}, 3},
		{[]string{"--verbose"}, 6},
	} {
		var out, errb bytes.Buffer
		streams := genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errb}
		cmd, o := newRootCommand(streams)
		cmd.SetArgs(verbosityArgs(append(append([]string{}, explain...), c.args...)))
		if err := cmd.Execute(); err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		if o.Verbosity != c.want || o.Verbose != (c.want >= 1) {
			t.Errorf("%v: verbosity %d (verbose %v), want %d", c.args, o.Verbosity, o.Verbose, c.want)
		}
	}
	for _, bad := range []string{"-v=x", "-v=11", "--v=-1"} {
		var out, errb bytes.Buffer
		code := run(append(append([]string{}, explain...), bad), genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errb})
		line := strings.TrimSpace(errb.String())
		if code != ExitUsage || strings.Count(line, "\n") != 0 || !strings.Contains(line, "is not a verbosity level") || strings.Contains(line, "strconv") {
			t.Errorf("%s: exit %d, %q", bad, code, line)
		}
	}
}

// Only -v's own level is joined to it: nothing after "--", no other flag.
func TestVerbosityArgs(t *testing.T) {
	got := strings.Join(verbosityArgs([]string{"list", "cm", "-v", "7", "-n", "6", "--", "-v", "6"}), " ")
	if want := "list cm -v=7 -n 6 -- -v 6"; got != want {
		t.Fatalf("verbosityArgs = %q, want %q", got, want)
	}
	if got := strings.Join(verbosityArgs([]string{"watch", "cm", "-v", "--timeout", "3s"}), " "); got != "watch cm -v --timeout 3s" {
		t.Fatalf("a bare -v: %q", got)
	}
}
