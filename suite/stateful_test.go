package suite_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/suite"
)

// wantStateful is what every format below says of its one stateful case.
func wantStateful(t *testing.T, c qeval.Case) {
	t.Helper()
	if !c.Stateful() {
		t.Fatalf("case %q is not stateful: %+v", c.ID, c)
	}
	if !reflect.DeepEqual(c.Setup, qeval.Statements{"INSERT INTO t VALUES (1); INSERT INTO t VALUES (2)"}) {
		t.Errorf("Setup = %q", c.Setup)
	}
	if len(c.Checks) == 0 || !strings.Contains(strings.Join(c.Checks, ";"), "SELECT count(*) FROM t") {
		t.Errorf("Checks = %q", c.Checks)
	}
	if c.CompareState == nil || c.CompareState.All || !reflect.DeepEqual(c.CompareState.Tables, []string{"t", "u"}) || !c.CompareState.Ordered {
		t.Errorf("CompareState = %+v", c.CompareState)
	}
	if !c.CompareSchema || c.Efficiency == nil || c.Efficiency.MaxRatio != 1.5 {
		t.Errorf("CompareSchema = %v, Efficiency = %+v", c.CompareSchema, c.Efficiency)
	}
	if !reflect.DeepEqual(c.Teardown, qeval.Statements{"DROP TABLE u"}) {
		t.Errorf("Teardown = %q", c.Teardown)
	}
	if c.ExpectedQuery != "UPDATE t SET a = a + 1; DELETE FROM t WHERE a > 2" {
		t.Errorf("ExpectedQuery = %q", c.ExpectedQuery)
	}
}

func TestLoad_StatefulEveryFormat(t *testing.T) {
	formats := map[string]string{
		"s.yaml": `name: st
cases:
  - id: s1
    setup: "INSERT INTO t VALUES (1); INSERT INTO t VALUES (2)"
    expected_query: UPDATE t SET a = a + 1; DELETE FROM t WHERE a > 2
    checks: [SELECT count(*) FROM t, SELECT max(a) FROM t]
    compare_state: {tables: [t, u], ordered: true}
    compare_schema: true
    teardown: DROP TABLE u
    efficiency: {max_ratio: 1.5}
`,
		"s.json": `{"name": "st", "cases": [{"id": "s1", "setup": ["INSERT INTO t VALUES (1); INSERT INTO t VALUES (2)"],
 "expected_query": "UPDATE t SET a = a + 1; DELETE FROM t WHERE a > 2", "checks": "SELECT count(*) FROM t",
 "compare_state": {"tables": ["t", "u"], "ordered": true}, "compare_schema": true, "teardown": "DROP TABLE u",
 "efficiency": {"max_ratio": 1.5}}]}`,
		"s.jsonl": `{"id": "s1", "setup": "INSERT INTO t VALUES (1); INSERT INTO t VALUES (2)", "expected_query": "UPDATE t SET a = a + 1; DELETE FROM t WHERE a > 2", "checks": ["SELECT count(*) FROM t"], "compare_state": {"tables": ["t", "u"], "ordered": true}, "compare_schema": true, "teardown": ["DROP TABLE u"], "efficiency": {"max_ratio": 1.5}}
`,
		"s.csv": `id,setup,expected_query,checks,compare_state,compare_state_ordered,compare_schema,teardown,efficiency_max_ratio
s1,INSERT INTO t VALUES (1); INSERT INTO t VALUES (2),UPDATE t SET a = a + 1; DELETE FROM t WHERE a > 2,SELECT count(*) FROM t; SELECT 1,t;u,true,true,DROP TABLE u,1.5
`,
	}
	for name, text := range formats {
		t.Run(name, func(t *testing.T) {
			s, err := suite.Parse(name, []byte(text), suite.Options{})
			if err != nil {
				t.Fatal(err)
			}
			wantStateful(t, s.Cases[0])
		})
	}
}

func TestLoad_StatefulAllAndLists(t *testing.T) {
	s, err := suite.Parse("s.yaml", []byte(`cases:
  - {id: a, expected_query: "DELETE FROM t", compare_state: all}
  - {id: b, expected_query: "DELETE FROM t", compare_state: [t]}
  - {id: c, expected_query: "SELECT 1"}
`), suite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c := s.Cases[0].CompareState; c == nil || !c.All || c.Ordered {
		t.Errorf("a: CompareState = %+v", c)
	}
	if c := s.Cases[1].CompareState; c == nil || c.All || c.Tables[0] != "t" {
		t.Errorf("b: CompareState = %+v", c)
	}
	if s.Cases[2].Stateful() {
		t.Error("c, a plain query, is stateful")
	}
}

// TestLoad_StatefulProblems: each bad stateful field is a problem naming the file, the
// line (where the format keeps it), the case and the field; all are reported at once.
func TestLoad_StatefulProblems(t *testing.T) {
	cases := []struct {
		name, text string
		want       []string
	}{
		{"bad.yaml", `cases:
  - {id: a, expected_query: "DELETE FROM t", compare_state: everything}
  - {id: b, expected_query: "DELETE FROM t", efficiency: {max_ratio: 0}}
  - {id: c, expected_query: "DELETE FROM t", setup: ["INSERT INTO t VALUES (1)", ""]}
  - {id: d, expected_query: ["DELETE FROM t", "DELETE FROM t WHERE 1"], checks: "SELECT 1"}
  - {id: e, expected_query: "DELETE FROM t", compare_state: {tables: all, sorted: true}}
`, []string{`case "a"`, "compare_state", "everything", `bad.yaml:3: case "b": field efficiency.max_ratio`, `bad.yaml:4: case "c": field setup: item 2 is empty`,
			`bad.yaml:5: case "d": field expected_query: a stateful case has one gold`, `case "e"`, `unknown field "sorted"`}},
		{"bad.jsonl", `{"id": "a", "expected_query": "DELETE FROM t", "compare_state": 3}
{"id": "b", "expected_query": "DELETE FROM t", "checks": {"q": 1}}
{"id": "c", "expected_query": "DELETE FROM t", "compare_state": []}
`, []string{`bad.jsonl:1: case "a"`, "compare_state", `bad.jsonl:2: case "b"`, "checks", "string of statements", `bad.jsonl:3: case "c"`, "empty list"}},
		{"bad.csv", "id,expected_query,compare_state_ordered,efficiency_max_ratio\na,DELETE FROM t,true,fast\n",
			[]string{`bad.csv:2: case "a": column compare_state_ordered without compare_state`, `bad.csv:2: case "a": column efficiency_max_ratio: "fast" is not a number`}},
		{"kql.yaml", `dialect: kql
cases:
  - {id: k, expected_query: "T | count", checks: "T | count"}
`, []string{`kql.yaml:3: case "k": setup, checks`, "are for SQL suites"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := suite.Parse(c.name, []byte(c.text), suite.Options{})
			if err == nil {
				t.Fatal("no error")
			}
			msg := qeval.ErrorMessage(err)
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error lacks %q:\n%s", w, msg)
				}
			}
		})
	}
}
