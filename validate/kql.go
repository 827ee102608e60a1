package validate

import (
	"fmt"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/kql"
)

// KQL is the dialect name of Kusto Query Language for Options.Dialect.
const KQL = "kql"

// Levels of a problem: an error makes the query invalid, a warning does not.
const (
	LevelError   = "error"
	LevelWarning = "warning"
)

// Rule is one KQL safety rule: its id, the level of what it finds, and what it checks.
type Rule struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Level       string `json:"level"`
	Description string `json:"description"`
}

// KQLRules are the rules checkKQL applies, in the order they are reported.
var KQLRules = []Rule{
	{"KQL001", "management-command", LevelError,
		"a management (control) command such as .drop, .set, .ingest or .alter: a generated query may only read"},
	{"KQL002", "external-data", LevelError,
		"data from outside the database: externaldata, external_table(), or a plugin that calls out (http_request, sql_request, python, ...)"},
	{"KQL003", "cross-scope", LevelWarning,
		"cluster() or database(): the query reaches past the database it was generated for"},
	{"KQL004", "unscoped-search", LevelWarning,
		"search, find or union over every table (no in (...) scope, union *, or a wildcard table name)"},
	{"KQL005", "unbounded-mv-expand", LevelWarning,
		"mv-expand without limit: one row can become as many rows as its largest array"},
	{"KQL006", "no-time-filter", LevelWarning,
		"a table with a datetime column is read without a filter on a datetime column"},
	{"KQL007", "raw-table-dump", LevelWarning,
		"a table is returned row for row with no take, limit, top, filter or aggregation"},
}

func kqlRule(id string) Rule {
	for _, r := range KQLRules {
		if r.ID == id {
			return r
		}
	}
	panic("validate: unknown rule " + id)
}

// externalPlugins are the plugins that read or call outside the database.
var externalPlugins = map[string]bool{
	"http_request": true, "http_request_post": true, "sql_request": true, "mysql_request": true,
	"postgresql_request": true, "cosmosdb_sql_request": true, "azure_digital_twins_query_request": true,
	"python": true, "r": true, "ai_embeddings": true, "ai_chat_completion": true,
	"ai_chat_completion_prompt": true, "infer_storage_schema": true, "infer_storage_schema_with_suggestions": true,
}

// rowReducers are the operators after which a pipeline no longer returns its table
// row for row.
var rowReducers = map[string]bool{
	"where": true, "filter": true, "take": true, "limit": true, "top": true, "summarize": true,
	"count": true, "distinct": true, "sample": true, "sample-distinct": true, "top-nested": true,
	"top-hitters": true, "make-series": true, "parse-where": true, "join": true, "lookup": true,
	"search": true, "reduce": true, "evaluate": true, "partition": true, "facet": true, "scan": true,
	"getschema": true,
}

// checkKQL validates a KQL query: syntax (the kql parser's errors with positions) and
// the rules of KQLRules. With a schema, table names feed the time-filter rule.
func checkKQL(query string, opt Options) Verdict {
	v := Verdict{Problems: []Problem{}}
	if strings.TrimSpace(stripKQLComments(query)) == "" {
		return v.with(Problem{Category: Other, Message: "no statement in the query"})
	}
	if line, col, cmd, ok := managementCommand(query); ok {
		v.Kind = "command"
		return v.with(ruleProblem("KQL001", line, col, fmt.Sprintf("%s is a management command; a generated query may only read", cmd)))
	}
	script, err := kql.Parse(query)
	if err != nil {
		if l, ok := err.(kql.ErrorList); ok && len(l) > 0 {
			for _, e := range l {
				v.add(Problem{Category: Syntax, Message: e.Message, Line: e.Line, Col: e.Col})
			}
			return v.done()
		}
		return v.with(Problem{Category: Syntax, Message: err.Error()})
	}
	v.Kind = "query"
	c := &kqlChecker{script: script, v: &v, times: timeColumns(opt.Schema), tables: tableNames(opt.Schema), lets: map[string]bool{}}
	for _, st := range script.Stmts {
		if l, ok := st.(*kql.LetStmt); ok && l.Name != nil {
			c.lets[strings.ToLower(l.Name.Name)] = true
		}
	}
	kql.Inspect(script, c.node)
	for _, st := range script.Stmts {
		if q, ok := st.(*kql.QueryStmt); ok {
			c.pipeline(q.Query)
		}
	}
	return v.done()
}

type kqlChecker struct {
	script *kql.Script
	v      *Verdict
	times  map[string][]string // table (lower case) → its datetime columns
	tables map[string]bool     // tables of the schema (lower case); nil without one
	lets   map[string]bool     // names bound by let (lower case): not tables
}

func (c *kqlChecker) at(n kql.Node) (int, int) { return c.script.Position(n.Pos()) }

func (c *kqlChecker) report(id string, n kql.Node, msg string) {
	line, col := c.at(n)
	p := ruleProblem(id, line, col, msg)
	if p.Level == LevelWarning {
		c.v.Warnings = append(c.v.Warnings, p)
		return
	}
	c.v.add(p)
}

