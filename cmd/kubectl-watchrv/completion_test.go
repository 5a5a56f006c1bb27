package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// TestEveryValueFlagCompletes: every flag that takes a value, on every
// command, completes: a flag with a fixed set of values (its help names
// them, its Validate rejects the rest) offers that set on <TAB>; a flag
// that offers nothing is declared free (freeFlags), takes a number or a
// duration, or a path (fileFlags). A new flag with fixed values that is
// not registered fails here.
func TestEveryValueFlagCompletes(t *testing.T) {
	root, _ := newRootCommand(genericiooptions.NewTestIOStreamsDiscard())
	dynamic := map[string]bool{"namespace": true, "resource": true, "context": true, "cluster": true, "user": true}
	numeric := map[string]bool{"int": true, "int32": true, "int64": true, "uint": true, "uint32": true, "uint64": true, "float64": true, "float32": true, "duration": true, "count": true}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		check := func(f *pflag.Flag) {
			if f.Value.Type() == "bool" || f.Hidden {
				return
			}
			name := c.CommandPath() + " --" + f.Name
			if dynamic[f.Name] {
				return // completed from the kubeconfig or the server
			}
			fn, ok := c.GetFlagCompletionFunc(f.Name)
			if !ok || fn == nil {
				if !fileFlags[f.Name] {
					t.Errorf("%s: no completion registered (files are offered)", name)
				}
				return
			}
			got, _ := fn(c, nil, "")
			if vs, fixed := fixedSet(c, f); fixed {
				if strings.Join(got, ",") != strings.Join(vs, ",") {
					t.Errorf("%s: completes %q, want its values %q", name, got, vs)
				}
				return
			}
			if len(got) == 0 && !freeFlags[f.Name] && !numeric[f.Value.Type()] {
				t.Errorf("%s (%s): completes nothing and is not declared free: if it has a fixed set of values, add them to flagValues; if not, to freeFlags", name, f.Value.Type())
			}
		}
		c.LocalNonPersistentFlags().VisitAll(check)
		if c == root {
			c.PersistentFlags().VisitAll(check)
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)

	// The values of top --sort are its sort keys.
	top, _, err := root.Find([]string{"top"})
	if err != nil {
		t.Fatal(err)
	}
	fn, _ := top.GetFlagCompletionFunc("sort")
	if got, _ := fn(top, nil, "st"); strings.Join(got, ",") != "storage-lists" {
		t.Errorf("top --sort st<TAB>: %q", got)
	}
}

// fixedSet is the fixed values of flag f of c, when it has some.
func fixedSet(c *cobra.Command, f *pflag.Flag) ([]string, bool) {
	if vs, ok := flagValues[c.Name()+" "+f.Name]; ok {
		return vs, true
	}
	vs, ok := flagValues["* "+f.Name]
	return vs, ok
}
