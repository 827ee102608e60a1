package execmatch_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/execmatch"
)

type matchCase struct {
	name       string
	gold, pred string
	opt        execmatch.Options
	want       qeval.Outcome
	wantErr    string // a substring of Verdict.Error
}

func runMatchCases(t *testing.T, db string, cases []matchCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := execmatch.Match(context.Background(), db, c.pred, c.gold, spiderOpts(c.opt))
			if v.Outcome != c.want {
				t.Fatalf("Match(pred %q, gold %q): outcome %s (%s), want %s\n gold: %v\n pred: %v",
					c.pred, c.gold, v.Outcome, v.Error, c.want, rowsOf(v.Gold), rowsOf(v.Pred))
			}
			if v.Match != (c.want == qeval.OutcomeMatch) {
				t.Errorf("Match=%v with outcome %s", v.Match, v.Outcome)
			}
			if c.wantErr != "" && !strings.Contains(v.Error, c.wantErr) {
				t.Errorf("Error=%q, want it to contain %q", v.Error, c.wantErr)
			}
			if (c.want == qeval.OutcomeMatch || c.want == qeval.OutcomeMismatch) && v.Error != "" {
				t.Errorf("Error=%q, want none", v.Error)
			}
		})
	}
}

func rowsOf(rs *qeval.ResultSet) any {
	if rs == nil {
		return nil
	}
	return rs.Rows
}

// TestMatch_RealSQL runs gold and predicted queries on a real SQLite file with the
// default mode (spider-ts).
func TestMatch_RealSQL(t *testing.T) {
	db := mustSingerDB(t)
	runMatchCases(t, db, []matchCase{
		{name: "identical", gold: "SELECT name, age FROM singer WHERE country = 'France'",
			pred: "SELECT name, age FROM singer WHERE country = 'France'", want: qeval.OutcomeMatch},
		{name: "swapped_columns", gold: "SELECT name, age FROM singer WHERE country = 'France'",
			pred: "SELECT age, name FROM singer WHERE country = 'France'", want: qeval.OutcomeMatch},
		{name: "reordered_rows_without_order_by", gold: "SELECT name FROM singer WHERE age > 30",
			pred: "SELECT name FROM singer WHERE age > 30 ORDER BY name DESC", want: qeval.OutcomeMatch},
		{name: "different_order_by", gold: "SELECT name FROM singer ORDER BY age",
			pred: "SELECT name FROM singer ORDER BY age DESC", want: qeval.OutcomeMismatch},
		{name: "same_order_other_expression", gold: "SELECT name FROM singer ORDER BY age",
			pred: "SELECT name FROM singer ORDER BY -age DESC", want: qeval.OutcomeMatch},
		{name: "order_by_in_pred_only_is_ignored", gold: "SELECT name FROM singer WHERE country = 'France'",
			pred: "SELECT name FROM singer WHERE country = 'France' ORDER BY age", want: qeval.OutcomeMatch},
		{name: "aggregate_same_value", gold: "SELECT count(*) FROM singer WHERE country = 'France'",
			pred: "SELECT sum(1) FROM singer WHERE country = 'France'", want: qeval.OutcomeMatch},
		{name: "aggregate_min_max_swapped_columns", gold: "SELECT min(age), max(age) FROM singer",
			pred: "SELECT max(age), min(age) FROM singer", want: qeval.OutcomeMatch},
		{name: "aggregate_wrong", gold: "SELECT count(*) FROM singer WHERE country = 'France'",
			pred: "SELECT count(*) FROM singer", want: qeval.OutcomeMismatch},
		{name: "wrong_where", gold: "SELECT name FROM singer WHERE country = 'France'",
			pred: "SELECT name FROM singer WHERE country = 'france'", want: qeval.OutcomeMismatch},
		{name: "group_by", gold: "SELECT country, count(*) FROM singer GROUP BY country",
			pred: "SELECT count(*), country FROM singer GROUP BY 2", want: qeval.OutcomeMatch},
		{name: "join", gold: "SELECT T2.name FROM concert AS T1 JOIN singer AS T2 ON T1.singer_id = T2.singer_id WHERE T1.year = 2015",
			pred: "SELECT name FROM singer WHERE singer_id IN (SELECT singer_id FROM concert WHERE year = 2015)", want: qeval.OutcomeMatch},
		{name: "syntax_error", gold: "SELECT name FROM singer",
			pred: "SELEC name FROM singer", want: qeval.OutcomePredError, wantErr: `near "SELEC": syntax error`},
		{name: "missing_column", gold: "SELECT name FROM singer",
			pred: "SELECT nme FROM singer", want: qeval.OutcomePredError, wantErr: "no such column: nme"},
		{name: "write_refused", gold: "SELECT name FROM singer",
			pred: "DELETE FROM singer", want: qeval.OutcomePredError, wantErr: "not allowed"},
		{name: "gold_error", gold: "SELECT nope FROM singer",
			pred: "SELECT name FROM singer", want: qeval.OutcomeGoldError, wantErr: "gold query: no such column: nope"},
	})
}

