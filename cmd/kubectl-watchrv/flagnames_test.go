package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/watchrv/kubectl-watchrv/internal/srclit"
)

// flagNamesLeft are the library texts that still name a flag of the plugin,
// each with why (file: the flag).
var flagNamesLeft = map[string]string{
	// Evidence and read-path texts inside clients.Report, which -o json
	// prints whole: moving them means a render-side copy of the report.
	"pkg/clients/reads.go: --server-version": "read-path text of the JSON report",
	// The API server's own flags, which the plugin's clients --watch-cache
	// and --watch-cache-sizes mirror by name (so that they can be pasted).
	"pkg/diagnose/advice.go: --watch-cache":       "the API server's flag",
	"pkg/diagnose/advice.go: --watch-cache-sizes": "the API server's flag",
	"pkg/top/callouts.go: --watch-cache":          "the API server's flag",
	"pkg/top/callouts.go: --watch-cache-sizes":    "the API server's flag",
	// The verdict of diagnose.Check, printed whole by -o json.
	"pkg/diagnose/check.go: --rv": "verdict text of the JSON check",
	// follow.StalledError: its file is being reworked by another change.
	"pkg/follow/errors.go: --timeout":       "follow.StalledError",
	"pkg/follow/errors.go: --stall-timeout": "follow.StalledError",
}

// The libraries (pkg/, render and suggest aside: they are the plugin's voice) do not write
// the plugin's own flag names into their texts: their typed errors and
// results carry the limit or the knob, and cmd or render names the flag.
func TestLibrariesDoNotNameThePluginsFlags(t *testing.T) {
	root, _ := newRootCommand(genericiooptions.IOStreams{})
	names := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) { names[f.Name] = true })
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	delete(names, "help")
	var alts []string
	for n := range names {
		alts = append(alts, regexp.QuoteMeta(n))
	}
	flagRe := regexp.MustCompile(`(^|[^a-z-])--(` + strings.Join(alts, "|") + `)([^a-z-]|$)`)

	found := map[string]bool{}
	// render is the plugin's voice; suggest writes its command lines,
	// whose words are flags.
	voice := func(rel string) bool { return rel == "pkg/render" || rel == "pkg/suggest" }
	err := srclit.Walk("../..", []string{"pkg"}, voice, func(l srclit.Literal) {
		for _, m := range flagRe.FindAllStringSubmatch(l.Value, -1) {
			key := l.File + ": --" + m[2]
			found[key] = true
			if _, ok := flagNamesLeft[key]; !ok {
				t.Errorf("%s names the plugin's flag --%s in %s: give the error or result the field and let cmd or render name the flag", l.File, m[2], l.Value)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	for key := range flagNamesLeft {
		if !found[key] {
			t.Errorf("%s no longer names the flag: drop it from flagNamesLeft", key)
		}
	}
}
