package main

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// docs/reference/ is generated from the command tree with cobra/doc by
// `make docs-reference` (reference_gen_test.go, whose byte-for-byte check
// runs with the other tests). This test says what in particular is stale
// (a command added or removed, a flag, a description or an example changed)
// and names the command that fixes it.

const (
	referenceDir        = "../../docs/reference"
	regenerateReference = "make docs-reference"
)

func TestReferenceDocsCoverEveryCommandAndFlag(t *testing.T) {
	root, _ := newRootCommand(genericiooptions.NewTestIOStreamsDiscard())
	root.InitDefaultCompletionCmd()
	files := readReferenceDir(t, referenceDir)
	var problems []string
	want := map[string]bool{}
	for _, c := range allCommands(root) {
		name := strings.ReplaceAll(c.CommandPath(), " ", "_") + ".md"
		want[name] = true
		page, ok := files[name]
		if !ok {
			problems = append(problems, "no "+name+" for '"+c.CommandPath()+"'")
			continue
		}
		text := string(page)
		for what, current := range map[string]string{"short description": c.Short, "long description": c.Long, "examples": c.Example} {
			if !strings.Contains(text, current) {
				problems = append(problems, name+" does not have the current "+what)
			}
		}
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if !f.Hidden && !strings.Contains(text, "--"+f.Name+" ") {
				problems = append(problems, name+" lacks --"+f.Name)
			}
		})
	}
	for name := range files {
		if !want[name] {
			problems = append(problems, name+" documents a command that no longer exists")
		}
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		t.Fatalf("docs/reference/ is stale: %s.\nRegenerate it with: %s", strings.Join(problems, "; "), regenerateReference)
	}
}

// allCommands is the tree in the order cobra/doc writes it, without the
// commands cobra/doc skips (help, hidden, deprecated).
func allCommands(c *cobra.Command) []*cobra.Command {
	out := []*cobra.Command{c}
	for _, sub := range c.Commands() {
		if !sub.IsAvailableCommand() || sub.IsAdditionalHelpTopicCommand() {
			continue
		}
		out = append(out, allCommands(sub)...)
	}
	return out
}

func readReferenceDir(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = b
	}
	return files
}
