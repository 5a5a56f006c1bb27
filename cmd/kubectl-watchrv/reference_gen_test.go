// TestReferenceDocsGenerated generates docs/reference/ from the Cobra tree
// with github.com/spf13/cobra/doc (go test ./cmd/kubectl-watchrv -update,
// or make docs-reference), or fails when the checked-in reference differs
// by a single byte.
package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

var updateReference = flag.Bool("update", false, "rewrite docs/reference/ from the command tree")

func TestReferenceDocsGenerated(t *testing.T) {
	// Flag defaults derived from the environment (the kubeconfig cache dir
	// under $HOME) must read the same on every machine.
	t.Setenv("HOME", "~")
	t.Setenv("KUBECACHEDIR", "")
	root, _ := newRootCommand(genericiooptions.NewTestIOStreamsDiscard())
	root.InitDefaultCompletionCmd()
	disableAutoGenTag(root)

	generated := t.TempDir()
	if err := doc.GenMarkdownTree(root, generated); err != nil {
		t.Fatalf("generating the reference: %v", err)
	}
	want := readReferenceDir(t, generated)
	if *updateReference {
		if err := os.RemoveAll(referenceDir); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(referenceDir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, content := range want {
			if err := os.WriteFile(filepath.Join(referenceDir, name), content, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		t.Logf("wrote %d files to docs/reference/", len(want))
		return
	}
	got := readReferenceDir(t, referenceDir)
	var stale []string
	for name, content := range want {
		if old, ok := got[name]; !ok {
			stale = append(stale, name+" (missing)")
		} else if !bytes.Equal(old, content) {
			stale = append(stale, name+" (differs)")
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			stale = append(stale, name+" (no such command any more)")
		}
	}
	if len(stale) > 0 {
		sort.Strings(stale)
		t.Fatalf("docs/reference/ is stale: %s.\nRegenerate it with: %s", strings.Join(stale, ", "), regenerateReference)
	}
}

// disableAutoGenTag drops cobra/doc's "Auto generated ... on <date>" line,
// which would make every regeneration a diff.
func disableAutoGenTag(root *cobra.Command) {
	for _, c := range allCommands(root) {
		c.DisableAutoGenTag = true
	}
}
