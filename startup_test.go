package qeval_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// Every package linked into qeval is initialised at every start of every command, so a
// regular expression compiled by a package-level variable's initializer costs each
// command its compilation, used or not. Such variables use internal/lazyregexp, which
// compiles on first use; compiling inside a function (including a sync.OnceValue's)
// is fine.
func TestStartup_NoRegexpCompiledAtInit(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules" || path == filepath.Join("internal", "lazyregexp")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			return nil
		}
		for _, decl := range f.Decls {
			if gd, ok := decl.(*ast.GenDecl); ok && gd.Tok == token.VAR {
				for _, spec := range gd.Specs {
					for _, v := range spec.(*ast.ValueSpec).Values {
						if pos, ok := eagerRegexp(v); ok {
							t.Errorf("%s: a package-level variable compiles a regular expression at start-up: use lazyregexp.New", fset.Position(pos))
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// eagerRegexp finds a call of regexp.MustCompile or regexp.Compile in the initializer
// e outside function literals.
func eagerRegexp(e ast.Expr) (token.Pos, bool) {
	var at token.Pos
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == "regexp" && (sel.Sel.Name == "MustCompile" || sel.Sel.Name == "Compile") && at == token.NoPos {
					at = n.Pos()
				}
			}
		}
		return true
	})
	return at, at != token.NoPos
}
