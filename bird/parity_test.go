package bird_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qeval/qeval/bird"
	"github.com/qeval/qeval/internal/testdata"
	"github.com/qeval/qeval/sqlite"
)

// The six Spider prediction sets, scored by the official BIRD scripts (mini_dev
// evaluation_ex.py and evaluation_f1.py) on the Spider databases; their per-item
// verdicts are in spider/oracle_bird/<set>.jsonl.
var paritySets = []string{"dailsql_gpt4", "c3_chatgpt", "graphix", "dinsql_gpt4_zero_shot", "spider_pred_example", "gold_as_pred"}

// birdPredictions converts one Spider prediction file (one query per line) into
// BIRD's prediction JSON, keyed by line index, each value "<sql>\t----- bird -----\t<db_id>".
// gold_as_pred passes the gold file itself, whose lines already end in "\t<db_id>":
// the official scripts then run "<sql>\t<db_id>" as the query, and so do we.
func birdPredictions(tb testing.TB, shared, set string, gold []bird.Gold) string {
	tb.Helper()
	path := filepath.Join(shared, "spider", "predictions", set+"_no_wta1.txt")
	if set == "gold_as_pred" {
		path = filepath.Join(shared, "spider", "dev_gold_no_wta1.sql")
	}
	lines := mustLines(tb, path)
	if len(lines) != len(gold) {
		tb.Fatalf("%s: %d lines, gold has %d", path, len(lines), len(gold))
	}
	var b strings.Builder
	b.WriteString("{")
	for i, l := range lines {
		if i > 0 {
			b.WriteString(",")
		}
		k, _ := json.Marshal(fmt.Sprint(i))
		v, _ := json.Marshal(l + bird.Separator + gold[i].DBID)
		fmt.Fprintf(&b, "\n%s: %s", k, v)
	}
	b.WriteString("\n}")
	return b.String()
}

func mustLines(tb testing.TB, path string) []string {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

type oracleItem struct {
	Index  int     `json:"index"`
	EX     float64 `json:"ex"`
	SoftF1 float64 `json:"soft_f1"`
}

// spiderEvaluator scores on the shared Spider databases as `qeval bird` does, with the
// official scripts' SQLite (sqlite.OfficialOpener); it is closed with the test.
func spiderEvaluator(t *testing.T, shared string) *bird.Evaluator {
	t.Helper()
	ev, err := bird.New(bird.Options{Open: sqlite.OfficialOpener, DBRoot: filepath.Join(shared, "spider", "database")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ev.Close() })
	return ev
}

func TestParity_OfficialScripts(t *testing.T) {
	shared := testdata.SharedDir(t)
	goldPath := filepath.Join(shared, "spider", "dev_gold_no_wta1.sql")
	f, err := os.Open(goldPath)
	if err != nil {
		t.Fatal(err)
	}
	gold, err := bird.ReadGold(f, goldPath)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	ev := spiderEvaluator(t, shared)
	for _, set := range paritySets {
		t.Run(set, func(t *testing.T) {
			js := birdPredictions(t, shared, set, gold)
			preds, err := bird.ReadPredictions(strings.NewReader(js), set+".json")
			if err != nil {
				t.Fatal(err)
			}
			items, pairing := ev.Run(context.Background(), gold, preds, nil)
			if !pairing.Agrees() {
				t.Errorf("pairing = %+v, want keys 0..%d in order", pairing, len(gold)-1)
			}
			oracle := mustLines(t, filepath.Join(shared, "spider", "oracle_bird", set+".jsonl"))
			if len(oracle) != len(items) {
				t.Fatalf("oracle has %d items, we scored %d", len(oracle), len(items))
			}
			bad := 0
			for _, l := range oracle {
				var o oracleItem
				if err := json.Unmarshal([]byte(l), &o); err != nil {
					t.Fatal(err)
				}
				it := items[o.Index]
				if float64(it.EX) != o.EX || it.SoftF1 != o.SoftF1 {
					bad++
					if bad <= 10 {
						t.Errorf("item %d (%s): ex=%d soft_f1=%v (%s %s), official ex=%v soft_f1=%v",
							o.Index, it.DBID, it.EX, it.SoftF1, it.Outcome, it.Error, o.EX, o.SoftF1)
					}
				}
			}
			if bad > 0 {
				t.Errorf("%d of %d items differ from the official scripts", bad, len(items))
			}
		})
	}
}

// TestParity_Mutations checks EX and soft-F1 against the official scripts' on 1,405
// predictions made by editing real ones at random (internal/testdata.Mutation).
func TestParity_Mutations(t *testing.T) {
	shared := testdata.SharedDir(t)
	ms := testdata.SpiderMutations(t)
	var gb, pb strings.Builder
	pb.WriteString("{")
	for i, m := range ms {
		fmt.Fprintf(&gb, "%s\t%s\n", m.Gold, m.DBID)
		if i > 0 {
			pb.WriteString(",")
		}
		v, err := json.Marshal(m.Pred + "\t----- bird -----\t" + m.DBID)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&pb, "%q:%s", fmt.Sprint(i), v)
	}
	pb.WriteString("}")
	gold, err := bird.ReadGold(strings.NewReader(gb.String()), "mutations.sql")
	if err != nil {
		t.Fatal(err)
	}
	preds, err := bird.ReadPredictions(strings.NewReader(pb.String()), "mutations.json")
	if err != nil {
		t.Fatal(err)
	}
	ev := spiderEvaluator(t, shared)
	items, _ := ev.Run(context.Background(), gold, preds, nil)
	bad, ex := 0, 0
	for i, it := range items {
		ex += it.EX
		if it.EX != ms[i].BirdEX || it.SoftF1 != ms[i].BirdF1 {
			if bad++; bad <= 10 {
				t.Errorf("item %d (%s): ex=%d soft_f1=%v (%s %s), official ex=%d soft_f1=%v\n  pred: %s\n  gold: %s",
					i, it.DBID, it.EX, it.SoftF1, it.Outcome, it.Error, ms[i].BirdEX, ms[i].BirdF1, ms[i].Pred, ms[i].Gold)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d items differ from the official scripts", bad, len(items))
	}
	t.Logf("%d items, EX %d", len(items), ex)
}
