package qevaltest

import (
	"strings"
	"testing"

	"github.com/qeval/qeval"
)

// The subtests about queries that must fail, and fail without side effects.

func (s *suite) testQueryErrors(t *testing.T) {
	for _, q := range []string{
		"SELEC id FROM qeval_items",
		"SELECT id FROM qeval_missing",
		"SELECT missing_column FROM qeval_items",
		"SELECT id FROM qeval_items WHERE",
		"SELECT id FROM qeval_items WHERE name = 'unterminated",
	} {
		wantCode(t, q, queryErr(t, s.e, q), qeval.CodeQuery)
	}
	// A failed query leaves the executor usable.
	q := "SELECT id FROM qeval_items WHERE id = 4"
	wantRows(t, q, query(t, s.e, q), intRows(4))
}

func (s *suite) testEmptyQuery(t *testing.T) {
	for _, q := range []string{"", "   \n\t", "-- only a comment\n", "/* only a comment */"} {
		wantCode(t, q, queryErr(t, s.e, q), qeval.CodeQuery)
	}
}

func (s *suite) testWritesForbidden(t *testing.T) {
	e := s.newExec(t, s.setup, qeval.Limits{})
	for _, c := range []struct{ keyword, query string }{
		{"INSERT", "INSERT INTO qeval_items (id, name) VALUES (9, 'x')"},
		{"UPDATE", "UPDATE qeval_items SET name = 'x'"},
		{"DELETE", "DELETE FROM qeval_items"},
		{"DELETE", "-- a comment first\n  delete from qeval_items where id > 0"},
		{"DROP", "DROP TABLE qeval_items"},
		{"CREATE", "CREATE TABLE qeval_new (x INTEGER)"},
		{"ALTER", "ALTER TABLE qeval_items ADD COLUMN extra INTEGER"},
	} {
		err := queryErr(t, e, c.query)
		wantCode(t, c.query, err, qeval.CodeForbidden)
		if !strings.Contains(strings.ToUpper(err.Error()), c.keyword) {
			t.Errorf("Query(%q): message %q does not name %s", c.query, err.Error(), c.keyword)
		}
	}
	s.checkUnchanged(t, e)
	for _, q := range []string{"SELECT x FROM qeval_new", "SELECT extra FROM qeval_items"} {
		wantCode(t, q, queryErr(t, e, q), qeval.CodeQuery)
	}
}

func (s *suite) testHiddenWrite(t *testing.T) {
	// A data-modifying CTE starts with WITH; engines that have them must refuse the
	// write, the others fail to parse it.
	e := s.newExec(t, s.setup, qeval.Limits{})
	q := "WITH d AS (DELETE FROM qeval_items RETURNING id) SELECT id FROM d"
	wantCode(t, q, queryErr(t, e, q), qeval.CodeForbidden, qeval.CodeQuery)
	s.checkUnchanged(t, e)
}

func (s *suite) testMultipleStatements(t *testing.T) {
	e := s.newExec(t, s.setup, qeval.Limits{})
	for _, q := range []string{
		"SELECT 1; DROP TABLE qeval_items",
		"SELECT id FROM qeval_items;DELETE FROM qeval_items",
		"SELECT id FROM qeval_items WHERE name = 'a;b'; UPDATE qeval_items SET name = 'x'",
		"SELECT 1; SELECT 2",
		"SELECT 1 /* ; */; INSERT INTO qeval_nums (n) VALUES (0)",
	} {
		err := queryErr(t, e, q)
		wantCode(t, q, err, qeval.CodeQuery, qeval.CodeForbidden)
		if !strings.Contains(err.Error(), "multiple statements") {
			t.Errorf("Query(%q): message %q does not say \"multiple statements\"", q, err.Error())
		}
	}
	s.checkUnchanged(t, e)
}
