// Package validate is the reference validator: given SQL, a dialect and optionally a
// schema, it says whether the SQL is a valid, safe, read-only query and why not.
//
// Problems fall in four categories: "syntax" (the dialect's parser rejects the text; the
// problem carries the position), "schema" (a table or column the schema does not hold),
// "safety" (anything but one SELECT: writes, DDL, PRAGMA, ATTACH, several statements,
// functions that reach outside the database such as load_extension, tables outside the
// allow-list) and "other" (no statement at all, an unknown dialect). It parses with
// package sqlparse; a new check goes in this package as one more function over the
// parsed statements.
package validate

import (
	"fmt"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/sqlparse"
)

// Problem categories.
const (
	Syntax = "syntax"
	Schema = "schema"
	Safety = "safety"
	Other  = "other"
)

// Options configure a check.
type Options struct {
	// Dialect is sqlite (the default, ""), postgres, mysql or kql (Kusto Query
	// Language, checked by the rules of KQLRules).
	Dialect string
	// Schema, when set, enables the schema checks (unknown tables and columns).
	Schema *qeval.Schema
	// AllowTables, when not empty, lists the only tables a query may read; names
	// compare case-insensitively, with or without their schema.
	AllowTables []string
}

// Problem is one reason a query is not valid. Line and Col are 1-based, 0 when unknown.
type Problem struct {
	Category string `json:"category"`
	// Rule is the id and name of the rule that found the problem ("KQL002
	// external-data"); Level is LevelError or LevelWarning. Both are set by the KQL
	// rules only; a problem without a level is an error.
	Rule    string `json:"rule,omitempty"`
	Level   string `json:"level,omitempty"`
	Message string `json:"message"`
	Line    int    `json:"line,omitempty"`
	Col     int    `json:"col,omitempty"`
}

// Verdict is the validator's answer for one query.
type Verdict struct {
	Valid bool `json:"valid"`
	// Category is the category of the first problem, "" when valid.
	Category string    `json:"category,omitempty"`
	Problems []Problem `json:"problems"`
	// Warnings are findings that do not make the query invalid (KQL's advisory rules:
	// no time filter, unscoped search, unbounded mv-expand, a raw table dump).
	Warnings []Problem `json:"warnings,omitempty"`
	// Kind is the kind of the (first) statement: "select", "insert", "pragma", ...
	Kind string `json:"kind,omitempty"`
}

// Check validates sql. It never fails: whatever is wrong with the input is a problem
// in the verdict.
func Check(sql string, opt Options) Verdict {
	if strings.EqualFold(strings.TrimSpace(opt.Dialect), KQL) {
		return checkKQL(sql, opt)
	}
	v := Verdict{Problems: []Problem{}}
	pieces := sqlparse.Split(opt.Dialect, sql)
	if len(pieces) == 0 {
		return v.with(Problem{Category: Other, Message: "no statement in the query"})
	}
	v.Kind = pieces[0].Keyword
	stmts, err := sqlparse.ParseStatements(opt.Dialect, sql, opt.Schema)
	if err != nil {
		if qeval.ErrorCode(err) == qeval.CodeInvalid {
			return v.with(Problem{Category: Other, Message: qeval.ErrorMessage(err)})
		}
		return checkUnparsed(v, pieces, err)
	}
	if len(stmts) > 0 {
		v.Kind = stmts[0].Shape.Kind
	}
	if len(stmts) > 1 {
		v.add(Problem{Category: Safety, Line: stmts[1].Line, Col: stmts[1].Col,
			Message: fmt.Sprintf("%d statements in one query; only one is allowed", len(stmts))})
	}
	for _, st := range stmts {
		checkKind(&v, st)
		checkFuncs(&v, st)
		checkAllowed(&v, st, opt.AllowTables)
		checkSchema(&v, st)
	}
	return v.done()
}

// checkUnparsed reports a text the parser rejected. A statement that opens with a
// keyword that is never a read (ATTACH, PRAGMA, VACUUM ...) is a safety problem even
// when our grammar does not know that statement; the syntax error is reported unless
// it lies inside such a statement.
func checkUnparsed(v Verdict, pieces []sqlparse.Piece, err error) Verdict {
	var e *qeval.Error
	line, col := 0, 0
	if qe, ok := err.(*qeval.Error); ok {
		e = qe
		line, col = e.Line, e.Col
	}
	if len(pieces) > 1 {
		v.add(Problem{Category: Safety, Line: pieces[1].Line, Col: pieces[1].Col,
			Message: fmt.Sprintf("%d statements in one query; only one is allowed", len(pieces))})
	}
	inFlagged := false
	for i, p := range pieces {
		if p.Keyword == "" || readKeywords[p.Keyword] || !statementKeywords[p.Keyword] {
			// a word that starts no SQL statement (SELEC, FOO) is a syntax error, not a
			// forbidden statement
			continue
		}
		v.add(Problem{Category: Safety, Line: p.Line, Col: p.Col, Message: notAllowed(p.Keyword)})
		if after(line, col, p.Line, p.Col) && (i+1 == len(pieces) || !after(line, col, pieces[i+1].Line, pieces[i+1].Col)) {
			inFlagged = true
		}
	}
	if !inFlagged {
		v.add(Problem{Category: Syntax, Message: qeval.ErrorMessage(err), Line: line, Col: col})
	}
	return v.done()
}

