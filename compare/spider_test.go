package compare_test

import (
	"math"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/compare"
)

// The rules of spider-ts, one test each. Every wanted verdict below was checked once
// against the official code (taoyds/test-suite-sql-eval exec_eval.result_eq and the
// rewrites of evaluation.py, exec_eval.py and parse.py, with sqlparse 0.4.2).

// TestSpiderTS_ValueRules: values are equal as Python compares them.
func TestSpiderTS_ValueRules(t *testing.T) {
	cases := []struct {
		name       string
		gold, pred any
		want       bool
	}{
		{"int_equals_float", 1, 1.0, true},
		{"float_equals_int", 2.0, 2, true},
		{"null_equals_null", nil, nil, true},
		{"null_not_zero", nil, 0, false},
		{"null_not_empty_text", nil, "", false},
		{"null_not_text_None", nil, "None", false},
		{"text_never_int", "1", 1, false},
		{"text_never_float", "1.0", 1.0, false},
		{"no_float_tolerance", 0.30000000000000004, 0.3, false},
		{"float_exact", 0.1, 0.1, true},
		{"negative_zero_equals_zero", math.Copysign(0, -1), 0, true},
		{"big_int_not_nearest_float", int64(1<<53 + 1), float64(1 << 53), false},
		{"big_int_equals_float", int64(1 << 53), float64(1 << 53), true},
		{"whole_float_1e16_equals_int", 1e16, int64(10_000_000_000_000_000), true},
		{"text_case", "Paris", "paris", false},
		{"text_trailing_space", "a", "a ", false},
		{"text_not_bytes", "a", []byte("a"), false},
		{"bytes_equal", []byte{0, 1}, []byte{0, 1}, true},
		{"bool_equals_int", true, 1, true},
		{"bool_equals_float", false, 0.0, true},
		{"inf_equals_inf", math.Inf(1), math.Inf(1), true},
		{"inf_not_neg_inf", math.Inf(1), math.Inf(-1), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, order := range []bool{false, true} {
				g, p := rows(row(c.gold)), rows(row(c.pred))
				if got := compare.SpiderTS.Equal(g, p, order); got != c.want {
					t.Errorf("SpiderTS.Equal([[%v]], [[%v]], order=%v)=%v, want %v", c.gold, c.pred, order, got, c.want)
				}
				if got := compare.SpiderTS.Equal(p, g, order); got != c.want {
					t.Errorf("SpiderTS.Equal([[%v]], [[%v]], order=%v)=%v, want %v (swapped)", c.pred, c.gold, order, got, c.want)
				}
			}
		})
	}
}

// TestSpiderTS_OrderMatters: row order matters iff the gold text, as rewritten,
// contains "order by" (any case, exactly one space, anywhere — even inside a string).
func TestSpiderTS_OrderMatters(t *testing.T) {
	cases := []struct {
		gold string
		want bool
	}{
		{"SELECT a FROM t ORDER BY a", true},
		{"select a from t order by a desc", true},
		{"SELECT a FROM t Order By a", true},
		{"SELECT a FROM t", false},
		{"SELECT a FROM t ORDER  BY a", false}, // two spaces: not the substring
		{"SELECT a FROM t ORDER\nBY a", false},
		{"SELECT a FROM t ORDER\tBY a", false},
		{"SELECT a FROM t WHERE b = 'Order By'", true},
		{"SELECT a FROM t GROUP BY a", false},
		{"SELECT a FROM reorder by_x", true}, // a plain substring test
		{"SELECT DISTINCT a FROM t ORDER BY a", true},
	}
	for _, c := range cases {
		_, _, got := compare.SpiderTS.Prepare(c.gold, "SELECT 1", compare.Options{})
		if got != c.want {
			t.Errorf("SpiderTS.Prepare(%q): orderMatters=%v, want %v", c.gold, got, c.want)
		}
	}
}