// node applies the rules that look at one node wherever it is.
func (c *kqlChecker) node(n kql.Node) bool {
	switch n := n.(type) {
	case *kql.ExternalDataExpr:
		c.report("KQL002", n, n.Name+" reads data from outside the database")
	case *kql.EvaluateOp:
		if n.Plugin != nil && externalPlugins[strings.ToLower(n.Plugin.Name())] {
			c.report("KQL002", n, "evaluate "+n.Plugin.Name()+" reaches outside the database")
		}
	case *kql.Call:
		switch strings.ToLower(n.Name()) {
		case "external_table":
			c.report("KQL002", n, "external_table() reads data from outside the database")
		case "cluster", "database":
			c.report("KQL003", n, n.Name()+"() reaches past the query's own database")
		}
	case *kql.SearchOp:
		if len(n.Tables) == 0 {
			c.report("KQL004", n, "search without in (...) reads every table")
		}
	case *kql.FindOp:
		if len(n.Tables) == 0 {
			c.report("KQL004", n, "find without in (...) reads every table")
		}
	case *kql.UnionOp:
		for _, t := range n.Tables {
			if s := kql.Format(t); strings.Contains(s, "*") {
				c.report("KQL004", n, "union "+s+" reads every table whose name matches")
				break
			}
		}
	case *kql.MvExpandOp:
		if n.Limit == nil {
			c.report("KQL005", n, "mv-expand without limit")
		}
	}
	return true
}

// pipeline applies the rules that look at a whole pipeline: a table read with no time
// filter, a table returned row for row.
func (c *kqlChecker) pipeline(e kql.Expr) {
	p, ok := e.(*kql.PipeExpr)
	var src kql.Expr = e
	var ops []kql.Operator
	if ok {
		src, ops = p.Source, p.Ops
	}
	id, ok := src.(*kql.Ident)
	if !ok || c.lets[strings.ToLower(id.Name)] || (c.tables != nil && !c.tables[strings.ToLower(id.Name)]) {
		return
	}
	reduced := false
	for _, op := range ops {
		if rowReducers[strings.ToLower(op.OpName())] {
			reduced = true
			break
		}
	}
	if !reduced {
		c.report("KQL007", id, id.Name+" is returned row for row; add take, a filter or an aggregation")
	}
	cols := c.times[strings.ToLower(id.Name)]
	if len(cols) == 0 || c.filtersTime(ops, cols) {
		return
	}
	what := "the datetime column " + cols[0] + " and no filter on it"
	if len(cols) > 1 {
		what = "the datetime columns " + strings.Join(cols, ", ") + " and no filter on any of them"
	}
	c.report("KQL006", id, id.Name+" has "+what)
}

// filtersTime says whether a where (or parse-where) of ops names one of the datetime
// columns, or calls ago() or now().
func (c *kqlChecker) filtersTime(ops []kql.Operator, cols []string) bool {
	found := false
	for _, op := range ops {
		w, ok := op.(*kql.WhereOp)
		if !ok {
			continue
		}
		kql.Inspect(w.Pred, func(n kql.Node) bool {
			switch n := n.(type) {
			case *kql.Ident:
				for _, col := range cols {
					if strings.EqualFold(n.Name, col) {
						found = true
					}
				}
			case *kql.Call:
				if name := strings.ToLower(n.Name()); name == "ago" || name == "now" {
					found = true
				}
			}
			return !found
		})
		if found {
			return true
		}
	}
	return false
}

func ruleProblem(id string, line, col int, msg string) Problem {
	r := kqlRule(id)
	return Problem{Category: Safety, Rule: r.ID + " " + r.Name, Level: r.Level, Message: msg, Line: line, Col: col}
}

// managementCommand finds a management command: a statement that starts with a dot
// (.drop table T, .set-or-append T <| ...). It returns its position and first word.
func managementCommand(query string) (line, col int, cmd string, ok bool) {
	s := stripKQLComments(query)
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\r', '\n', ';':
			continue
		case '.':
			if i+1 < len(s) && isLetter(s[i+1]) {
				j := i + 1
				for j < len(s) && (isLetter(s[j]) || s[j] == '-' || s[j] == '_') {
					j++
				}
				line, col = lineCol(s, i)
				return line, col, s[i:j], true
			}
		}
		return 0, 0, "", false
	}
	return 0, 0, "", false
}

// stripKQLComments blanks // comments, keeping every offset.
func stripKQLComments(q string) string {
	b := []byte(q)
	for i := 0; i+1 < len(b); i++ {
		switch b[i] {
		case '"', '\'':
			quote := b[i]
			for i++; i < len(b) && b[i] != quote && b[i] != '\n'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
		case '/':
			if b[i+1] == '/' {
				for ; i < len(b) && b[i] != '\n'; i++ {
					b[i] = ' '
				}
			}
		}
	}
	return string(b)
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func lineCol(s string, off int) (int, int) {
	line := 1 + strings.Count(s[:off], "\n")
	return line, off - strings.LastIndexByte(s[:off], '\n')
}

func timeColumns(s *qeval.Schema) map[string][]string {
	m := map[string][]string{}
	if s == nil {
		return m
	}
	for _, t := range s.Tables {
		for _, c := range t.Columns {
			if strings.EqualFold(c.Type, "datetime") || strings.EqualFold(c.Type, "date") {
				m[strings.ToLower(t.Name)] = append(m[strings.ToLower(t.Name)], c.Name)
			}
		}
	}
	return m
}

func tableNames(s *qeval.Schema) map[string]bool {
	if s == nil {
		return nil
	}
	m := map[string]bool{}
	for _, t := range s.Tables {
		m[strings.ToLower(t.Name)] = true
	}
	return m
}