// TestMatch_Values: NULL, empty results, type coercion and duplicates end to end.
func TestMatch_Values(t *testing.T) {
	db := mustSingerDB(t)
	runMatchCases(t, db, []matchCase{
		{name: "null_equals_null", gold: "SELECT net_worth FROM singer WHERE singer_id = 6",
			pred: "SELECT NULL", want: qeval.OutcomeMatch},
		{name: "null_not_zero", gold: "SELECT net_worth FROM singer WHERE singer_id = 6",
			pred: "SELECT 0", want: qeval.OutcomeMismatch},
		{name: "empty_vs_empty_any_columns", gold: "SELECT name FROM singer WHERE age > 100",
			pred: "SELECT name, age FROM singer WHERE age > 200", want: qeval.OutcomeMatch},
		{name: "empty_vs_rows", gold: "SELECT name FROM singer WHERE age > 100",
			pred: "SELECT name FROM singer WHERE age > 50", want: qeval.OutcomeMismatch},
		{name: "int_equals_float", gold: "SELECT max(net_worth) FROM singer",
			pred: "SELECT 30", want: qeval.OutcomeMatch},
		{name: "text_never_number", gold: "SELECT age FROM singer WHERE singer_id = 1",
			pred: "SELECT '52'", want: qeval.OutcomeMismatch},
		{name: "text_number_in_bag", gold: "SELECT age FROM singer WHERE singer_id = 1",
			pred: "SELECT '52'", opt: spiderOpts(execmatch.Options{Mode: "bag"}), want: qeval.OutcomeMatch},
		{name: "float_rounding_in_bag", gold: "SELECT avg(age) FROM singer WHERE country = 'France'",
			pred: "SELECT sum(age) * 1.0 / count(*) FROM singer WHERE country = 'France'", opt: spiderOpts(execmatch.Options{Mode: "bag"}), want: qeval.OutcomeMatch},
		{name: "duplicates_matter", gold: "SELECT country FROM singer",
			pred: "SELECT country FROM singer GROUP BY country", want: qeval.OutcomeMismatch},
		{name: "distinct_removed_from_both", gold: "SELECT DISTINCT country FROM singer",
			pred: "SELECT country FROM singer", want: qeval.OutcomeMatch},
		{name: "keep_distinct", gold: "SELECT DISTINCT country FROM singer",
			pred: "SELECT country FROM singer", opt: spiderOpts(execmatch.Options{KeepDistinct: true}), want: qeval.OutcomeMismatch},
		{name: "bird_ex_sets", gold: "SELECT DISTINCT country FROM singer",
			pred: "SELECT country FROM singer", opt: spiderOpts(execmatch.Options{Mode: "bird-ex"}), want: qeval.OutcomeMatch},
		{name: "bird_ex_column_order", gold: "SELECT name, age FROM singer",
			pred: "SELECT age, name FROM singer", opt: spiderOpts(execmatch.Options{Mode: "bird-ex"}), want: qeval.OutcomeMismatch},
		{name: "subset_extra_column", gold: "SELECT name FROM singer WHERE age > 40",
			pred: "SELECT singer_id, name, age FROM singer WHERE age > 40", opt: spiderOpts(execmatch.Options{Mode: "subset"}), want: qeval.OutcomeMatch},
		{name: "ordered_mode", gold: "SELECT name FROM singer WHERE age > 40",
			pred: "SELECT name FROM singer WHERE age > 40 ORDER BY name DESC", opt: spiderOpts(execmatch.Options{Mode: "ordered"}), want: qeval.OutcomeMismatch},
	})
}

