package bird_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qeval/qeval/bird"
	"github.com/qeval/qeval/internal/testdata"
	"github.com/qeval/qeval/sqlite"
)

// BenchmarkRun scores the 972 converted DAIL-SQL items (EX and soft-F1), the work the
// official evaluation_ex.py and evaluation_f1.py do in two runs. Compare with:
//
//	python3 evaluation_ex.py --predicted_sql_path dailsql_gpt4.json --ground_truth_path dev_gold_no_wta1.sql ...
func BenchmarkRun(b *testing.B) {
	shared := testdata.SharedDir(b)
	goldPath := filepath.Join(shared, "spider", "dev_gold_no_wta1.sql")
	f, err := os.Open(goldPath)
	if err != nil {
		b.Fatal(err)
	}
	gold, err := bird.ReadGold(f, goldPath)
	f.Close()
	if err != nil {
		b.Fatal(err)
	}
	preds, err := bird.ReadPredictions(strings.NewReader(birdPredictions(b, shared, "dailsql_gpt4", gold)), "p.json")
	if err != nil {
		b.Fatal(err)
	}
	ev, err := bird.New(bird.Options{Open: sqlite.Opener, DBRoot: filepath.Join(shared, "spider", "database")})
	if err != nil {
		b.Fatal(err)
	}
	defer ev.Close()
	b.ResetTimer()
	for b.Loop() {
		items, _ := ev.Run(context.Background(), gold, preds, nil)
		if len(items) != len(gold) {
			b.Fatal("short run")
		}
	}
}
