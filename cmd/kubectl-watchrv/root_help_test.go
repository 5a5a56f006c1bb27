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

// An unknown help topic is bad input (exit 2, one line, a suggestion),
// as an unknown command is; a known one prints its help (fresh user try
// 15: "help nosuch" printed the root's help and exited 0).
func TestAnUnknownHelpTopicIsBadInput(t *testing.T) {
	_, errOut, code := runForTest(t, "help", "lsit")
	if code != ExitUsage || !strings.Contains(errOut, `unknown help topic "lsit"`) || !strings.Contains(errOut, `did you mean "list"`) {
		t.Errorf("help lsit: exit %d, stderr %q", code, errOut)
	}
	if out, _, code := runForTest(t, "help", "list"); code != ExitOK || !strings.Contains(out, "resourceVersion") {
		t.Errorf("help list: exit %d\n%s", code, out)
	}
}
