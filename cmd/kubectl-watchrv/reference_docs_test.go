//go:build refdocs

// The command reference under docs/reference/ is generated from the Cobra
// tree with github.com/spf13/cobra/doc, and this test fails when the
// checked-in reference no longer matches the commands. Regenerate it with:
//
//	make docs-reference
//
// The refdocs build tag keeps cobra/doc (and the markdown-to-man packages it
// pulls in) out of the module's go.mod: hack/refdocs.sh adds them through a
// temporary -modfile. The test runs in `make unit`.
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

const referenceDir = "../../docs/reference"

const regenerate = "make docs-reference"

func TestReferenceDocs(t *testing.T) {
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
	want := readDir(t, generated)
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
	got := readDir(t, referenceDir)
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
		t.Fatalf("docs/reference/ is stale: %s.\nRegenerate it with: %s", strings.Join(stale, ", "), regenerate)
	}
}

// disableAutoGenTag drops cobra/doc's "Auto generated ... on <date>" line,
// which would make every regeneration a diff.
func disableAutoGenTag(c *cobra.Command) {
	c.DisableAutoGenTag = true
	for _, sub := range c.Commands() {
		disableAutoGenTag(sub)
	}
}

func readDir(t *testing.T, dir string) map[string][]byte {
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
