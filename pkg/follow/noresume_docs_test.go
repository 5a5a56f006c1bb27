package follow

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"
)

// Every value the summary's noResumePoint can take (a NoResume* constant
// of this package) is in docs/watch.md's list of them (adversary try 44 E:
// "state-end-rv-unusable" was not). The constants are read from the
// package's sources, so a new one fails here until it is documented.
func TestEveryNoResumePointIsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/watch.md")
	if err != nil {
		t.Fatal(err)
	}
	const head = "`noResumePoint` (why none: "
	i := strings.Index(string(doc), head)
	if i < 0 {
		t.Fatalf("docs/watch.md has no %q", head)
	}
	list := string(doc[i:])
	list = list[:strings.IndexByte(list, '\n')]
	pkgs, err := parser.ParseDir(token.NewFileSet(), ".", func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, p := range pkgs {
		for _, f := range p.Files {
			ast.Inspect(f, func(n ast.Node) bool {
				vs, ok := n.(*ast.ValueSpec)
				if !ok {
					return true
				}
				for k, name := range vs.Names {
					if !strings.HasPrefix(name.Name, "NoResume") || k >= len(vs.Values) {
						continue
					}
					lit, ok := vs.Values[k].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						continue
					}
					v, err := strconv.Unquote(lit.Value)
					if err != nil {
						t.Fatal(err)
					}
					seen++
					if !strings.Contains(list, "`"+v+"`") {
						t.Errorf("%s (%q) is not in docs/watch.md's noResumePoint values", name.Name, v)
					}
				}
				return true
			})
		}
	}
	if seen < 10 {
		t.Fatalf("only %d NoResume* constants found: the test does not read what it checks", seen)
	}
}
