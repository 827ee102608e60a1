package execmatch_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/execmatch"
	"github.com/qeval/qeval/internal/testdata"
	"github.com/qeval/qeval/registry"
	"github.com/qeval/qeval/sqlite"
)

type oracleItem struct {
	Line     int    `json:"line"`
	DBID     string `json:"db_id"`
	Hardness string `json:"hardness"`
	Exec     int    `json:"exec"`
	Pred     string `json:"pred"`
	Gold     string `json:"gold"`
}

func readOracle(t testing.TB, path string) []oracleItem {
	t.Helper()
	return testdata.ReadJSONL[oracleItem](t, path)
}

// officialCatalog opens the SQLite files as `qeval spider` does, with the official
// evaluator's SQLite (sqlite.OfficialOpener).
func officialCatalog() *registry.Catalog {
	return &registry.Catalog{Openers: map[string]qeval.Opener{"sqlite": sqlite.OfficialOpener}}
}

// TestSpiderParity checks that every per-item verdict equals the official Spider
// evaluator's on real predictions (the oracle files were made with the unmodified
// official code; see ../shared/data/spider/oracle/SUMMARY.md).
func TestSpiderParity(t *testing.T) {
	data := testdata.SharedDir(t)
	sets := []string{"gold_as_pred", "dailsql_gpt4", "c3_chatgpt", "graphix", "dinsql_gpt4_zero_shot", "spider_pred_example"}
	e, err := execmatch.New(spiderOpts(execmatch.Options{Catalog: officialCatalog()}))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, set := range sets {
		t.Run(set, func(t *testing.T) {
			oracle := readOracle(t, filepath.Join(data, "spider", "oracle", set+".jsonl"))
			if len(oracle) != 972 {
				t.Fatalf("oracle %s has %d items, want 972", set, len(oracle))
			}
			items := make([]qeval.Item, len(oracle))
			for i, o := range oracle {
				items[i] = qeval.Item{Index: i, DBID: o.DBID, Database: filepath.Join(data, "spider", "database", o.DBID), Gold: o.Gold, Pred: o.Pred}
			}
			vs, sum := e.Run(context.Background(), items, 0, nil)
			diff := 0
			for i, v := range vs {
				want := oracle[i].Exec == 1
				if v.Match != want {
					diff++
					if diff <= 10 {
						t.Errorf("line %d (%s): exec=%v (outcome %s %s), official %v\n pred: %s\n gold: %s", oracle[i].Line, oracle[i].DBID, v.Match, v.Outcome, v.Error, want, oracle[i].Pred, oracle[i].Gold)
					}
				}
			}
			if diff > 0 {
				t.Errorf("%d of %d verdicts differ from the official evaluator", diff, len(vs))
			}
			t.Logf("%s: %d/%d correct (%.3f), outcomes %v", set, sum.Correct, sum.Total, sum.Accuracy, sum.Outcomes)
		})
	}
}

// TestSpiderParity_Mutations checks execution verdicts, without and with
// --plug_value, against the official evaluator's on 1,400 predictions made by editing
// real ones at random (internal/testdata.Mutation).
func TestSpiderParity_Mutations(t *testing.T) {
	data := testdata.SharedDir(t)
	var ms []testdata.Mutation
	for _, m := range testdata.SpiderMutations(t) {
		if m.Exec != nil && m.ExecPlug != nil {
			ms = append(ms, m)
		}
	}
	items := make([]qeval.Item, len(ms))
	for i, m := range ms {
		items[i] = qeval.Item{Index: i, DBID: m.DBID, Database: filepath.Join(data, "spider", "database", m.DBID), Gold: m.Gold, Pred: m.Pred}
	}
	for _, plug := range []bool{false, true} {
		t.Run(map[bool]string{false: "exec", true: "plug_value"}[plug], func(t *testing.T) {
			e, err := execmatch.New(spiderOpts(execmatch.Options{PlugValue: plug, Catalog: officialCatalog()}))
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			vs, sum := e.Run(context.Background(), items, 0, nil)
			diff := 0
			for i, v := range vs {
				want := *ms[i].Exec == 1
				if plug {
					want = *ms[i].ExecPlug == 1
				}
				if v.Match != want {
					if diff++; diff <= 10 {
						t.Errorf("item %d (%s): exec=%v (outcome %s %s), official %v\n pred: %s\n gold: %s", i, ms[i].DBID, v.Match, v.Outcome, v.Error, want, ms[i].Pred, ms[i].Gold)
					}
				}
			}
			if diff > 0 {
				t.Errorf("%d of %d verdicts differ from the official evaluator", diff, len(vs))
			}
			t.Logf("%d/%d match, outcomes %v", sum.Correct, sum.Total, sum.Outcomes)
		})
	}
}
