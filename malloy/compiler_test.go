package malloy_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/malloy"
	"github.com/qeval/qeval/registry"
)

// needNode skips a test that runs the real compiler where Node.js is not installed.
func needNode(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed (Debian's nodejs and npm; .ci/run installs them): the Malloy compiler runs in Node.js")
	}
}

var (
	mirrorOnce sync.Once
	mirrorDir  string
	mirrorErr  error
)

// mirror copies the bundled Spider databases concert_singer and pets_1 into DuckDB
// once for the package's tests.
func mirror(t *testing.T) string {
	t.Helper()
	mirrorOnce.Do(func() {
		mirrorDir, mirrorErr = os.MkdirTemp("", "qeval-malloy-test-")
		if mirrorErr != nil {
			return
		}
		srcs, err := registry.MirrorSources(filepath.Join("..", "examples", "spider", "database"))
		if err != nil {
			mirrorErr = err
			return
		}
		_, mirrorErr = registry.Mirror(context.Background(), "duckdb:"+mirrorDir, srcs, registry.MirrorOptions{Replace: true})
	})
	if mirrorErr != nil {
		t.Fatal(mirrorErr)
	}
	return mirrorDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, ex := range execs {
		ex.Close()
	}
	if shared != nil {
		shared.Close()
	}
	if mirrorDir != "" {
		os.RemoveAll(mirrorDir)
	}
	os.Exit(code)
}

