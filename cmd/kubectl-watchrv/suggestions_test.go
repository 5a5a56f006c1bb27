package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// suggestionsLeft are the texts that still suggest a command without
// pkg/suggest (so without the user's context), each with whose file it is
// and what converting it takes (file: the text's start).
var suggestionsLeft = map[string]string{
	// h-watch: WatchNoticeRecord and WatchSummary need the suggested line
	// (cmd builds it with suggest.From and the watch's scope) in a field.
	"pkg/render/watch_summary.go: kubectl watchrv probe RESOURCE --servers)": "h-watch",
	// h-misc: diagnose is pure and has no context; explain-error's render
	// can append the command built in cmd.
	"pkg/diagnose/advice.go: kubectl watchrv probe measures it.": "h-misc",
}

// suggestionRe finds a command line written by hand: "kubectl watchrv
// VERB", or a VERB with a RESOURCE placeholder (which is not pasteable).
var suggestionRe = regexp.MustCompile(`kubectl watchrv (list|watch|probe|streaming|clients|explain-error|top)\b(?: [^ "]+){0,2}|\b(list|watch|probe|streaming) RESOURCE\b(?: [^ "]+)?|` + bareHint)

// bareHint is a hint that names a command without "kubectl watchrv" and
// goes on to say what it does ("probe --servers --metrics shows ..."): a
// reader pastes it, without the user's context. A flag named in prose
// ("with --servers:", "list --servers reads ...") is not a hint.
const bareHint = `\b(list|watch|probe|streaming|clients|top) (?:--[a-z][a-z-]*(?:=[^ "]+)? )+(shows|finds|tells|reads|says|measures|gives)\b`

// Issue 25 D16, as a class: every command line the plugin suggests is
// built by pkg/suggest, which carries the user's context. A string in cmd/
// or pkg/ that writes one by hand fails here, outside the help texts
// (Use, Short, Long, Example) and the tests; the ones left are listed with
// their owner.
func TestEverySuggestionGoesThroughSuggest(t *testing.T) {
	found := map[string]bool{}
	for _, root := range []string{".", "../../pkg"} {
		err := filepath.Walk(root, func(path string, info os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			rel := filepath.ToSlash(path)
			if strings.HasPrefix(rel, "../../") {
				rel = strings.TrimPrefix(rel, "../../")
			} else {
				rel = "cmd/kubectl-watchrv/" + rel
			}
			if info.IsDir() && rel == "pkg/suggest" {
				return filepath.SkipDir
			}
			if info.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
			if err != nil {
				return err
			}
			help := map[ast.Node]bool{}
			ast.Inspect(f, func(n ast.Node) bool {
				kv, ok := n.(*ast.KeyValueExpr)
				if !ok {
					return true
				}
				if id, ok := kv.Key.(*ast.Ident); ok && (id.Name == "Use" || id.Name == "Short" || id.Name == "Long" || id.Name == "Example") {
					ast.Inspect(kv.Value, func(m ast.Node) bool {
						help[m] = true
						return true
					})
				}
				return true
			})
			ast.Inspect(f, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING || help[lit] {
					return true
				}
				for _, m := range suggestionRe.FindAllString(lit.Value, -1) {
					m = strings.TrimSpace(m)
					if strings.HasSuffix(m, "--help") || strings.Contains(m, "completion") {
						continue
					}
					key := rel + ": " + m
					found[key] = true
					if _, ok := suggestionsLeft[key]; !ok {
						t.Errorf("%s writes the command %q by hand: build it with pkg/suggest (suggest.From and Context.Command), which carries the user's kubeconfig flags, namespace, selectors and NAME", rel, m)
					}
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for key, owner := range suggestionsLeft {
		if !found[key] {
			t.Errorf("%s (%s) no longer writes its command by hand: drop it from suggestionsLeft", key, owner)
		}
	}
}
