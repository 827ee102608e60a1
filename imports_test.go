package qeval_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/qeval/qeval"

// allowed lists, for each package of the module, the module packages its non-test code
// may import. Arrows point at the root; only registry/ ties adapters together; nothing
// imports cmd/ or server/; mock/ and qevaltest/ are for tests only. A new package gets
// a line here (see ../shared/STYLE.md, "The dependency rule").
var allowed = map[string][]string{
	"":                  {},
	"compare":           {""},
	"sqlite":            {""},
	"postgres":          {"", "internal/sqlguard"},
	"mysql":             {"", "internal/sqlguard"},
	"internal/sqlguard": {""},
	"kusto":             {""},
	"kql":               {""},
	"sqlparse":          {""},
	"validate":          {"", "sqlparse"},
	"suite":             {""},
	"execmatch":         {"", "compare", "sqlite"}, // SQLite is the embedded default executor
	"metric":            {"", "sqlparse", "validate", "kql"},
	"judge":             {"", "internal/cache"},
	"internal/cache":    {},
	"llm/anthropic":     {""},
	"llm/openai":        {""},
	"report":            {"", "metric"},
	"xlsx":              {""},
	"kqlexec":           {"", "kql", "sqlite"},
	"testsuite":         {"", "compare"}, // plus github.com/rqlite/sql, whose syntax tree it mutates; databases only through qeval.Opener and Options.Create
	"runner":            {"", "compare", "execmatch", "metric", "sqlparse", "kql", "kqlexec", "validate", "judge", "suite"},
	"mock":              {""},
	"qevaltest":         {"", "mock"},
	"internal/testdata": {},
}

// anyButCmd are packages that may import any module package except cmd/ and server/.
var anyButCmd = map[string]bool{"registry": true, "server": true, "cmd/qeval": true}

func TestImports_DependencyRule(t *testing.T) {
	fset := token.NewFileSet()
	seen := map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "examples" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			return nil
		}
		pkg := filepath.ToSlash(filepath.Dir(path))
		if pkg == "." {
			pkg = ""
		}
		seen[pkg] = true
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			check(t, path, pkg, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var unknown []string
	for pkg := range seen {
		if _, ok := allowed[pkg]; !ok && !anyButCmd[pkg] {
			unknown = append(unknown, pkg)
		}
	}
	sort.Strings(unknown)
	for _, pkg := range unknown {
		t.Errorf("package %q is not in the dependency table of imports_test.go: add a line saying what it may import", pkg)
	}
}

func check(t *testing.T, file, pkg, imp string) {
	t.Helper()
	internal := imp == module || strings.HasPrefix(imp, module+"/")
	if !internal {
		// the root imports only the standard library (whose paths have no dot)
		if pkg == "" && strings.Contains(strings.SplitN(imp, "/", 2)[0], ".") {
			t.Errorf("%s: the root package imports %q; it may import only the standard library", file, imp)
		}
		return
	}
	target := strings.TrimPrefix(strings.TrimPrefix(imp, module), "/")
	if target == "mock" || target == "qevaltest" {
		if pkg != "qevaltest" {
			t.Errorf("%s: %q is for tests only", file, imp)
		}
		return
	}
	if strings.HasPrefix(target, "cmd/") || target == "server" && pkg != "cmd/qeval" {
		t.Errorf("%s: nothing imports %q", file, imp)
		return
	}
	if anyButCmd[pkg] {
		return
	}
	for _, ok := range allowed[pkg] {
		if ok == target {
			return
		}
	}
	if _, known := allowed[pkg]; known {
		t.Errorf("%s: package %q may not import %q (allowed: %v)", file, pkg, imp, allowed[pkg])
	}
}
