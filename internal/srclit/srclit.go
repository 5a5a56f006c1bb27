// Package srclit reads the string literals of the plugin's own Go sources,
// for the tests that hold every text the plugin writes to one rule (plurals
// that agree, flags named only where the plugin speaks).
package srclit

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
)

// Literal is one string literal of a source file: its file, relative to
// the repository's root, the line it starts on, and its value as written
// (quoted).
type Literal struct {
	File  string
	Line  int
	Value string
}

// Walk calls visit with every string literal of the Go files (tests aside)
// under each of dirs, which are relative to root, the repository's root as
// the calling test sees it ("../.."). skip, when not nil, leaves out the
// directories whose path relative to root it reports.
func Walk(root string, dirs []string, skip func(rel string) bool, visit func(Literal)) error {
	for _, dir := range dirs {
		err := filepath.Walk(filepath.Join(root, dir), func(path string, info os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			rel = filepath.ToSlash(rel)
			if info.IsDir() {
				if skip != nil && skip(rel) {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				return err
			}
			ast.Inspect(f, func(n ast.Node) bool {
				if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					visit(Literal{File: rel, Line: fset.Position(lit.Pos()).Line, Value: lit.Value})
				}
				return true
			})
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}
