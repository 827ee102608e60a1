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
	"":                       {},
	"compare":                {"", "internal/lexbyte"},
	"sqlite":                 {"", "internal/lexbyte"},
	"postgres":               {"", "internal/sqlguard", "internal/lexbyte"},
	"mysql":                  {"", "internal/sqlguard", "internal/lexbyte"},
	"internal/lexbyte":       {}, // the word bytes the hand-written scanners share
	"internal/sqlguard":      {""},
	"kusto":                  {""},
	"duckdb":                 {""},
	"malloy":                 {""}, // the Node bridge to the official Malloy compiler; connections come in as qeval.Source
	"clickhouse":             {""},
	"kql":                    {"", "internal/lexbyte"},
	"sqlparse":               {""},
	"validate":               {"", "sqlparse", "internal/sqlguard", "kql"},
	"suite":                  {"", "internal/lines"},
	"internal/lines":         {},
	"execmatch":              {"", "compare", "stateful"},
	"stateful":               {"", "compare", "sqlparse"}, // stateful cases: sandboxes come in through qeval.Source
	"exactmatch":             {""},                        // Spider exact-set-match: pure, schemas come in as qeval.Schema
	"errclass":               {"", "sqlparse", "kql"},     // error classes from both queries' syntax trees and the engine's message
	"metric":                 {"", "sqlparse", "validate", "kql", "exactmatch", "internal/lexbyte", "internal/lines"},
	"judge":                  {"", "internal/cache"},
	"judgeeval":              {"", "errclass", "judge", "metric", "internal/lines"}, // a judge measured against labels
	"internal/cache":         {"", "sqlite"},                                        // the local cache is a SQLite file, opened through sqlite/; the shared one Redis
	"llm/anthropic":          {""},
	"llm/openai":             {""},
	"report":                 {"", "metric"},
	"xlsx":                   {""},
	"kqlexec":                {"", "kql", "sqlite", "kqlexec/internal/geom"},
	"kqlexec/internal/geom":  {},              // spherical geometry of the geo functions: S2, H3, geohash; no KQL
	"kqlexec/internal/gentz": {},              // go generate: writes timezones.go from the toolchain's zoneinfo.zip
	"bird":                   {"", "compare"}, // executors come in through a qeval.Opener
	"resultcsv":              {""},
	"spider2":                {"", "compare", "resultcsv"},
	"testsuite":              {"", "compare"},                        // plus github.com/rqlite/sql, whose syntax tree it mutates; databases only through qeval.Opener and Options.Create
	"audit":                  {"", "compare", "testsuite", "verify"}, // gold audit: queries through qeval.Source, syntax trees through testsuite, counterexamples as verify writes them
	"verify":                 {"", "compare", "testsuite"},           // counterexamples and bounded proofs: databases through Options' functions, the solver through Prover
	"equiv":                  {"", "testsuite", "verify", "z3"},      // the bounded model of two queries (verify.Prover), solved by Z3
	"z3":                     {},                                     // cgo binding of Z3's C library (libz3-dev), nothing of SQL
	"runner":                 {"", "compare", "errclass", "execmatch", "metric", "internal/lines", "internal/proclimit"},
	"shard":                  {"", "report", "runner"},                                                    // splitting runs into parts and merging their reports
	"spider":                 {"", "compare", "errclass", "exactmatch", "execmatch", "sqlparse", "suite"}, // engines come in through qeval.BenchmarkEnv
	"internal/proclimit":     {""},
	"internal/progress":      {""},
	"internal/residency":     {},
	"internal/lazyregexp":    {}, // any package may import it, as the standard library's regexp (see check)
	"mock":                   {""},
	"qevaltest":              {"", "mock"},
	"internal/testdata":      {},
	"internal/skips":         {}, // go test -json ./... | go run ./internal/skips: what was skipped and why
	// only registry/ imports every adapter (sqlite, duckdb, postgres, mysql, clickhouse,
	// kusto, kqlexec); cmd/ and server/ reach them through it
	"registry": {"", "clickhouse", "duckdb", "kqlexec", "kusto", "mysql", "postgres", "sqlite",
		"llm/anthropic", "llm/openai", "report", "xlsx", "sqlparse", "validate", "testsuite", "judge",
		"internal/cache", "bird", "spider", "spider2", "verify", "equiv", "compare", "malloy"},
	"server": {"", "registry", "runner", "suite", "metric", "report", "audit", "compare", "execmatch", "sqlparse"},
	"cmd/qeval": {"", "registry", "server", "audit", "bird", "compare", "execmatch", "internal/cache",
		"internal/lines", "internal/proclimit", "internal/progress", "internal/residency", "judge", "kql", "metric",
		"report", "runner", "shard", "spider", "sqlparse", "suite", "testsuite", "validate", "verify", "malloy", "judgeeval"},
}

