package testsuite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/qeval/qeval/execmatch"
	"github.com/qeval/qeval/internal/testdata"
	"github.com/qeval/qeval/registry"
	"github.com/qeval/qeval/suite"
	"github.com/qeval/qeval/testsuite"
)

func spiderGolds(b *testing.B, spider string) ([]testsuite.Gold, map[string][]testsuite.ForeignKey) {
	set, err := suite.LoadSpider(filepath.Join(spider, "dev_gold_no_wta1.sql"), filepath.Join(spider, "dev_gold_no_wta1.sql"))
	if err != nil {
		b.Fatal(err)
	}
	keys, err := testsuite.LoadTables(filepath.Join(spider, "tables.json"))
	if err != nil {
		b.Fatal(err)
	}
	golds := make([]testsuite.Gold, len(set.Items))
	for i, it := range set.Items {
		golds[i] = testsuite.Gold{DBID: it.DBID, SQL: it.Gold}
	}
	return golds, keys
}

// BenchmarkBuild_Spider builds the whole Spider dev suite (19 databases, 972 gold
// queries) with the CLI's defaults. Target: at most 60 s on 2 cores.
func BenchmarkBuild_Spider(b *testing.B) {
	spider := filepath.Join(testdata.SharedDir(b), "spider")
	golds, keys := spiderGolds(b, spider)
	for i := 0; i < b.N; i++ {
		opt := options(filepath.Join(spider, "database"), b.TempDir())
		opt.Seed, opt.Candidates, opt.PerSchema, opt.ForeignKeys = 1, testsuite.DefaultCandidates, testsuite.DefaultPerSchema, keys
		if _, err := testsuite.Build(context.Background(), golds, opt); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEval_SpiderSuite scores DAIL-SQL's 972 predictions on the original
// databases and on the generated suite. Target: the suite at most 10× the original.
func BenchmarkEval_SpiderSuite(b *testing.B) {
	spider := filepath.Join(testdata.SharedDir(b), "spider")
	golds, keys := spiderGolds(b, spider)
	out := b.TempDir()
	opt := options(filepath.Join(spider, "database"), out)
	opt.Seed, opt.ForeignKeys = 1, keys
	if _, err := testsuite.Build(context.Background(), golds, opt); err != nil {
		b.Fatal(err)
	}
	set, err := suite.LoadSpider(filepath.Join(spider, "dev_gold_no_wta1.sql"), filepath.Join(spider, "predictions", "dailsql_gpt4_no_wta1.txt"))
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		db   func(id string) string
	}{
		{"original", func(id string) string { return filepath.Join(spider, "database", id, id+".sqlite") }},
		{"suite", func(id string) string { return filepath.Join(out, id) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			items := append(set.Items[:0:0], set.Items...)
			for i := range items {
				items[i].Database = c.db(items[i].DBID)
			}
			for i := 0; i < b.N; i++ {
				ev, err := execmatch.New(execmatch.Options{Mode: "spider-ts", Catalog: &registry.Catalog{}, DiscardResults: true})
				if err != nil {
					b.Fatal(err)
				}
				ev.Run(context.Background(), items, 0, nil)
				ev.Close()
			}
		})
	}
}