// TestMatch_StoredValues: values come back as Python's sqlite3 returns them to the
// official evaluator: text with invalid UTF-8 bytes dropped, DATETIME and BOOLEAN
// columns as stored (no conversion to times or booleans), REAL as float. Every verdict
// was checked with the official eval_exec_match on the same database.
func TestMatch_StoredValues(t *testing.T) {
	db := mustBuildDB(t, t.TempDir(), "stored.sqlite",
		`CREATE TABLE t (id INTEGER, name TEXT, d DATETIME, b BOOLEAN, r REAL)`,
		`INSERT INTO t VALUES (1, CAST(X'41FF42E282' AS TEXT), '2020-01-01 00:00:00', 1, 2)`)
	runMatchCases(t, db, []matchCase{
		{name: "invalid_utf8_dropped", gold: "SELECT name FROM t", pred: "SELECT 'AB'", want: qeval.OutcomeMatch},
		{name: "datetime_as_stored_text", gold: "SELECT d FROM t", pred: "SELECT '2020-01-01 00:00:00'", want: qeval.OutcomeMatch},
		{name: "boolean_as_stored_int", gold: "SELECT b FROM t", pred: "SELECT 1", want: qeval.OutcomeMatch},
		{name: "boolean_not_text_true", gold: "SELECT b FROM t", pred: "SELECT 'True'", want: qeval.OutcomeMismatch},
		{name: "real_equals_int", gold: "SELECT r FROM t", pred: "SELECT 2", want: qeval.OutcomeMatch},
		{name: "real_not_text", gold: "SELECT r FROM t", pred: "SELECT '2.0'", want: qeval.OutcomeMismatch},
	})
}

// TestMatch_SpiderRewrites: the official clean-ups, end to end.
func TestMatch_SpiderRewrites(t *testing.T) {
	db := mustSingerDB(t)
	runMatchCases(t, db, []matchCase{
		{name: "value_placeholder", gold: "SELECT name FROM singer WHERE age > 1",
			pred: "SELECT name FROM singer WHERE age > value", want: qeval.OutcomeMatch},
		{name: "spaced_operator", gold: "SELECT name FROM singer WHERE age >= 41",
			pred: "SELECT name FROM singer WHERE age > = 41", want: qeval.OutcomeMatch},
		{name: "cur_year", gold: "SELECT YEAR(CURDATE()) - age FROM singer",
			pred: "SELECT 2020 - age FROM singer", want: qeval.OutcomeMatch},
		{name: "no_rewrite_in_bag", gold: "SELECT name FROM singer WHERE age >= 41",
			pred: "SELECT name FROM singer WHERE age > = 41", opt: spiderOpts(execmatch.Options{Mode: "bag"}), want: qeval.OutcomePredError, wantErr: `near "="`},
		{name: "order_by_in_gold_text", gold: "SELECT name FROM singer WHERE country = 'France' ORDER BY age",
			pred: "SELECT name FROM singer WHERE country = 'France'", want: qeval.OutcomeMismatch},
	})
}

// TestMatch_SpiderSecondStatement: under the default flags the official evaluator
// keeps only the first statement of each query (remove_distinct joins the tokens of
// sqlparse.parse(q)[0]), so a prediction followed by a second statement is judged on
// its first one. Checked with the official code: exec 1.
func TestMatch_SpiderSecondStatement(t *testing.T) {
	db := mustSingerDB(t)
	runMatchCases(t, db, []matchCase{
		{name: "second_statement_dropped", gold: "SELECT count(*) FROM singer",
			pred: "SELECT count(*) FROM singer; SELECT 1", want: qeval.OutcomeMatch},
		{name: "second_statement_kept_with_keep_distinct", gold: "SELECT count(*) FROM singer",
			pred: "SELECT count(*) FROM singer; SELECT 1", opt: spiderOpts(execmatch.Options{KeepDistinct: true}), want: qeval.OutcomePredError, wantErr: "multiple statements"},
	})
}

