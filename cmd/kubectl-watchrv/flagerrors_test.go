package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// goParserText is what a flag error must never show: the words of Go's
// parsers instead of what to type.
var goParserText = []string{"strconv.", "ParseUint", "ParseInt", "ParseFloat", "ParseBool", "invalid syntax", "time: invalid duration", "time: unknown unit", "time: missing unit", "value out of range"}

// Every numeric, duration and bool flag of every command, given a bad
// value: one line that names the flag and says what to type, exit 2, no
// parser text. A flag added later is covered by walking the command tree.
func TestEveryFlagRefusesBadValuesInWords(t *testing.T) {
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte(unreachableKubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	audit := filepath.Join(dir, "audit.log")
	if err := os.WriteFile(audit, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KUBECONFIG", kubeconfig)
	// The arguments each command needs to get as far as its flags.
	needs := map[string][]string{
		"list": {"cm"}, "watch": {"cm"}, "probe": {"cm"}, "streaming": {"cm"},
		"clients": {"-f", audit}, "explain-error": {"too old resource version: 1 (2)"},
	}
	bad := map[string][]string{
		"int": {"-1", "abc", "1e99", "", "99999999999999999999"}, "int64": {"-1", "abc", "1e99", ""},
		"uint64": {"-1", "abc", "1e99", ""}, "float64": {"abc", "", "-1", "1e999"},
		"duration": {"-1", "abc", "1e99", "", "10"}, "bool": {"abc", "2", "6"},
	}
	root, _ := newRootCommand(genericiooptions.NewTestIOStreamsDiscard())
	tried := 0
	var visit func(c *cobra.Command)
	visit = func(c *cobra.Command) {
		flags := c.LocalFlags()
		if c == root {
			flags = c.PersistentFlags()
		}
		flags.VisitAll(func(f *pflag.Flag) {
			values, ok := bad[f.Value.Type()]
			if !ok || f.Name == "help" {
				return
			}
			for _, v := range values {
				path := strings.Fields(c.CommandPath())[2:]
				sub := "list"
				if len(path) > 0 {
					sub = path[0]
				}
				args := append([]string{sub}, needs[sub]...)
				args = append(args, "--"+f.Name+"="+v)
				tried++
				var out, errOut bytes.Buffer
				code := run(args, genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
				msg := errOut.String()
				for _, g := range goParserText {
					if strings.Contains(msg, g) {
						t.Errorf("%v: Go parser text %q in %q", args, g, msg)
					}
				}
				if code != ExitUsage {
					t.Errorf("%v: exit %d, want %d (%q)", args, code, ExitUsage, msg)
				}
				if strings.Count(strings.TrimSpace(msg), "\n") > 0 || !strings.Contains(msg, "--"+f.Name) {
					t.Errorf("%v: want one line naming --%s: %q", args, f.Name, msg)
				}
			}
		})
		for _, s := range c.Commands() {
			visit(s)
		}
	}
	visit(root)
	if tried < 50 {
		t.Fatalf("only %d bad values tried: the walk missed the flags", tried)
	}
	fmt.Fprintf(os.Stderr, "%d bad flag values tried\n", tried)
}

const unreachableKubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "https://127.0.0.1:9"}
contexts:
- name: c
  context: {cluster: c, user: u, namespace: default}
current-context: c
users:
- name: u
  user: {token: t}
`

// Every command's --help says its exit codes: the plugin-wide table or a
// paragraph of its own.
func TestEveryCommandHelpHasExitCodes(t *testing.T) {
	root, _ := newRootCommand(genericiooptions.NewTestIOStreamsDiscard())
	var visit func(c *cobra.Command)
	n := 0
	visit = func(c *cobra.Command) {
		if !c.Hidden && c.Name() != "help" {
			n++
			if !strings.Contains(c.Long, "Exit code") {
				t.Errorf("%q --help names no exit codes", c.CommandPath())
			}
		}
		for _, s := range c.Commands() {
			visit(s)
		}
	}
	visit(root)
	if n < 9 {
		t.Fatalf("only %d commands visited", n)
	}
}

// TestBadRootFlagsBeforeEveryCommand: a flag of the root given a bad value
// before the subcommand (cobra parses it on the way, and returns pflag's
// own error) is bad input like any other: exit 2, one line, the fix, no Go
// parser text; in front of every command.
func TestBadRootFlagsBeforeEveryCommand(t *testing.T) {
	root, _ := newRootCommand(genericiooptions.IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard})
	for _, sub := range root.Commands() {
		if sub.Hidden || sub.Name() == "help" {
			continue
		}
		for _, bad := range [][]string{{"--no-color=maybe"}, {"-v=abc"}, {"--insecure-skip-tls-verify=x"}, {"--nosuch"}} {
			args := append(append([]string{}, bad...), sub.Name())
			_, errOut, code := runWithEnv(t, "/nonexistent-watchrv-unit", args...)
			if code != ExitUsage || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || strings.Contains(errOut, "strconv") || strings.Contains(errOut, "invalid syntax") {
				t.Errorf("%v: exit %d: %q", args, code, errOut)
			}
		}
	}
	for _, args := range [][]string{{"version", "extra"}, {"version", "--client", "extra"}} {
		_, errOut, code := runWithEnv(t, "/nonexistent-watchrv-unit", args...)
		if code != ExitUsage || !strings.Contains(errOut, `"extra"`) {
			t.Errorf("%v: exit %d: %q", args, code, errOut)
		}
	}
}