// source resolves a DuckDB file as a run's catalog does.
func source(t *testing.T, file string) *qeval.Source {
	t.Helper()
	src, err := (&registry.Catalog{}).Resolve(context.Background(), "duckdb:"+file, "sql")
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// model is a Malloy model: its files and the connection its sources read, open.
type model struct {
	files []string
	conn  *qeval.Source
	ex    qeval.Executor
}

var (
	execMu sync.Mutex
	execs  = map[string]qeval.Executor{}
)

// executor opens a source once for the package's tests.
func executor(t *testing.T, src *qeval.Source) qeval.Executor {
	t.Helper()
	execMu.Lock()
	defer execMu.Unlock()
	if ex := execs[src.Files[0]]; ex != nil {
		return ex
	}
	ex, err := src.Open(src.Files[0], qeval.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	execs[src.Files[0]] = ex
	return ex
}

func concertModel(t *testing.T) model {
	src := source(t, filepath.Join(mirror(t), "concert_singer.duckdb"))
	return model{files: []string{filepath.Join("..", "examples", "malloy", "concert_singer.malloy")}, conn: src, ex: executor(t, src)}
}

var (
	compilerOnce sync.Once
	shared       *malloy.Compiler
)

// compiler is one real compiler for the package's tests (a model is parsed once).
func compiler(t *testing.T) *malloy.Compiler {
	t.Helper()
	needNode(t)
	compilerOnce.Do(func() { shared = &malloy.Compiler{Notify: func(s string) { t.Log(s) }} })
	return shared
}

func TestCompile_SQLAndShape(t *testing.T) {
	c := compiler(t)
	m := concertModel(t)
	cq, err := c.Compile(context.Background(), m.files, m.conn, m.ex, "run: singer -> { where: Country = 'France'; group_by: Name; aggregate: singer_count, n is count(); order_by: Name desc; limit: 3 }")
	if err != nil {
		t.Fatal(err)
	}
	if cq.Dialect != "duckdb" || !strings.Contains(cq.SQL, "FROM singer") || !strings.Contains(cq.SQL, "LIMIT 3") {
		t.Fatalf("Compile: %s SQL\n%s", cq.Dialect, cq.SQL)
	}
	s := cq.Shape
	if s == nil || s.Malloy == nil {
		t.Fatalf("no shape (%s)", cq.ShapeError)
	}
	if s.Malloy.Source != "singer" || !slices.Equal(s.Tables, []string{"singer"}) {
		t.Errorf("source %q tables %v, want singer", s.Malloy.Source, s.Tables)
	}
	if !slices.Equal(s.Malloy.GroupBy, []string{"Name"}) || !slices.Equal(s.Malloy.Aggregates, []string{"count()", "count()"}) {
		t.Errorf("group_by %v aggregates %v", s.Malloy.GroupBy, s.Malloy.Aggregates)
	}
	if !slices.Equal(s.Malloy.Filters, []string{"Country = 'France'"}) || len(s.Filters) != 1 || s.Filters[0].Column != "Country" || s.Filters[0].Value != "'France'" {
		t.Errorf("filters %v / %+v", s.Malloy.Filters, s.Filters)
	}
	if !slices.Equal(s.Malloy.OrderBy, []string{"Name desc"}) || s.Malloy.Limit != "3" {
		t.Errorf("order %v limit %q", s.Malloy.OrderBy, s.Malloy.Limit)
	}
	if len(s.Malloy.Used) != 1 || s.Malloy.Used[0].Name != "singer_count" || s.Malloy.Used[0].Kind != "measure" {
		t.Errorf("used %+v, want the measure singer_count", s.Malloy.Used)
	}
	if len(s.Malloy.Rederived) != 1 || s.Malloy.Rederived[0].ModelField != "singer_count" || s.Malloy.Rederived[0].Field != "n" || s.Malloy.Rederived[0].Line != 1 {
		t.Errorf("rederived %+v, want n re-deriving singer_count", s.Malloy.Rederived)
	}
	// the SQL runs on the connection
	rs, err := m.ex.Query(context.Background(), cq.SQL)
	if err != nil {
		t.Fatalf("run the compiled SQL: %v\n%s", err, cq.SQL)
	}
	if len(rs.Rows) == 0 || len(rs.Columns) != 3 {
		t.Errorf("result %+v", rs)
	}
}

func TestCompile_Joins(t *testing.T) {
	c := compiler(t)
	cq, err := c.Compile(context.Background(), concertModel(t).files, concertModel(t).conn, concertModel(t).ex, "run: singer_in_concert -> { where: concert.`Year` = '2014'; group_by: singer.Name; aggregate: concert.concert_count }")
	if err != nil {
		t.Fatal(err)
	}
	s := cq.Shape
	if !slices.Equal(s.Malloy.Joins, []string{"concert", "singer"}) {
		t.Errorf("joins %v", s.Malloy.Joins)
	}
	if !slices.Equal(s.Tables, []string{"singer_in_concert", "concert", "singer"}) {
		t.Errorf("tables %v", s.Tables)
	}
	if len(s.Malloy.Used) != 1 || s.Malloy.Used[0].Name != "concert.concert_count" {
		t.Errorf("used %+v", s.Malloy.Used)
	}
}

func TestCompile_Errors(t *testing.T) {
	c := compiler(t)
	m := concertModel(t)
	for _, tc := range []struct {
		name, query string
		line, col   int
		want        string
	}{
		{"Syntax", "run: singer -> { group_by: Name ", 1, 33, "syntax error"},
		{"UnknownField", "run: singer -> { group_by: Nmae }", 1, 28, "unknown field or join 'Nmae'"},
		{"UnknownJoin", "run: concert -> { group_by: stadum.Name }", 1, 29, "'stadum'"},
		{"UnknownSource", "run: singers -> { group_by: Name }", 1, 6, "unknown source or query 'singers'"},
		{"SecondLine", "run: singer -> {\n  group_by: Name\n  aggregate: nope }", 3, 14, "'nope'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.Compile(context.Background(), m.files, m.conn, m.ex, tc.query)
			var qe *qeval.Error
			if !errors.As(err, &qe) || qe.Code != qeval.CodeCompile {
				t.Fatalf("Compile(%q) = %v, want a compile error", tc.query, err)
			}
			if qe.Line != tc.line || qe.Col != tc.col || !strings.Contains(qe.Message, tc.want) {
				t.Errorf("Compile(%q) = line %d col %d %q, want line %d col %d with %q", tc.query, qe.Line, qe.Col, qe.Message, tc.line, tc.col, tc.want)
			}
		})
	}
}

func TestCompile_BadModel(t *testing.T) {
	c := compiler(t)
	dir := t.TempDir()
	conn := source(t, filepath.Join(mirror(t), "concert_singer.duckdb"))
	ex := executor(t, conn)
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		name  string
		files []string
		code  qeval.Code
		want  string
	}{
		{"Missing", []string{filepath.Join(dir, "nope.malloy")}, qeval.CodeNotFound, "nope.malloy: no such file"},
		{"DoesNotCompile", []string{write("broken.malloy", "source: s is duckdb.table('singer') extend {\n  measure: n is count(\n}\n")}, qeval.CodeInvalid, "broken.malloy:"},
		{"TableAbsent", []string{write("absent.malloy", "source: s is duckdb.table('singers') extend { measure: n is count() }\n")}, qeval.CodeInvalid, "table 'singers' is not in"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.Compile(context.Background(), tc.files, conn, ex, "run: s -> { aggregate: n }")
			if qeval.ErrorCode(err) != tc.code || !strings.Contains(qeval.ErrorMessage(err), tc.want) {
				t.Fatalf("Compile = %v (%s), want %s with %q", err, qeval.ErrorCode(err), tc.code, tc.want)
			}
		})
	}
	// a model of several files: one imports the other
	base := write("base.malloy", "source: s is duckdb.table('singer') extend { measure: n is count() }\n")
	views := write("views.malloy", "import \"base.malloy\"\nsource: s2 is s extend { dimension: old is Age > 40 }\n")
	cq, err := c.Compile(context.Background(), []string{base, views}, conn, ex, "run: s2 -> { group_by: old; aggregate: n }")
	if err != nil {
		t.Fatalf("a model of two files: %v", err)
	}
	if len(cq.Shape.Malloy.Used) != 2 {
		t.Errorf("used %+v, want old and n", cq.Shape.Malloy.Used)
	}
}