// TestBag_OrderMatters: bag orders rows only when the gold query itself sorts them: the
// words ORDER BY (any white space between) outside parentheses, strings and comments.
func TestBag_OrderMatters(t *testing.T) {
	cases := []struct {
		gold string
		want bool
	}{
		{"SELECT a FROM t ORDER BY a", true},
		{"SELECT a FROM t ORDER  BY a", true},
		{"SELECT a FROM t order\n\tby a", true},
		{"SELECT a FROM t", false},
		{"SELECT a FROM reorder by_x", false},
		{"SELECT a FROM t GROUP BY a", false},
		{"SELECT a, rank() OVER (ORDER BY b) FROM t", false},
		{"SELECT a FROM (SELECT a FROM t ORDER BY a LIMIT 3)", false},
		{"SELECT a FROM t WHERE a IN (SELECT b FROM u ORDER BY b) ORDER BY a", true},
		{"SELECT a FROM t WHERE b = 'order by'", false},
		{"SELECT a FROM t -- order by a\n", false},
		{"SELECT a FROM t /* order by a */", false},
	}
	for _, c := range cases {
		_, _, got := compare.Bag.Prepare(c.gold, "SELECT 1", compare.Options{})
		if got != c.want {
			t.Errorf("Bag.Prepare(%q): orderMatters=%v, want %v", c.gold, got, c.want)
		}
	}
}

// TestSpiderTS_Rewrite: the official clean-ups, in the official order.
func TestSpiderTS_Rewrite(t *testing.T) {
	cases := []struct {
		name               string
		gold, pred         string
		keep               bool
		wantGold, wantPred string
		wantOrder          bool
	}{
		{
			name: "value_becomes_1_in_pred_only",
			gold: "SELECT value_id FROM t WHERE b > = 3", pred: `SELECT value_id FROM t WHERE a = "value" AND b > = 3`,
			wantGold: "SELECT value_id FROM t WHERE b >= 3", wantPred: `SELECT 1_id FROM t WHERE a = "1" AND b >= 3`,
		},
		{
			name: "value_is_case_sensitive",
			gold: "SELECT VALUE FROM t", pred: "SELECT VALUE FROM t",
			wantGold: "SELECT VALUE FROM t", wantPred: "SELECT VALUE FROM t",
		},
		{
			name: "operators_collapsed_distinct_removed",
			gold: "select distinct a from t order by a", pred: "SELECT DISTINCT a FROM t WHERE b ! = 1 AND c < = 2",
			wantGold: "select  a from t order by a", wantPred: "SELECT  a FROM t WHERE b != 1 AND c <= 2", wantOrder: true,
		},
		{
			name: "keep_distinct",
			gold: "select distinct a from t order by a", pred: "SELECT DISTINCT a FROM t WHERE b ! = 1 AND c < = 2", keep: true,
			wantGold: "select distinct a from t order by a", wantPred: "SELECT DISTINCT a FROM t WHERE b != 1 AND c <= 2", wantOrder: true,
		},
		{
			name: "only_single_space_collapsed",
			gold: "SELECT a FROM t", pred: "SELECT a FROM t WHERE b >  = 1",
			wantGold: "SELECT a FROM t", wantPred: "SELECT a FROM t WHERE b >  = 1",
		},
		{
			name: "cur_year_in_both",
			gold: "SELECT YEAR(CURDATE()) - age FROM t", pred: "select year ( curdate ( ) )  -  age from t",
			wantGold: "SELECT 2020- age FROM t", wantPred: "select 2020-  age from t",
		},
		{
			name: "count_distinct",
			gold: "SELECT count(DISTINCT a) FROM t", pred: "SELECT count(distinct a) FROM t",
			wantGold: "SELECT count( a) FROM t", wantPred: "SELECT count( a) FROM t",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, p, order := compare.SpiderTS.Prepare(c.gold, c.pred, compare.Options{KeepDistinct: c.keep})
			if g != c.wantGold {
				t.Errorf("gold: got %q, want %q", g, c.wantGold)
			}
			if p != c.wantPred {
				t.Errorf("pred: got %q, want %q", p, c.wantPred)
			}
			if order != c.wantOrder {
				t.Errorf("orderMatters=%v, want %v", order, c.wantOrder)
			}
		})
	}
}

// TestModes_NoRewrite: the other modes run the queries as written.
func TestModes_NoRewrite(t *testing.T) {
	gold := "SELECT DISTINCT value FROM t WHERE YEAR(CURDATE()) > = 1"
	pred := "select distinct value from t where b ! = 1"
	for _, m := range compare.Modes() {
		if m.Name == compare.SpiderTS.Name {
			continue
		}
		g, p, _ := m.Prepare(gold, pred, compare.Options{})
		if g != gold || p != pred {
			t.Errorf("%s.Prepare rewrote the queries: %q, %q", m.ID(), g, p)
		}
	}
}