// after says whether position (l, c) is at or after (pl, pc).
func after(l, c, pl, pc int) bool { return l > pl || l == pl && c >= pc }

// statementKeywords are the words that start an SQL statement other than a read, in
// any of the dialects: a query opening with one of them is a safety problem even where
// the grammar does not know the statement.
var statementKeywords = wordSet(`insert update delete replace merge upsert create drop alter truncate
		rename grant revoke attach detach pragma vacuum reindex analyze analyse begin start commit end
		rollback savepoint release set reset load copy call exec execute do lock unlock handler install
		uninstall flush kill shutdown import export use show describe desc explain prepare deallocate
		listen notify unlisten cluster checkpoint discard comment security refresh purge optimize repair
		backup restore checksum cache`)

func wordSet(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// readKeywords are the words a read-only query may start with.
var readKeywords = map[string]bool{"select": true, "with": true, "values": true, "table": true}

func notAllowed(kind string) string {
	return strings.ToUpper(strings.ReplaceAll(kind, "_", " ")) + " statements are not allowed; only SELECT is"
}

func checkKind(v *Verdict, st *sqlparse.Statement) {
	if st.Shape.Kind != "select" {
		v.add(Problem{Category: Safety, Line: st.Line, Col: st.Col, Message: notAllowed(st.Shape.Kind)})
	}
}

// unsafeFuncs reach outside the database, stall the server or change its state.
var unsafeFuncs = map[string]bool{
	// SQLite
	"load_extension": true, "readfile": true, "writefile": true, "edit": true, "fts3_tokenizer": true,
	// PostgreSQL
	"pg_read_file": true, "pg_read_binary_file": true, "pg_ls_dir": true, "pg_stat_file": true,
	"pg_sleep": true, "pg_sleep_for": true, "pg_sleep_until": true, "lo_import": true, "lo_export": true,
	"dblink": true, "dblink_exec": true, "pg_terminate_backend": true, "pg_cancel_backend": true,
	"set_config": true, "pg_reload_conf": true, "pg_advisory_lock": true, "query_to_xml": true,
	// MySQL
	"load_file": true, "sleep": true, "benchmark": true, "sys_exec": true, "sys_eval": true, "get_lock": true,
}

func checkFuncs(v *Verdict, st *sqlparse.Statement) {
	for _, f := range st.Funcs {
		name := f
		if i := strings.LastIndexByte(name, '.'); i >= 0 {
			name = name[i+1:]
		}
		if unsafeFuncs[name] {
			v.add(Problem{Category: Safety, Message: fmt.Sprintf("function %s() is not allowed", f)})
		}
	}
}

func checkAllowed(v *Verdict, st *sqlparse.Statement, allow []string) {
	if len(allow) == 0 {
		return
	}
	for _, t := range st.Shape.Tables {
		if !allowed(t, allow) {
			v.add(Problem{Category: Safety, Message: fmt.Sprintf("Table '%s' is not in the allowed tables", t)})
		}
	}
}

func allowed(table string, allow []string) bool {
	base := table
	if i := strings.LastIndexByte(table, '.'); i >= 0 {
		base = table[i+1:]
	}
	for _, a := range allow {
		if strings.EqualFold(a, table) || strings.EqualFold(a, base) {
			return true
		}
		if i := strings.LastIndexByte(a, '.'); i >= 0 && strings.EqualFold(a[i+1:], table) {
			return true
		}
	}
	return false
}

func checkSchema(v *Verdict, st *sqlparse.Statement) {
	for _, u := range st.Unresolved {
		p := Problem{Category: Schema, Line: u.Line, Col: u.Col}
		switch {
		case u.Ambiguous:
			p.Message = fmt.Sprintf("Column '%s' is ambiguous (in tables '%s')", u.Column, strings.Join(u.Scope, "', '"))
		case u.Column == "":
			p.Message = fmt.Sprintf("Table '%s' does not exist", u.Table)
		case u.Qualifier:
			p.Message = fmt.Sprintf("Table or alias '%s' does not exist (in %s.%s)", u.Table, u.Table, u.Column)
		case u.Table != "":
			p.Message = fmt.Sprintf("Column '%s' does not exist in table '%s'", u.Column, u.Table)
		case len(u.Scope) == 1:
			p.Message = fmt.Sprintf("Column '%s' does not exist in table '%s'", u.Column, u.Scope[0])
		case len(u.Scope) > 1:
			p.Message = fmt.Sprintf("Column '%s' does not exist in tables '%s'", u.Column, strings.Join(u.Scope, "', '"))
		default:
			p.Message = fmt.Sprintf("Column '%s' does not exist", u.Column)
		}
		v.add(p)
	}
}

// add appends p unless the same message is already there.
func (v *Verdict) add(p Problem) {
	for _, q := range v.Problems {
		if q.Category == p.Category && q.Message == p.Message {
			return
		}
	}
	v.Problems = append(v.Problems, p)
}

func (v Verdict) with(p Problem) Verdict {
	v.add(p)
	return v.done()
}

func (v Verdict) done() Verdict {
	v.Valid = len(v.Problems) == 0
	v.Category = ""
	if !v.Valid {
		v.Category = v.Problems[0].Category
	}
	return v
}
