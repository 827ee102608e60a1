package qevaltest

import (
	"testing"

	"github.com/qeval/qeval"
)

// The subtests about what a successful query returns.

func (s *suite) testValueKinds(t *testing.T) {
	q := "SELECT id, name, price, data FROM qeval_items ORDER BY id"
	rs := query(t, s.e, q)
	wantColumns(t, q, rs, "id", "name", "price", "data")
	wantRows(t, q, rs, s.items())
}

func (s *suite) testLiterals(t *testing.T) {
	q := "SELECT 42, -7, 2.5, 'unicode ✓ 日本', NULL"
	rs := query(t, s.e, q)
	if len(rs.Columns) != 5 {
		t.Errorf("Query(%q) has %d columns, want 5", q, len(rs.Columns))
	}
	wantRows(t, q, rs, [][]qeval.Value{{
		qeval.Int(42), qeval.Int(-7), qeval.Float(2.5), qeval.Text("unicode ✓ 日本"), qeval.Null,
	}})
}

func (s *suite) testAggregates(t *testing.T) {
	// SUM of integers is a decimal type in some engines: integral values come back
	// as ints all the same.
	q := "SELECT COUNT(*), SUM(id), MIN(name), MAX(price), AVG(price) FROM qeval_items"
	wantRows(t, q, query(t, s.e, q), [][]qeval.Value{{
		qeval.Int(5), qeval.Int(15), qeval.Text("a;b"), qeval.Float(2.25), qeval.Float(-0.84375),
	}})
	q = "SELECT COUNT(name), COUNT(*) FROM qeval_items WHERE id >= 2"
	wantRows(t, q, query(t, s.e, q), [][]qeval.Value{{qeval.Int(3), qeval.Int(4)}})
}

func (s *suite) testColumnNames(t *testing.T) {
	q := "SELECT price AS zeta, id AS alpha, name FROM qeval_items WHERE id = 1"
	rs := query(t, s.e, q)
	wantColumns(t, q, rs, "zeta", "alpha", "name")
	wantRows(t, q, rs, [][]qeval.Value{{qeval.Float(1.5), qeval.Int(1), qeval.Text("alpha")}})

	q = "SELECT n AS same, n AS same FROM qeval_nums WHERE n = 7"
	rs = query(t, s.e, q)
	wantColumns(t, q, rs, "same", "same")
	wantRows(t, q, rs, [][]qeval.Value{{qeval.Int(7), qeval.Int(7)}})
}

func (s *suite) testEmptyResult(t *testing.T) {
	q := "SELECT id, name FROM qeval_items WHERE id < 0"
	rs := query(t, s.e, q)
	wantColumns(t, q, rs, "id", "name")
	if rs.NumRows() != 0 {
		t.Errorf("Query(%q) = %d rows, want 0", q, rs.NumRows())
	}
}

func (s *suite) testRowOrder(t *testing.T) {
	q := "SELECT id FROM qeval_items ORDER BY id DESC"
	wantRows(t, q, query(t, s.e, q), intRows(5, 4, 3, 2, 1))

	q = "SELECT n FROM qeval_nums ORDER BY n"
	want := make([]int64, numsCount)
	for i := range want {
		want[i] = int64(i + 1)
	}
	wantRows(t, q, query(t, s.e, q), intRows(want...))

	q = "SELECT n FROM qeval_nums ORDER BY n DESC LIMIT 3"
	wantRows(t, q, query(t, s.e, q), intRows(60, 59, 58))

	q = "SELECT name FROM qeval_items WHERE id IN (3, 1, 4) ORDER BY price"
	wantRows(t, q, query(t, s.e, q), [][]qeval.Value{
		{qeval.Text("gamma")}, {qeval.Text("a;b")}, {qeval.Text("alpha")},
	})
}

func (s *suite) testSemicolons(t *testing.T) {
	q := "SELECT name FROM qeval_items WHERE name = 'a;b'"
	wantRows(t, q, query(t, s.e, q), [][]qeval.Value{{qeval.Text("a;b")}})

	q = "SELECT id FROM qeval_items WHERE id = 1;"
	wantRows(t, q, query(t, s.e, q), intRows(1))

	q = "SELECT id FROM qeval_items WHERE id = 2 ; \n"
	wantRows(t, q, query(t, s.e, q), intRows(2))

	q = "/* leading; comment */ SELECT id FROM qeval_items WHERE id = 3 -- trailing; comment"
	wantRows(t, q, query(t, s.e, q), intRows(3))
}
