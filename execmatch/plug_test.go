package execmatch_test

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/execmatch"
)

func TestPlugValues(t *testing.T) {
	cases := []struct {
		name       string
		gold, pred string
		max        int
		want       []string
		wantTotal  int
	}{
		{
			// as the official code: semicolons and tabs taken out, a minus sign right
			// before digits is part of the value, "1." and 1e-5 are no values
			name: "official_cleaning_and_signs",
			gold: "SELECT a FROM t WHERE b = -7", pred: "SELECT a FROM t WHERE (b = 1.\tOR c = 1e-5 OR c=-2.5; )", max: 100,
			want:      []string{"SELECT a FROM t WHERE (b = 1.OR c = 1e-5 OR c= -7 )"},
			wantTotal: 1,
		},
		{
			name: "no_slot_cleaned_once",
			gold: "SELECT a FROM t WHERE b = 7", pred: "SELECT count(*) FROM t WHERE (b > c;)", max: 100,
			want:      []string{"SELECT count(*) FROM t WHERE (b > c)"},
			wantTotal: 1,
		},
		{
			// values sorted ('x' before 3), the last slot varying fastest
			name: "two_slots_two_values",
			gold: "SELECT a FROM t WHERE b = 'x' AND c > 3", pred: "SELECT a FROM t WHERE b = 'y' AND c > 5", max: 100,
			want: []string{
				"SELECT a FROM t WHERE b = 'x' AND c > 'x'",
				"SELECT a FROM t WHERE b = 'x' AND c > 3",
				"SELECT a FROM t WHERE b = 3 AND c > 'x'",
				"SELECT a FROM t WHERE b = 3 AND c > 3",
			},
			wantTotal: 4,
		},
		{
			name: "names_are_not_slots",
			gold: "SELECT T1.a FROM t AS T1 WHERE T1.col2 = 7", pred: "SELECT T1.a FROM t AS T1 WHERE col2 = 5 AND a1 > 2", max: 100,
			want: []string{
				"SELECT T1.a FROM t AS T1 WHERE col2 = 7 AND a1 > 7",
			},
			wantTotal: 1,
		},
		{
			name: "quoted_names_skipped_escaped_quotes_kept",
			gold: "SELECT 1 FROM t WHERE name = 'O''Neil'", pred: "SELECT `a 1` FROM [t 2] WHERE name = 'o''neil'", max: 100,
			want: []string{ // gold values "'O''Neil'" and "1", sorted
				"SELECT `a 1` FROM [t 2] WHERE name = 'O''Neil'",
				"SELECT `a 1` FROM [t 2] WHERE name = 1",
			},
			wantTotal: 2,
		},
		{
			name: "double_quoted_and_decimal",
			gold: `SELECT a FROM t WHERE b = "x" AND c < 1.5`, pred: "SELECT a FROM t WHERE c < .5", max: 100,
			want:      []string{`SELECT a FROM t WHERE c < "x"`, "SELECT a FROM t WHERE c < 1.5"},
			wantTotal: 2,
		},
		{
			name: "duplicate_gold_values_once",
			gold: "SELECT a FROM t WHERE b = 1 OR c = 1", pred: "SELECT a FROM t WHERE b = 2", max: 100,
			want: []string{"SELECT a FROM t WHERE b = 1"}, wantTotal: 1,
		},
		{
			name: "no_slots", gold: "SELECT a FROM t WHERE b = 1", pred: "SELECT a FROM t", max: 100,
			want: nil, wantTotal: 0,
		},
		{
			name: "no_gold_values", gold: "SELECT a FROM t", pred: "SELECT a FROM t WHERE b = 1", max: 100,
			want: nil, wantTotal: 0,
		},
		{
			name: "cap", gold: "SELECT a FROM t WHERE b IN (1, 2, 3)", pred: "SELECT a FROM t WHERE b IN (4, 5, 6, 7)", max: 5,
			want: []string{
				"SELECT a FROM t WHERE b IN (1, 1, 1, 1)",
				"SELECT a FROM t WHERE b IN (1, 1, 1, 2)",
				"SELECT a FROM t WHERE b IN (1, 1, 1, 3)",
				"SELECT a FROM t WHERE b IN (1, 1, 2, 1)",
				"SELECT a FROM t WHERE b IN (1, 1, 2, 2)",
			},
			wantTotal: 81,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, total := execmatch.PlugValues(c.gold, c.pred, c.max)
			if !slices.Equal(got, c.want) {
				t.Errorf("PlugValues candidates:\n got  %q\n want %q", got, c.want)
			}
			if total != c.wantTotal {
				t.Errorf("PlugValues total=%d, want %d", total, c.wantTotal)
			}
		})
	}
	t.Run("huge_total_capped", func(t *testing.T) {
		pred := "SELECT a FROM t WHERE b IN (" + strings.TrimSuffix(strings.Repeat("0, ", 40), ", ") + ")"
		got, total := execmatch.PlugValues("SELECT 1, 2, 3", pred, 7)
		if len(got) != 7 || total != math.MaxInt32 {
			t.Errorf("3 values into 40 slots, max 7: %d candidates, total %d; want 7 and %d (3^40 saturated)", len(got), total, math.MaxInt32)
		}
	})
}