// outside lists, for each package, the modules outside the standard library its
// non-test code may import (by module path prefix): an adapter wraps one library of
// its field; pure packages import none. golang.org/x/sync is allowed everywhere (the
// errgroup of bounded runs). A package missing here may import no outside module.
var outside = map[string][]string{
	"sqlite":        {"github.com/mattn/go-sqlite3"}, // the SQLite driver lives here alone
	"postgres":      {"github.com/jackc/pgx/v5"},
	"duckdb":        {"github.com/duckdb/duckdb-go/v2"},
	"clickhouse":    {"github.com/ClickHouse/clickhouse-go/v2"},
	"mysql":         {"github.com/go-sql-driver/mysql"},
	"kusto":         {"github.com/Azure/azure-kusto-go/azkustodata"},
	"llm/anthropic": {"github.com/anthropics/anthropic-sdk-go"},
	"llm/openai":    {"github.com/openai/openai-go/v3"},
	// the shared cache backend beside the SQLite file
	"internal/cache": {"github.com/redis/go-redis/v9"},
	// one real parser per SQL dialect (and the protobuf runtime pg_query's tree comes in)
	"sqlparse": {"github.com/rqlite/sql", "github.com/pganalyze/pg_query_go/v6", "github.com/pingcap/tidb/pkg/parser", "google.golang.org/protobuf"},
	// the KQL engine's geo functions: S2 cells, H3 cells, and IDNA for URL parsing
	"kqlexec":               {"github.com/cespare/xxhash/v2", "github.com/golang/geo", "github.com/uber/h3-go/v4", "golang.org/x/net/idna", "github.com/ua-parser/uap-go"},
	"kqlexec/internal/geom": {"github.com/golang/geo", "github.com/uber/h3-go/v4"},
	"suite":                 {"go.yaml.in/yaml/v3"},
	// SARIF output of the validator's findings, for code-scanning tools
	"validate": {"github.com/owenrumney/go-sarif/v3"},
	// test suites mutate the gold's syntax tree (the SQLite grammar sqlparse also uses)
	"testsuite": {"github.com/rqlite/sql"},
	// the bounded model reads both queries with the same SQLite grammar
	"equiv":     {"github.com/rqlite/sql"},
	"server":    {"go.yaml.in/yaml/v3"},
	"registry":  {},
	"cmd/qeval": {},
}

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
		if _, ok := allowed[pkg]; !ok {
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
		// the standard library's paths have no dot in their first element
		if !strings.Contains(strings.SplitN(imp, "/", 2)[0], ".") || strings.HasPrefix(imp, "golang.org/x/sync/") {
			return
		}
		if pkg == "" {
			t.Errorf("%s: the root package imports %q; it may import only the standard library", file, imp)
			return
		}
		for _, m := range outside[pkg] {
			if imp == m || strings.HasPrefix(imp, m+"/") {
				return
			}
		}
		t.Errorf("%s: package %q may not import the outside module %q (allowed: %v); an adapter wraps one library, pure packages none", file, pkg, imp, outside[pkg])
		return
	}
	target := strings.TrimPrefix(strings.TrimPrefix(imp, module), "/")
	if target == "internal/lazyregexp" && pkg != "" {
		return // regexp compiled on first use: a leaf of the standard library's kind
	}
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
	for _, ok := range allowed[pkg] {
		if ok == target {
			return
		}
	}
	if _, known := allowed[pkg]; known {
		t.Errorf("%s: package %q may not import %q (allowed: %v)", file, pkg, imp, allowed[pkg])
	}
}
