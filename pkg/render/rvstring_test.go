package render

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestEveryResourceVersionIsAStringInJSON: -o json and -o yaml have one
// schema, and in it an RV is a string, as the API carries it (fresh user
// try 49 F6: probe's one-shot rows gave "425", its --interval rounds 425).
// Every field of every output type whose JSON name is an RV
// (...ResourceVersion, oldestNamed) and whose Go type is a number is
// encoded as a string (the ",string" option).
func TestEveryResourceVersionIsAStringInJSON(t *testing.T) {
	checked := 0
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "test" || d.Name() == "bin" || d.Name() == "dist" || strings.HasPrefix(d.Name(), ".")) && path != "../.." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			field, ok := n.(*ast.Field)
			if !ok || field.Tag == nil || !numeric(field.Type) {
				return true
			}
			tag := reflect.StructTag(strings.Trim(field.Tag.Value, "`")).Get("json")
			name, opts, _ := strings.Cut(tag, ",")
			if !strings.HasSuffix(strings.ToLower(name), "resourceversion") && name != "oldestNamed" {
				return true
			}
			checked++
			if !strings.Contains(","+opts+",", ",string,") {
				t.Errorf("%s: the RV field %q is a JSON number: give it the \",string\" option", path, name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 5 {
		t.Fatalf("only %d numeric RV fields found: the walk missed the sources", checked)
	}
}

// numeric: an integer or float type, or a pointer to one.
func numeric(e ast.Expr) bool {
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	id, ok := e.(*ast.Ident)
	if !ok {
		return false
	}
	switch id.Name {
	case "int", "int64", "uint64", "uint32", "int32", "float64":
		return true
	}
	return false
}
