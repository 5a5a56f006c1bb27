package main

import (
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// Every --help lists the exit codes, as the README promises: the root, each
// command, and cobra's help command (fresh user try 12: "help --help" had
// none). Some commands give their own rule; the root's has examples too.
func TestEveryHelpListsTheExitCodes(t *testing.T) {
	root, _ := newRootCommand(genericiooptions.NewTestIOStreamsDiscard())
	paths := [][]string{{"--help"}, {"help", "--help"}}
	for _, c := range root.Commands() {
		if c.Hidden || c.Name() == "help" {
			continue
		}
		paths = append(paths, []string{c.Name(), "--help"})
	}
	for _, args := range paths {
		out, errOut, code := runForTest(t, args...)
		// "Exit codes": a list of them, not a rule in prose alone
		// (fresh user try 14: streaming's had no 2, 9, 13 or 130).
		if code != ExitOK || !strings.Contains(out, "Exit codes") {
			t.Errorf("%v: exit %d, the help lacks the exit codes:\n%s%s", args, code, out, errOut)
		}
	}
	if out, _, _ := runForTest(t, "--help"); !strings.Contains(out, "Examples:") {
		t.Errorf("the root --help has no examples:\n%s", out)
	}
}
