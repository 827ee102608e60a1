package bird_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/bird"
	"github.com/qeval/qeval/mock"
)

func TestReadPredictions(t *testing.T) {
	in := `{"0": "SELECT 1\t----- bird -----\tdb_a",
	        "1": "  SELECT 2  ",
	        "2": null,
	        "3": "SELECT 3\t----- bird -----\tx\t----- bird -----\ty",
	        "1": "SELECT 4\t----- bird -----\tdb_b"}`
	p, err := bird.ReadPredictions(strings.NewReader(in), "p.json")
	if err != nil {
		t.Fatal(err)
	}
	want := []bird.Prediction{
		{Key: "0", SQL: "SELECT 1", DBID: "db_a"},
		{Key: "1", SQL: "SELECT 4", DBID: "db_b"}, // the last value, at the first position
		{Key: "2", SQL: " "},                      // not a string: the official " "
		{Key: "3", SQL: "SELECT 3\t----- bird -----\tx\t----- bird -----\ty"},
	}
	if !reflect.DeepEqual(p.List, want) {
		t.Errorf("ReadPredictions:\n got %+v\nwant %+v", p.List, want)
	}
	if !reflect.DeepEqual(p.Duplicates, []string{"1"}) {
		t.Errorf("Duplicates = %v, want [1]", p.Duplicates)
	}
	t.Run("ErrNotObject", func(t *testing.T) {
		_, err := bird.ReadPredictions(strings.NewReader(`["SELECT 1"]`), "p.json")
		if err == nil || !strings.Contains(err.Error(), "p.json") || !strings.Contains(err.Error(), "JSON object") {
			t.Errorf("err = %v, want one naming p.json and a JSON object", err)
		}
	})
}

func TestReadGold(t *testing.T) {
	g, err := bird.ReadGold(strings.NewReader("SELECT 1\tdb_a\n  SELECT 2\tdb_b  \nno tab here\nSELECT 3\tdb_c\n"), "dev.sql")
	if err != nil {
		t.Fatal(err)
	}
	if len(g) != 4 {
		t.Fatalf("%d items, want 4", len(g))
	}
	if g[0].SQL != "SELECT 1" || g[1].SQL != "SELECT 2" || g[1].DBID != "db_b" || g[3].DBID != "db_c" {
		t.Errorf("items = %+v", g)
	}
	if g[2].Err == nil || !strings.Contains(g[2].Err.Error(), "dev.sql:3") {
		t.Errorf("line 3: err = %v, want one naming dev.sql:3", g[2].Err)
	}
	t.Run("JSON", func(t *testing.T) {
		for _, in := range []string{
			`[{"question_id": 0, "db_id": "a", "SQL": "SELECT 1", "difficulty": "simple"}, {"db_id": "b", "SQL": "SELECT 2", "difficulty": "challenging"}]`,
			"{\"db_id\": \"a\", \"SQL\": \"SELECT 1\", \"difficulty\": \"simple\"}\n{\"db_id\": \"b\", \"SQL\": \"SELECT 2\", \"difficulty\": \"challenging\"}\n",
		} {
			g, err := bird.ReadGold(strings.NewReader(in), "dev.json")
			if err != nil {
				t.Fatal(err)
			}
			want := []bird.Gold{{SQL: "SELECT 1", DBID: "a", Difficulty: "simple"}, {SQL: "SELECT 2", DBID: "b", Difficulty: "challenging"}}
			if !reflect.DeepEqual(g, want) {
				t.Errorf("ReadGold(%.20q…) = %+v, want %+v", in, g, want)
			}
			d, err := bird.ReadDifficulties(strings.NewReader(in), "dev.json")
			if err != nil || !reflect.DeepEqual(d, []string{"simple", "challenging"}) {
				t.Errorf("ReadDifficulties = %v, %v", d, err)
			}
		}
	})
}

func TestReward(t *testing.T) {
	for _, c := range []struct{ ratio, want float64 }{
		{0, 0}, {0.1, 0.25}, {0.25, 0.5}, {0.49, 0.5}, {0.5, 0.75}, {0.99, 0.75}, {1, 1}, {1.99, 1}, {2, 1.25}, {50, 1.25},
	} {
		if got := bird.Reward(c.ratio); got != c.want {
			t.Errorf("Reward(%v) = %v, want %v", c.ratio, got, c.want)
		}
	}
}

func TestDropOutliers(t *testing.T) {
	xs := []float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 100}
	if got := bird.DropOutliers(xs); len(got) != 12 {
		t.Errorf("DropOutliers(twelve 1s and 100) = %v, want the twelve 1s", got)
	}
	// all equal: nothing lies strictly within mean ± 0 (the official script then
	// divides by zero and scores the item 0)
	if got := bird.DropOutliers([]float64{2, 2, 2}); len(got) != 0 {
		t.Errorf("DropOutliers(2, 2, 2) = %v, want none", got)
	}
}

// fakeDB answers queries from a table of canned results; an unknown query fails.
func fakeDB(results map[string]*qeval.ResultSet) qeval.Opener {
	return func(path string, _ qeval.Limits) (qeval.Executor, error) {
		return &mock.Executor{QueryFunc: func(_ context.Context, q string) (*qeval.ResultSet, error) {
			if rs, ok := results[q]; ok {
				return rs, nil
			}
			return nil, &qeval.Error{Code: qeval.CodeQuery, Message: "no such query: " + q}
		}}, nil
	}
}

