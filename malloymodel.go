package qeval

import (
	"path/filepath"
	"strings"
)

// DialectMalloy is the dialect of a suite whose generated queries are Malloy: each is
// compiled with the suite's (or the case's) Malloy model, then run and scored as SQL.
const DialectMalloy = "malloy"

// MalloyModel names a Malloy model and the database its sources read. In a suite
// file it is `malloy_model: {files: [...], connection: ...}`, at suite or case level.
type MalloyModel struct {
	// Files are the model's .malloy files, relative to the suite. Several files make
	// one model (each may import the others); "{db}" stands for the case's database
	// name (concert_singer.malloy for {db}.malloy).
	Files []string `json:"files" yaml:"files"`
	// Connection is the database the model's sources read, where compiled queries
	// run: duckdb:FILE, duckdb:DIR (DIR/<db>.duckdb, as qeval mirror writes them),
	// postgres://…, mysql://…, a --db name, or mirror:duckdb (the case's SQLite
	// database copied into DuckDB by qeval, kept in the user cache). "{db}" stands for
	// the case's database name.
	Connection string `json:"connection" yaml:"connection"`
}

// MirrorDuckDB is the connection of a Malloy model that reads the case's own SQLite
// database copied into DuckDB (qeval keeps the copy, keyed by the file's content).
const MirrorDuckDB = "mirror:duckdb"

// MalloyModelFor is the Malloy model of a case: its own, else the suite's, with
// "{db}" replaced by the name of the case's database (its file or folder name without
// extension); nil when neither has one.
func (s *Suite) MalloyModelFor(c Case) *MalloyModel {
	m := s.MalloyModel
	if c.MalloyModel != nil {
		m = c.MalloyModel
	}
	if m == nil {
		return nil
	}
	db := c.Database
	if db == "" {
		db = s.Database
	}
	name := ""
	if db != "" {
		name = filepath.Base(strings.TrimRight(db, `/\`))
		name = strings.TrimSuffix(name, filepath.Ext(name))
	}
	out := &MalloyModel{Connection: strings.ReplaceAll(m.Connection, "{db}", name)}
	for _, f := range m.Files {
		out.Files = append(out.Files, strings.ReplaceAll(f, "{db}", name))
	}
	return out
}

// IsMalloyQuery reports whether a query of a Malloy suite is Malloy rather than SQL:
// it starts with run: or query: (after blank lines and comments), or is the bare name
// of a query of the model. An expected query that is not is SQL on the case's database.
func IsMalloyQuery(q string) bool {
	q = skipLineComments(q)
	if strings.HasPrefix(q, "run:") || strings.HasPrefix(q, "query:") {
		return true
	}
	if q == "" {
		return false
	}
	for i, r := range q {
		if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9' {
			continue
		}
		return false
	}
	return !strings.EqualFold(q, "select") && !strings.EqualFold(q, "with")
}

// IsSQLQuery reports whether a query of a Malloy suite is SQL: its first word (after
// blank lines and comments) is SELECT or WITH. A case of a Malloy suite whose
// generated and expected queries are both SQL runs as SQL on the case's database
// (a system that answers some questions in SQL).
func IsSQLQuery(q string) bool {
	q = skipLineComments(q)
	q = strings.TrimLeft(q, "(")
	word, _, _ := strings.Cut(strings.TrimSpace(q), " ")
	word, _, _ = strings.Cut(word, "\n")
	return strings.EqualFold(word, "select") || strings.EqualFold(word, "with")
}

// CompiledQuery is a Malloy query compiled: the SQL its compiler wrote for the
// connection's dialect and the query as the compiler describes it.
type CompiledQuery struct {
	SQL string `json:"sql"`
	// Dialect is the SQL dialect of SQL: duckdb, postgres, mysql.
	Dialect string `json:"dialect"`
	// Shape is the query's structure (Dialect "malloy", Source "compiler"): the tables
	// its sources read, filters, aggregates, grouping, order and limit, and the Malloy
	// part (the source, joins, the model's measures and dimensions used or re-derived).
	Shape *Shape `json:"shape"`
	// CompileMS is the compiler's own time for the query (not counting a wait for
	// the compiler, or parsing the model the first time).
	CompileMS float64 `json:"compile_ms,omitempty"`
	// ShapeError, when the compiler's description could not be read, says why (Shape
	// is then nil; the SQL is still right).
	ShapeError string `json:"shape_error,omitempty"`
}

// MalloyShape is the Malloy part of a compiled query's Shape, as the compiler
// describes it. Expressions are written as short Malloy text with the model's
// measures and dimensions expanded (count(), avg(Age), concert.count()), so two
// queries that compute the same thing by other names compare equal.
type MalloyShape struct {
	// Source is the model source the query runs on; Joins the joins it goes through.
	Source string   `json:"source"`
	Joins  []string `json:"joins,omitempty"`
	// Stages is the number of stages of its pipeline.
	Stages     int      `json:"stages"`
	GroupBy    []string `json:"group_by,omitempty"`
	Aggregates []string `json:"aggregates,omitempty"`
	// Filters are its conditions, split on and.
	Filters []string `json:"filters,omitempty"`
	// OrderBy are the orderings it asked for ("Age desc"), not Malloy's default one.
	OrderBy []string `json:"order_by,omitempty"`
	Limit   string   `json:"limit,omitempty"`
	// Used are the model's measures and dimensions the query named; Rederived the
	// places where it computed one of them inline instead; Declared every one it could
	// have used (its source's and its joins').
	Used      []ModelField `json:"used,omitempty"`
	Rederived []Rederived  `json:"rederived,omitempty"`
	Declared  []ModelField `json:"declared,omitempty"`
}

// ModelField is a measure or dimension a Malloy model declares.
type ModelField struct {
	// Name is its path from the query's source (concert.concert_count).
	Name string `json:"name"`
	Kind string `json:"kind"` // "measure" or "dimension"
	// Expr is what it computes, expanded (count()).
	Expr string `json:"expr,omitempty"`
}

// Rederived is a place where a query computed inline what the model declares.
type Rederived struct {
	// Field is the query's own field it appears in ("" in a filter).
	Field string `json:"field,omitempty"`
	// Expr is what it computed; ModelField the model's field that computes it.
	Expr       string `json:"expr"`
	ModelField string `json:"model_field"`
	Kind       string `json:"kind"`
	Line       int    `json:"line,omitempty"`
	Col        int    `json:"col,omitempty"`
}

// skipLineComments drops the blank lines and the // or -- comment lines a query starts
// with ("" when nothing else follows).
func skipLineComments(q string) string {
	for {
		q = strings.TrimSpace(q)
		if !strings.HasPrefix(q, "//") && !strings.HasPrefix(q, "--") {
			return q
		}
		_, rest, ok := strings.Cut(q, "\n")
		if !ok {
			return ""
		}
		q = rest
	}
}
