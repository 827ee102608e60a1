package suite_test

import (
	"strings"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/suite"
)

// Two tasks written here in the published files' shapes: a BIRD-Critic one (issue_sql,
// clean_up_sql, Python test cases, efficiency) and a LiveSQLBench one (selected_database,
// clean_up_sqls, one SQL test case).
const criticFile = `{"instance_id": 7, "db_id": "shop", "query": "My update does nothing. How do I fix it?", "issue_sql": ["UPDATE item SET price = price * 2 WHERE name = 'Pen'"], "sol_sql": ["UPDATE item SET price = price * 2 WHERE lower(name) = 'pen';"], "preprocess_sql": ["CREATE TABLE audit (n INTEGER)"], "clean_up_sql": ["DROP TABLE audit"], "test_cases": ["def test_case(pred_sqls, sol_sqls, db_name, conn):\n    assert True"], "efficiency": true, "category": "Management"}
{"instance_id": "shop_L_2", "selected_database": "shop", "query": "Remove the cheap items.", "sol_sql": ["DELETE FROM item WHERE price < 1", "SELECT count(*) FROM item"], "preprocess_sql": [], "clean_up_sqls": [], "test_cases": ["SELECT name FROM item ORDER BY name;"], "category": "Management", "conditions": {"decimal": 2, "distinct": false, "order": false}}
`

func TestLoad_BIRDCriticAndLiveSQLBench(t *testing.T) {
	s, err := suite.Parse("critic.jsonl", []byte(criticFile), suite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Cases) != 2 {
		t.Fatalf("%d cases", len(s.Cases))
	}
	a, b := s.Cases[0], s.Cases[1]
	if a.ID != "7" || a.Database != "shop" || !a.Stateful() || a.ExpectedQuery != "UPDATE item SET price = price * 2 WHERE lower(name) = 'pen'" ||
		len(a.Setup) != 1 || len(a.Teardown) != 1 || len(a.Checks) != 0 || a.Efficiency == nil || a.Efficiency.MaxRatio != 1 ||
		!strings.Contains(a.Question, "The SQL with the issue:\nUPDATE item SET price = price * 2 WHERE name = 'Pen'") {
		t.Errorf("BIRD-Critic task = %+v", a)
	}
	if !hasTag(a, "python_tests") || !hasTag(a, "category:management") {
		t.Errorf("BIRD-Critic task tags = %v", a.Tags)
	}
	if b.ID != "shop_L_2" || b.Database != "shop" || b.ExpectedQuery != "DELETE FROM item WHERE price < 1;\nSELECT count(*) FROM item" ||
		len(b.Checks) != 1 || b.Checks[0] != "SELECT name FROM item ORDER BY name" || hasTag(b, "python_tests") {
		t.Errorf("LiveSQLBench task = %+v", b)
	}
}

func TestLoad_CriticProblems(t *testing.T) {
	_, err := suite.Parse("critic.jsonl", []byte(`{"instance_id": 1, "sol_sql": ["SELECT 1"], "preprocess_sql": []}
{"instance_id": 2, "db_id": "x", "sol_sql": [], "preprocess_sql": []}
`), suite.Options{})
	msg := qeval.ErrorMessage(err)
	for _, want := range []string{`critic.jsonl:1: case "1": field db_id`, `critic.jsonl:2: case "2": field sol_sql is empty`} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
}

func hasTag(c qeval.Case, tag string) bool {
	for _, t := range c.Tags {
		if t == tag {
			return true
		}
	}
	return false
}