func rows(vals ...int64) *qeval.ResultSet {
	rs := &qeval.ResultSet{Columns: []qeval.Column{{Name: "x"}}}
	for _, v := range vals {
		rs.Rows = append(rs.Rows, []qeval.Value{qeval.Int(v)})
	}
	return rs
}

// TestRun_PairingByPosition: a prediction file written with sorted keys ("0", "1",
// "10", "2", …) pairs the wrong predictions by position, as the official scripts do
// (mini_dev #41); qeval reports the misplaced keys and scores by key beside it.
func TestRun_PairingByPosition(t *testing.T) {
	results := map[string]*qeval.ResultSet{}
	var gold []bird.Gold
	for i := 0; i < 12; i++ {
		q := "Q" + string(rune('a'+i))
		results[q] = rows(int64(i))
		gold = append(gold, bird.Gold{SQL: q, DBID: "db", Difficulty: "simple"})
	}
	// keys sorted as strings; key 11 is missing and "x" is extra
	var b strings.Builder
	b.WriteString("{")
	for n, k := range []string{"0", "1", "10", "2", "3", "4", "5", "6", "7", "8", "9", "x"} {
		if n > 0 {
			b.WriteString(",")
		}
		i := 0
		if k != "x" {
			i = int(k[0] - '0')
			if k == "10" {
				i = 10
			}
		}
		b.WriteString(`"` + k + `": "Q` + string(rune('a'+i)) + `\t----- bird -----\tdb"`)
	}
	b.WriteString("}")
	preds, err := bird.ReadPredictions(strings.NewReader(b.String()), "p.json")
	if err != nil {
		t.Fatal(err)
	}
	ev, err := bird.New(bird.Options{Open: fakeDB(results), Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer ev.Close()
	items, pairing := ev.Run(context.Background(), gold, preds, nil)
	if !reflect.DeepEqual(pairing.Missing, []int{11}) || !reflect.DeepEqual(pairing.Extra, []string{"x"}) || pairing.Moved != 9 {
		t.Errorf("pairing = %+v, want missing [11], extra [x], 9 moved", pairing)
	}
	byPos, byKey := 0, 0
	for _, it := range items {
		byPos += it.EX
		if it.EXByKey == nil {
			t.Fatalf("item %d: no ex_by_key although the pairings differ", it.Index)
		}
		byKey += *it.EXByKey
	}
	// by position: items 0 and 1 are right; 2..10 get the next key's query; 11 gets
	// the prediction keyed "x" (Qa); by key: 0..10 right, 11 has none
	if byPos != 2 || byKey != 11 {
		t.Errorf("EX by position %d, by key %d; want 2 and 11", byPos, byKey)
	}
	lv := bird.Summarize(items)["total"]
	if lv.Count != 12 || lv.EXByKey == nil || *lv.EXByKey != float64(11)/12*100 {
		t.Errorf("total = %+v", lv)
	}
}

func TestRun_Outcomes(t *testing.T) {
	results := map[string]*qeval.ResultSet{"G": rows(1, 2), "P": rows(2, 1, 1), "W": rows(1)}
	gold := []bird.Gold{{SQL: "G", DBID: "d"}, {SQL: "G", DBID: "d"}, {SQL: "G", DBID: "d"}, {SQL: "nope", DBID: "d"}, {Err: errors.New("dev.sql:5: bad line")}, {SQL: "G", DBID: "d"}}
	preds := &bird.Predictions{List: []bird.Prediction{{Key: "0", SQL: "P"}, {Key: "1", SQL: "W"}, {Key: "2", SQL: "broken"}, {Key: "3", SQL: "P"}, {Key: "4", SQL: "P"}}}
	ev, err := bird.New(bird.Options{Open: fakeDB(results)})
	if err != nil {
		t.Fatal(err)
	}
	items, _ := ev.Run(context.Background(), gold, preds, []string{"simple", "moderate"})
	want := []struct {
		ex      int
		f1      float64
		outcome qeval.Outcome
		diff    string
	}{
		// set equality (duplicates collapse), but soft-F1 pairs rows by position
		// after de-duplication: (2 vs 1), (1 vs 2) share no value
		{1, 0, qeval.OutcomeMatch, "simple"},
		{0, 2.0 / 3, qeval.OutcomeMismatch, "moderate"}, // tp 1, fn 1: p 1, r 1/2
		{0, 0, qeval.OutcomePredError, ""},
		{0, 0, qeval.OutcomeGoldError, ""},
		{0, 0, qeval.OutcomeGoldError, ""},
		{0, 0, qeval.OutcomeSkipped, ""}, // no prediction at position 5
	}
	for i, w := range want {
		it := items[i]
		if it.EX != w.ex || it.SoftF1 != w.f1 || it.Outcome != w.outcome || it.Difficulty != w.diff {
			t.Errorf("item %d = ex %d f1 %v %s %q (%s), want ex %d f1 %v %s %q", i, it.EX, it.SoftF1, it.Outcome, it.Difficulty, it.Error, w.ex, w.f1, w.outcome, w.diff)
		}
	}
	if !strings.Contains(items[4].Error, "dev.sql:5") {
		t.Errorf("item 4 error %q does not name dev.sql:5", items[4].Error)
	}
}