// TestMatch_PlugValue: with PlugValue the prediction also runs with the gold values in
// its slots; the verdict says how many candidates were tried and whether the cap cut
// the search short.
func TestMatch_PlugValue(t *testing.T) {
	db := mustSingerDB(t)
	gold := "SELECT name FROM singer WHERE country = 'France' AND age > 40"
	pred := "SELECT name FROM singer WHERE country = 'france' AND age > 30"
	// gold values, sorted: 'France', 40; candidates (F,F) (F,40) (40,F) (40,40)
	ctx := context.Background()

	if v := execmatch.Match(ctx, db, pred, gold, spiderOpts(execmatch.Options{})); v.Outcome != qeval.OutcomeMismatch || v.Candidates != 1 {
		t.Fatalf("without plug-value: %s, %d candidates; want mismatch, 1", v.Outcome, v.Candidates)
	}
	v := execmatch.Match(ctx, db, pred, gold, spiderOpts(execmatch.Options{PlugValue: true}))
	// The third query (F,40) matches; 5 were generated. Either count is "tried".
	if !v.Match || v.Candidates < 3 || v.Candidates > 5 || v.CandidateCapHit {
		t.Fatalf("plug-value: match=%v, %d candidates, cap hit %v; want match, 3 to 5, false", v.Match, v.Candidates, v.CandidateCapHit)
	}
	v = execmatch.Match(ctx, db, pred, gold, spiderOpts(execmatch.Options{PlugValue: true, MaxCandidates: 2}))
	if !v.Match || v.Candidates != 3 || !v.CandidateCapHit {
		t.Fatalf("plug-value, max 2: match=%v, %d candidates, cap hit %v; want match, 3, true", v.Match, v.Candidates, v.CandidateCapHit)
	}
	v = execmatch.Match(ctx, db, pred, gold, spiderOpts(execmatch.Options{PlugValue: true, MaxCandidates: 1}))
	if v.Match || v.Outcome != qeval.OutcomeMismatch || v.Candidates != 2 || !v.CandidateCapHit {
		t.Fatalf("plug-value, max 1: %s, %d candidates, cap hit %v; want mismatch, 2, true", v.Outcome, v.Candidates, v.CandidateCapHit)
	}
	// When no candidate matches, the verdict is the prediction's as written.
	v = execmatch.Match(ctx, db, "SELECT nme FROM singer WHERE age > 30", gold, spiderOpts(execmatch.Options{PlugValue: true}))
	if v.Outcome != qeval.OutcomePredError || !strings.Contains(v.Error, "no such column: nme") {
		t.Fatalf("plug-value, broken prediction: %s %q, want pred_error naming the column", v.Outcome, v.Error)
	}
}

// FuzzPlugValues: never panics, returns at most max candidates, no more than total,
// each no longer than the prediction with every slot holding the longest gold value.
func FuzzPlugValues(f *testing.F) {
	f.Add("SELECT a FROM t WHERE b = 'x' AND c > 3", "SELECT a FROM t WHERE b = 'y' AND c > 5", uint8(10))
	f.Add("SELECT 1, 2, 3", "SELECT a FROM t WHERE b IN (4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)", uint8(255))
	f.Add(`SELECT "a" 'b' 1.5 .5 5.`, "SELECT `x` [y] 'unterminated", uint8(3))
	f.Add("'a''b'", "''''", uint8(0))
	f.Fuzz(func(t *testing.T, gold, pred string, max uint8) {
		got, total := execmatch.PlugValues(gold, pred, int(max))
		if len(got) > int(max) {
			t.Fatalf("%d candidates, max %d", len(got), max)
		}
		if total < len(got) || total < 0 {
			t.Fatalf("total %d with %d candidates", total, len(got))
		}
		if total <= int(max) && len(got) != total {
			t.Fatalf("total %d within max %d but %d candidates", total, max, len(got))
		}
		limit := len(pred) * (1 + len(gold))
		for _, c := range got {
			if len(c) > limit {
				t.Fatalf("candidate of %d bytes from a %d-byte prediction and %d-byte gold", len(c), len(pred), len(gold))
			}
		}
	})
}
