package suite

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/internal/lines"
)

// BIRD-Critic's and LiveSQLBench's instance files (JSONL, one task a line) are read as
// stateful suites: preprocess_sql is the setup, sol_sql the gold (its statements in one
// text), clean_up_sql (BIRD-Critic) or clean_up_sqls (LiveSQLBench) the teardown, the
// issue (query, with BIRD-Critic's issue_sql or error_sql after it) the question,
// db_id or selected_database the database. A BIRD-Critic task marked efficiency bounds
// the answer's cost by the gold's (max_ratio 1). Their test cases are Python functions
// calling the benchmark's harness, which qeval does not run: a test case that is a
// single SQL query is a check, the others are left out (the case is tagged
// python_tests and is judged as a case without checks is: by its last result, or every
// table when the gold writes). docs/stateful.md says what is not read.

// criticTask is one line of either file.
type criticTask struct {
	InstanceID       json.RawMessage `json:"instance_id"`
	DBID             string          `json:"db_id"`
	SelectedDatabase string          `json:"selected_database"`
	Query            string          `json:"query"`
	IssueSQL         []string        `json:"issue_sql"`
	ErrorSQL         []string        `json:"error_sql"`
	SolSQL           []string        `json:"sol_sql"`
	PreprocessSQL    []string        `json:"preprocess_sql"`
	CleanUpSQL       []string        `json:"clean_up_sql"`
	CleanUpSQLs      []string        `json:"clean_up_sqls"`
	TestCases        []string        `json:"test_cases"`
	Efficiency       bool            `json:"efficiency"`
	Category         string          `json:"category"`
}

// isCritic reports whether a JSONL file's first line is a BIRD-Critic or LiveSQLBench
// task: an instance_id beside sol_sql or preprocess_sql.
func isCritic(data []byte) bool {
	line, _, _ := bytes.Cut(bytes.TrimSpace(data), []byte("\n"))
	var probe map[string]json.RawMessage
	if json.Unmarshal(line, &probe) != nil {
		return false
	}
	_, id := probe["instance_id"]
	_, sol := probe["sol_sql"]
	_, pre := probe["preprocess_sql"]
	return id && (sol || pre)
}

// parseCritic reads a BIRD-Critic or LiveSQLBench instance file as a stateful SQL suite.
func parseCritic(data []byte, p *problems, opt Options) *qeval.Suite {
	s := opt.Defaults
	s.Cases = nil
	sc := lines.NewMax(bytes.NewReader(data), MaxCaseBytes)
	line := 0
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if sc.TooLong() {
			p.add(line, "", "the line is longer than %d bytes", MaxCaseBytes)
			continue
		}
		if len(text) == 0 {
			continue
		}
		var t criticTask
		if err := json.Unmarshal(text, &t); err != nil {
			p.add(line, "", "not a BIRD-Critic or LiveSQLBench task: %s", strings.TrimPrefix(err.Error(), "json: "))
			continue
		}
		if c, ok := criticCase(t, line, p); ok {
			s.Cases = append(s.Cases, c)
		}
	}
	return &s
}

// criticCase turns one task into a case; the problems name its field.
func criticCase(t criticTask, line int, p *problems) (qeval.Case, bool) {
	id := strings.Trim(string(bytes.TrimSpace(t.InstanceID)), `"`)
	c := qeval.Case{ID: id, Line: line, Database: firstOf(t.DBID, t.SelectedDatabase), Setup: nonEmpty(t.PreprocessSQL),
		Teardown: nonEmpty(append(t.CleanUpSQL, t.CleanUpSQLs...))}
	if c.Database == "" {
		p.add(line, id, "field db_id (BIRD-Critic) or selected_database (LiveSQLBench) is missing")
	}
	sol := nonEmpty(t.SolSQL)
	if len(sol) == 0 {
		p.add(line, id, "field sol_sql is empty: the task has no gold (the public LiveSQLBench files leave it out; use the file with the solutions)")
		return c, false
	}
	c.ExpectedQuery = joinStatements(sol)
	c.Question = strings.TrimSpace(t.Query)
	if issue := nonEmpty(append(t.IssueSQL, t.ErrorSQL...)); len(issue) > 0 {
		c.Question += "\n\nThe SQL with the issue:\n" + joinStatements(issue)
	}
	python := 0
	for _, tc := range t.TestCases {
		if q, ok := sqlTestCase(tc); ok {
			c.Checks = append(c.Checks, q)
		} else {
			python++
		}
	}
	if python > 0 {
		c.Tags = append(c.Tags, "python_tests")
	}
	if t.Category != "" {
		c.Tags = append(c.Tags, "category:"+strings.ToLower(t.Category))
	}
	if t.Efficiency {
		c.Efficiency = &qeval.Efficiency{MaxRatio: 1}
	}
	// every task is stateful: its gold may write, or hold several statements
	c.IsStateful = true
	return c, true
}

// sqlTestCase reports whether a test case is one SQL query (not a Python function),
// and returns it.
func sqlTestCase(tc string) (string, bool) {
	q := strings.TrimSpace(tc)
	head := strings.ToUpper(strings.Fields(q + " x")[0])
	if head != "SELECT" && head != "WITH" {
		return "", false
	}
	if strings.Contains(q, "\ndef ") || strings.Contains(q, "assert ") || strings.Count(strings.TrimRight(q, "; \n"), ";") > 0 {
		return "", false
	}
	return strings.TrimRight(q, "; \n"), true
}

func joinStatements(stmts []string) string {
	out := make([]string, len(stmts))
	for i, s := range stmts {
		out[i] = strings.TrimRight(strings.TrimSpace(s), ";")
	}
	return strings.Join(out, ";\n")
}

func nonEmpty(list []string) qeval.Statements {
	var out qeval.Statements
	for _, s := range list {
		if strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	return out
}

func firstOf(xs ...string) string {
	for _, x := range xs {
		if x != "" {
			return x
		}
	}
	return ""
}