// TestMatch_Verdict checks the fields of a verdict besides its outcome.
func TestMatch_Verdict(t *testing.T) {
	db := mustSingerDB(t)
	v := execmatch.Match(context.Background(), db, "SELECT age, name FROM singer WHERE age > 50", "SELECT name, age FROM singer WHERE age > 50", spiderOpts(execmatch.Options{}))
	if !v.Match || v.Mode != "spider-ts@1" || v.Database != db || v.Candidates != 1 || v.CandidateCapHit {
		t.Fatalf("verdict %+v", v)
	}
	if v.Gold == nil || v.Pred == nil || len(v.Gold.Rows) != 1 || v.Gold.Rows[0][0] != qeval.Text("Joe Sharp") || v.Pred.Rows[0][0] != qeval.Int(52) {
		t.Fatalf("results: gold %v, pred %v", rowsOf(v.Gold), rowsOf(v.Pred))
	}
	if got := v.Gold.ColumnNames(); len(got) != 2 || got[0] != "name" || got[1] != "age" {
		t.Errorf("gold columns %v, want [name age]", got)
	}

	v = execmatch.Match(context.Background(), db, "SELEC 1", "SELECT 1", spiderOpts(execmatch.Options{}))
	if v.Pred != nil || v.Gold == nil {
		t.Errorf("pred_error verdict: gold %v, pred %v; want the gold result and no pred result", rowsOf(v.Gold), rowsOf(v.Pred))
	}
}

func TestMatch_Errors(t *testing.T) {
	db := mustSingerDB(t)
	t.Run("ErrUnknownMode", func(t *testing.T) {
		_, err := execmatch.New(spiderOpts(execmatch.Options{Mode: "bagg"}))
		want := `unknown comparison mode "bagg" (known: bag, bird-ex, ordered, spider-ts, spider2, spider2-strict, subset)`
		if err == nil || err.Error() != want {
			t.Fatalf("New(Mode: bagg) error %v, want %s", err, want)
		}
		if qeval.ErrorCode(err) != qeval.CodeInvalid {
			t.Errorf("code %s, want %s", qeval.ErrorCode(err), qeval.CodeInvalid)
		}
	})
	t.Run("ErrNoDatabase", func(t *testing.T) {
		v := execmatch.Match(context.Background(), db+".missing", "SELECT 1", "SELECT 1", spiderOpts(execmatch.Options{}))
		if v.Outcome != qeval.OutcomeGoldError || !strings.Contains(v.Error, "no such file") {
			t.Fatalf("missing database: %s %q, want gold_error naming the missing file", v.Outcome, v.Error)
		}
	})
	t.Run("Timeout", func(t *testing.T) {
		opt := spiderOpts(execmatch.Options{Limits: qeval.Limits{Timeout: 100 * time.Millisecond}})
		start := time.Now()
		v := execmatch.Match(context.Background(), db,
			"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c", "SELECT 1", opt)
		if v.Outcome != qeval.OutcomeTimeout {
			t.Fatalf("endless query: %s %q, want timeout", v.Outcome, v.Error)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("timeout took %v", d)
		}
	})
	t.Run("TooLarge", func(t *testing.T) {
		opt := spiderOpts(execmatch.Options{Limits: qeval.Limits{MaxRows: 3}})
		v := execmatch.Match(context.Background(), db, "SELECT name FROM singer", "SELECT 1", opt)
		if v.Outcome != qeval.OutcomeTooLarge {
			t.Fatalf("6 rows with a cap of 3: %s %q, want too_large", v.Outcome, v.Error)
		}
	})
	t.Run("Canceled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		v := execmatch.Match(ctx, db, "SELECT name FROM singer", "SELECT name FROM singer", spiderOpts(execmatch.Options{}))
		if v.Outcome != qeval.OutcomeCanceled || v.Match {
			t.Fatalf("canceled context: %s match=%v, want canceled", v.Outcome, v.Match)
		}
	})
}

// A hostile prediction is a pred_error before any engine or parser sees it.
func TestMatch_HostileSize(t *testing.T) {
	db := mustSingerDB(t)
	q := "SELECT " + strings.Repeat("(", 100_000) + "1" + strings.Repeat(")", 100_000)
	v := execmatch.Match(context.Background(), db, q, "SELECT 1", spiderOpts(execmatch.Options{}))
	if v.Outcome != qeval.OutcomePredError || !strings.Contains(v.Error, "too deeply nested") {
		t.Errorf("%s %q", v.Outcome, v.Error)
	}
}
