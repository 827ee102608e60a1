package validate_test

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qeval/qeval/internal/testdata"

	_ "github.com/mattn/go-sqlite3"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/validate"
)

func spiderDir(tb testing.TB) string {
	tb.Helper()
	dir, _ := filepath.Abs(".")
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("module root (go.mod) not found above the test directory")
		}
		dir = parent
	}
	spider := filepath.Join(dir, "..", "shared", "data", "spider")
	if _, err := os.Stat(filepath.Join(spider, "dev_gold_no_wta1.sql")); err != nil {
		tb.Skipf("shared Spider data absent (%s): %v", spider, err)
	}
	if err := testdata.CheckShared(filepath.Dir(spider)); err != nil {
		tb.Fatal(err)
	}
	return spider
}

func readSchema(t *testing.T, db *sql.DB) *qeval.Schema {
	t.Helper()
	rows, err := db.Query("SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%'")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for rows.Next() {
		var n string
		rows.Scan(&n)
		names = append(names, n)
	}
	rows.Close()
	s := &qeval.Schema{}
	for _, n := range names {
		ts := qeval.TableSchema{Name: n}
		cols, err := db.Query("SELECT name FROM pragma_table_info(?)", n)
		if err != nil {
			t.Fatal(err)
		}
		for cols.Next() {
			var c string
			cols.Scan(&c)
			ts.Columns = append(ts.Columns, qeval.Column{Name: c})
		}
		cols.Close()
		s.Tables = append(s.Tables, ts)
	}
	return s
}

// TestCorpus_Spider checks the validator against SQLite itself on Spider dev: every
// query SQLite prepares must be valid (at least 99.5% of them), and it logs how many of
// the ones SQLite rejects the validator catches.
func TestCorpus_Spider(t *testing.T) {
	dir := spiderDir(t)
	b, err := os.ReadFile(filepath.Join(dir, "dev_gold_no_wta1.sql"))
	if err != nil {
		t.Fatal(err)
	}
	gold := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	type item struct{ where, q, db string }
	var items []item
	for i, l := range gold {
		f := strings.Split(l, "\t")
		items = append(items, item{"dev_gold_no_wta1.sql:" + itoa(i+1), f[0], f[1]})
	}
	sets, _ := filepath.Glob(filepath.Join(dir, "predictions", "*_no_wta1.txt"))
	for _, set := range sets {
		b, err := os.ReadFile(set)
		if err != nil {
			t.Fatal(err)
		}
		for i, q := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
			items = append(items, item{filepath.Base(set) + ":" + itoa(i+1), q, strings.Split(gold[i], "\t")[1]})
		}
	}
	type dbInfo struct {
		db     *sql.DB
		schema *qeval.Schema
	}
	dbs := map[string]*dbInfo{}
	defer func() {
		for _, d := range dbs {
			d.db.Close()
		}
	}()
	good, goodValid, bad, badCaught := 0, 0, 0, 0
	var wrong []string
	for _, it := range items {
		d := dbs[it.db]
		if d == nil {
			path := filepath.Join(dir, "database", it.db, it.db+".sqlite")
			db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
			if err != nil {
				t.Fatal(err)
			}
			d = &dbInfo{db: db, schema: readSchema(t, db)}
			dbs[it.db] = d
		}
		st, err := d.db.Prepare(it.q)
		v := validate.Check(it.q, validate.Options{Schema: d.schema})
		if err != nil {
			bad++
			if !v.Valid {
				badCaught++
			}
			continue
		}
		st.Close()
		good++
		if v.Valid {
			goodValid++
			continue
		}
		wrong = append(wrong, it.where+": "+v.Category+": "+v.Problems[0].Message+"\n    "+it.q)
	}
	rate := float64(goodValid) / float64(good)
	t.Logf("valid: %d of %d queries SQLite prepares (%.2f%%); invalid: %d of %d queries SQLite rejects", goodValid, good, 100*rate, badCaught, bad)
	if rate < 0.995 {
		t.Errorf("%.2f%% of preparable queries valid, want >= 99.5%%:\n  %s", 100*rate, strings.Join(wrong, "\n  "))
	} else if len(wrong) > 0 {
		t.Logf("preparable queries judged invalid:\n  %s", strings.Join(wrong, "\n  "))
	}
}

func itoa(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa(i/10) + digits[i%10:i%10+1]
}
