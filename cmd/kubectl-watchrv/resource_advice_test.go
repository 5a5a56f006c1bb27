package main

import (
	"bytes"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// Issue 25, as a class: the advice for a TYPE/NAME argument names a NAME
// argument only where the command takes one. Every command whose usage
// line takes a RESOURCE and no NAME (probe, streaming, top) is asked
// "pods/log": its advice must not tell the user to give a name.
func TestTypeSlashNameAdviceFollowsTheCommand(t *testing.T) {
	root, _ := newRootCommand(genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}})
	tried := 0
	for _, c := range root.Commands() {
		if !strings.Contains(c.Use, "RESOURCE") || strings.Contains(c.Use, "[NAME]") {
			continue
		}
		tried++
		var out, errb bytes.Buffer
		code := run([]string{c.Name(), "pods/log", "--server", "https://127.0.0.1:1"}, genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: &out, ErrOut: &errb})
		msg := errb.String()
		if code != ExitUsage || !strings.Contains(msg, `"pods/log" is not a resource type: give the type alone (pods)`) {
			t.Errorf("%s pods/log: exit %d: %s", c.Name(), code, msg)
		}
		if strings.Contains(msg, "own argument") || strings.Contains(msg, "(pods log)") || strings.Contains(msg, "metadata.name=log") {
			t.Errorf("%s takes no NAME, and its advice gives one: %s", c.Name(), msg)
		}
	}
	if tried < 3 {
		t.Fatalf("%d commands without NAME tried, want probe, streaming and top", tried)
	}
}

// Fresh user try 10: "cm/" was told to give "(cm )" or
// "--field-selector metadata.name=", neither of which runs; try 11: "probe
// /a" was told "give the type alone ()". Every malformed TYPE/NAME, in
// every command that takes a RESOURCE, gets advice none of whose parts is
// empty or a name with a slash.
func TestMalformedTypeSlashNameAdviceHasNoEmptyPart(t *testing.T) {
	root, _ := newRootCommand(genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}})
	tried := 0
	for _, c := range root.Commands() {
		if !strings.Contains(c.Use, "RESOURCE") {
			continue
		}
		for _, arg := range []string{"cm/", "/a", "/", "cm/a/b", "cm//"} {
			tried++
			var out, errb bytes.Buffer
			code := run([]string{c.Name(), arg, "--server", "https://127.0.0.1:1"}, genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: &out, ErrOut: &errb})
			msg := errb.String()
			if code != ExitUsage || strings.Count(msg, "\n") != 1 {
				t.Errorf("%s %s: exit %d, want one line and %d: %s", c.Name(), arg, code, ExitUsage, msg)
			}
			for _, bad := range []string{"metadata.name=;", "metadata.name= ", "metadata.name=/", "(cm )", "(cm /", "( ", "(/", "()"} {
				if strings.Contains(msg, bad) {
					t.Errorf("%s %s: advice with an empty or slashed part %q: %s", c.Name(), arg, bad, msg)
				}
			}
		}
	}
	if tried < 25 {
		t.Fatalf("%d cases, want list, watch, probe, streaming and top tried", tried)
	}
}