// TestSpiderTS_QuickRejection: the official quick rejection sorts the values of each
// row by str(x)+str(type(x)) and compares the rows as a list (order matters) or as sets
// — not bags — so [1,1,2] vs [1,2,2] passes it and only the multiset check rejects it.
func TestSpiderTS_QuickRejection(t *testing.T) {
	g := rows(row(1), row(1), row(2))
	p := rows(row(1), row(2), row(2))
	if !compare.QuickReject(g.Rows, p.Rows, false) {
		t.Errorf("QuickReject([1,1,2], [1,2,2], unordered)=false, want true (set comparison)")
	}
	if compare.QuickReject(g.Rows, p.Rows, true) {
		t.Errorf("QuickReject([1,1,2], [1,2,2], ordered)=true, want false (list comparison)")
	}
	if compare.SpiderTS.Equal(g, p, false) {
		t.Errorf("SpiderTS.Equal([1,1,2], [1,2,2])=true, want false (multiset check)")
	}

	// The sort key puts 1.5 before 1 but 1.0 before 1.5: the sorted rows differ, so the
	// official code rejects (1, 1.5) vs (1.0, 1.5) although they are equal cell by cell.
	g, p = rows(row(1, 1.5)), rows(row(1.0, 1.5))
	if compare.QuickReject(g.Rows, p.Rows, false) {
		t.Errorf("QuickReject((1, 1.5), (1.0, 1.5))=true, want false (sorted by str+type)")
	}
	if compare.SpiderTS.Equal(g, p, false) {
		t.Errorf("SpiderTS.Equal((1, 1.5), (1.0, 1.5))=true, want false as the official result_eq")
	}
	if !compare.Bag.Equal(g, p, false) {
		t.Errorf("Bag.Equal((1, 1.5), (1.0, 1.5))=false, want true (bag has no such quirk)")
	}

	// Rows whose sorted values agree pass, whatever their column order.
	if !compare.QuickReject(rows(row("b", 2, nil)).Rows, rows(row(nil, "b", 2.0)).Rows, true) {
		t.Errorf("QuickReject((b, 2, None), (None, b, 2.0))=false, want true")
	}
}

// TestSpiderTS_Deterministic: the verdict for results wider than 3 columns does not
// depend on chance (the official code samples rows to prune permutations).
func TestSpiderTS_Deterministic(t *testing.T) {
	g := rows(row(1, 2, 3, 4, 5, 6), row(1, 3, 2, 4, 6, 5), row(6, 5, 4, 3, 2, 1))
	match := rows(row(6, 5, 4, 3, 2, 1), row(5, 6, 4, 2, 3, 1), row(1, 2, 3, 4, 5, 6)) // columns reversed, rows shuffled
	miss := rows(row(6, 5, 4, 3, 2, 1), row(5, 6, 4, 2, 3, 1), row(1, 2, 3, 4, 6, 5))
	for i := 0; i < 50; i++ {
		if !compare.SpiderTS.Equal(g, match, false) {
			t.Fatalf("run %d: SpiderTS.Equal(6 columns reversed)=false, want true", i)
		}
		if compare.SpiderTS.Equal(g, miss, false) {
			t.Fatalf("run %d: SpiderTS.Equal(6 columns, inconsistent)=true, want false", i)
		}
	}
}

// TestModes_MalformedNoPanic: a nil result set counts as empty, and rows of uneven
// width (which no database returns, but a result read from JSON may hold) must not
// panic any mode.
func TestModes_MalformedNoPanic(t *testing.T) {
	one := rows(row(1))
	ragged := &qeval.ResultSet{Rows: [][]qeval.Value{{qeval.Int(1), qeval.Int(2)}, {qeval.Int(1)}}}
	square := rows(row(1, 2), row(1, 2))
	for _, m := range compare.Modes() {
		t.Run(m.Name, func(t *testing.T) {
			call := func(what string, g, p *qeval.ResultSet) (got bool, panicked bool) {
				defer func() {
					if r := recover(); r != nil {
						t.Errorf("%s.Equal(%s) panicked: %v", m.ID(), what, r)
						panicked = true
					}
				}()
				return m.Equal(g, p, false), false
			}
			if got, bad := call("nil, nil", nil, nil); !bad && !got {
				t.Errorf("%s.Equal(nil, nil)=false, want true (both empty)", m.ID())
			}
			if got, bad := call("nil, 1 row", nil, one); !bad && got {
				t.Errorf("%s.Equal(nil, 1 row)=true, want false", m.ID())
			}
			if got, bad := call("1 row, nil", one, nil); !bad && got {
				t.Errorf("%s.Equal(1 row, nil)=true, want false", m.ID())
			}
			call("ragged, square", ragged, square)
			call("square, ragged", square, ragged)
			call("ragged, ragged", ragged, ragged)
		})
	}
}
