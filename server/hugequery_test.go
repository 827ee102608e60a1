package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/server"
)

// hugeQueries are the generated queries that killed a process (a fatal stack overflow
// in a recursive parser, a C stack overflow in PostgreSQL's parser library) or took
// gigabytes, at sizes the server's body limit lets through.
var hugeQueries = map[string]string{
	"Parens":    "SELECT " + strings.Repeat("(", 200_000) + "1" + strings.Repeat(")", 200_000),
	"PlusChain": "SELECT 1" + strings.Repeat("+1", 100_000),
	"NotChain":  "SELECT " + strings.Repeat("NOT ", 100_000) + "1",
	"OrChain":   "SELECT 1 WHERE 1=1" + strings.Repeat(" OR 1=1", 60_000),
	"InList":    "SELECT 1 WHERE 1 IN (" + strings.Repeat("1,", 300_000) + "1)",
}

// Every API that parses or runs a generated query answers a huge one (scored, or
// refused with a 4xx) in every dialect, and the server stays up.
func TestServer_HugeQueriesAnsweredServerStaysUp(t *testing.T) {
	ts := MustServer(t, func(c *server.Config) { c.DBRoot = mustDBRoot(t) })
	for name, q := range hugeQueries {
		// each answer before the test's deadline; sqlparse's tests check that parsing
		// grows linearly, which a wall-clock bound here could not on a loaded machine
		for _, d := range []string{"sqlite", "postgres", "mysql"} {
			r := postJSON(t, ts.URL+"/api/score-query", map[string]any{"generated_sql": q, "expected_sql": "SELECT 1", "dialect": d})
			if r.Status >= 500 {
				t.Errorf("%s, %s: score-query answered %d %s", name, d, r.Status, r.Body)
			}
		}
		// the reward endpoint scores the pair or refuses it with its reason
		res := execMatch(t, ts, []server.ExecMatchPair{{DB: "shop", Gold: "SELECT 1", Pred: q}})
		if scored := res[0].Outcome == qeval.OutcomeMatch || res[0].Outcome == qeval.OutcomeMismatch; scored == (res[0].Error != nil) {
			t.Errorf("%s: exec-match %+v, want a verdict or an error", name, res[0])
		}
	}
	// a run of them all ends, each case with an outcome
	var cases []map[string]string
	for name, q := range hugeQueries {
		cases = append(cases, map[string]string{"id": name, "question": "q", "expected_query": "SELECT 1", "generated_query": q, "database": "chinook"})
	}
	body, err := json.Marshal(map[string]any{"name": "huge", "cases": cases})
	if err != nil {
		t.Fatal(err)
	}
	id := startRun(t, ts, body, "application/json")
	v := waitRun(t, ts, id)
	if v.Status != server.StatusFinished || v.Done != len(hugeQueries) {
		t.Errorf("run %s: status %s, %d of %d cases done", id, v.Status, v.Done, len(hugeQueries))
	}
	if r := do(t, http.MethodGet, ts.URL+"/api/health", nil); r.Status != http.StatusOK {
		t.Errorf("health after the huge queries: %d", r.Status)
	}
}

// The runs in progress share one results budget (Config.MaxRunBytes): a run may hold
// its share, so a result past it is too_large there, and the same query passes on a
// server with the default budget.
func TestServer_RunsShareTheResultsBudget(t *testing.T) {
	q := "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100000) SELECT x, 'some text to make the rows wider' FROM c"
	suite := []byte(`{"name": "wide", "concurrency": 1, "cases": [{"id": "wide", "question": "q", "expected_query": "SELECT 1", "generated_query": "` + q + `", "database": "chinook"}]}`)
	for _, tc := range []struct {
		budget int64
		want   string
	}{{8 << 20, "too_large"}, {0, "mismatch"}} {
		ts := MustServer(t, func(c *server.Config) { c.MaxRunBytes = tc.budget })
		id := startRun(t, ts, suite, "application/json")
		waitRun(t, ts, id)
		r := do(t, http.MethodGet, ts.URL+"/api/runs/"+id+"/cases/wide", nil)
		var c struct {
			Execution struct {
				Outcome string `json:"outcome"`
			} `json:"execution"`
		}
		r.json(t, &c)
		if c.Execution.Outcome != tc.want {
			t.Errorf("budget %d: outcome %q, want %q (%s)", tc.budget, c.Execution.Outcome, tc.want, r.Body)
		}
	}
}

// exec-match pairs share the server's results budget too: a result past a pair's part
// of it is too_large (the pairs in flight over every batch are bounded), and the same
// pair is scored on a server with the default budget.
func TestExecMatch_PairsShareTheResultsBudget(t *testing.T) {
	root := mustDBRoot(t)
	wide := "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100000) SELECT x, 'some text to make the rows wider' FROM c"
	for _, tc := range []struct {
		budget int64
		want   qeval.Outcome
	}{{4 << 20, qeval.OutcomeTooLarge}, {0, qeval.OutcomeMismatch}} {
		ts := MustServer(t, func(c *server.Config) { c.DBRoot, c.MaxRunBytes = root, tc.budget })
		res := execMatch(t, ts, []server.ExecMatchPair{{DB: "shop", Gold: "SELECT 1", Pred: wide}})
		if res[0].Outcome != tc.want {
			t.Errorf("budget %d: outcome %s (%v), want %s", tc.budget, res[0].Outcome, deref(res[0].Error), tc.want)
		}
	}
}
