package testsuite_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/compare"
	"github.com/qeval/qeval/execmatch"
	"github.com/qeval/qeval/internal/testdata"
	"github.com/qeval/qeval/registry"
	"github.com/qeval/qeval/sqlite"
	"github.com/qeval/qeval/suite"
	"github.com/qeval/qeval/testsuite"
)

// TestBuild_Spider builds the suite of Spider dev (19 databases, 972 gold queries) with
// the CLI's defaults and seed 1, then checks every file, the gold as prediction, the
// kill rate, and that qeval's verdicts on the suite equal the official evaluator's
// (testdata/official, see its README), item for item.
func TestBuild_Spider(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the whole Spider dev suite (about 20 s): skipped with -short")
	}
	shared := testdata.SharedDir(t)
	spider := filepath.Join(shared, "spider")
	goldPath := filepath.Join(spider, "dev_gold_no_wta1.sql")
	set, err := suite.LoadSpider(goldPath, goldPath)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := testsuite.LoadTables(filepath.Join(spider, "tables.json"))
	if err != nil {
		t.Fatal(err)
	}
	golds := make([]testsuite.Gold, len(set.Items))
	for i, it := range set.Items {
		golds[i] = testsuite.Gold{DBID: it.DBID, SQL: it.Gold}
	}
	out := t.TempDir()
	opt := options(filepath.Join(spider, "database"), out)
	opt.Seed, opt.Candidates, opt.PerSchema, opt.ForeignKeys = 1, testsuite.DefaultCandidates, testsuite.DefaultPerSchema, keys
	m, err := testsuite.Build(context.Background(), golds, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Databases) != 19 {
		t.Fatalf("%d databases built, want 19", len(m.Databases))
	}
	for _, d := range m.Databases {
		if d.Error != "" {
			t.Errorf("%s: %s", d.DBID, d.Error)
		}
		gen := 0
		for _, f := range d.Files {
			if f.Generated {
				gen++
			}
		}
		if gen == 0 {
			t.Errorf("%s: no generated database kept (rejected: %v)", d.DBID, d.Rejected)
		}
		for _, g := range d.Golds {
			if g.Error != "" {
				t.Errorf("%s: %s", g.Ref, g.Error)
			}
		}
	}
	live := m.Neighbours - m.Equivalent - m.Broken
	rate := float64(m.Killed) / float64(live)
	t.Logf("neighbours %d, equivalent %d, broken %d, killed %d of %d (%.1f%%), killable by any candidate %d",
		m.Neighbours, m.Equivalent, m.Broken, m.Killed, live, 100*rate, m.Killable)
	if rate < 0.97 {
		t.Errorf("kill rate %.3f, want at least 0.97", rate)
	}

	// every file passes PRAGMA integrity_check and foreign_key_check; the one schema
	// that declares a foreign key SQLite cannot check (voter_1) fails as its original does
	files, _ := filepath.Glob(filepath.Join(out, "*", "*.sqlite"))
	if len(files) < 19*2 {
		t.Errorf("%d files in the suite, want the originals and at least one generated database each", len(files))
	}
	for _, f := range files {
		err := sqlite.Check(f)
		if errors.Is(err, sqlite.ErrForeignKeyMismatch) && filepath.Base(filepath.Dir(f)) == "voter_1" {
			continue
		}
		if err != nil && strings.Contains(f, "_ts") {
			t.Errorf("Check(%s) = %v", f, err)
		}
	}

	ev, err := execmatch.New(execmatch.Options{Mode: "spider-ts", Catalog: &registry.Catalog{}, DiscardResults: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ev.Close()
	for _, name := range []string{"gold_as_pred", "dailsql_gpt4", "c3_chatgpt", "graphix", "dinsql_gpt4_zero_shot", "spider_pred_example"} {
		predPath := filepath.Join(spider, "predictions", name+"_no_wta1.txt")
		if name == "gold_as_pred" {
			predPath = goldPath
		}
		ps, err := suite.LoadSpider(goldPath, predPath)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join("testdata", "official", name+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		items := ps.Items
		for i := range items {
			items[i].Database = filepath.Join(out, items[i].DBID)
		}
		vs, _ := ev.Run(context.Background(), items, 0, nil)
		diff, right := 0, 0
		for i, v := range vs {
			official := want[i] == '1'
			if v.Match {
				right++
			}
			if v.Match != official {
				diff++
				if diff <= 5 {
					t.Errorf("%s item %d: qeval %v (%s), official %v on the suite", name, i+1, v.Match, v.Outcome, official)
				}
			}
		}
		if diff > 0 {
			t.Errorf("%s: %d of %d verdicts differ from the official evaluator's on the suite", name, diff, len(vs))
		}
		if name == "gold_as_pred" && right != len(vs) {
			t.Errorf("gold as prediction: %d of %d, want all", right, len(vs))
		}
	}
}

// TestJudgeItem: a prediction that is right on the original database and wrong on the
// suite is reported as flipped, with the database that told them apart and why.
func TestJudgeItem(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	mustShop(t, dir)
	if _, err := testsuite.Build(context.Background(), shopGolds[:5], options(dir, out)); err != nil {
		t.Fatal(err)
	}
	ev, err := execmatch.New(execmatch.Options{Mode: "spider-ts", Catalog: &registry.Catalog{}})
	if err != nil {
		t.Fatal(err)
	}
	defer ev.Close()
	it := qeval.Item{DBID: "shop", Gold: shopGolds[0].SQL, Pred: "SELECT name FROM customer WHERE city = 'Paris' AND age >= 20"}
	r := testsuite.JudgeItem(context.Background(), ev, compare.SpiderTS, it, out)
	if !r.Single.Match || r.Suite.Match || !r.Flipped {
		t.Fatalf("single %v, suite %v, flipped %v; want a flip", r.Single.Match, r.Suite.Match, r.Flipped)
	}
	if !strings.Contains(r.Distinguishing, "shop_ts") || r.Explanation == nil || r.Explanation.Equal {
		t.Errorf("distinguishing %q, explanation %v; want a generated database and a difference", r.Distinguishing, r.Explanation)
	}
	it.Pred = it.Gold
	if r := testsuite.JudgeItem(context.Background(), ev, compare.SpiderTS, it, out); !r.Suite.Match || r.Flipped || r.Explanation != nil {
		t.Errorf("gold as prediction: %+v, want a match everywhere", r)
	}
}
