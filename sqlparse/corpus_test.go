package sqlparse_test

import (
	"bufio"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qeval/qeval/internal/testdata"

	_ "github.com/mattn/go-sqlite3"

	"github.com/qeval/qeval/sqlparse"
)

// spiderDir returns <module root>/../shared/data/spider, skipping the test when the
// shared data is not there.
func spiderDir(tb testing.TB) string {
	tb.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		tb.Fatal(err)
	}
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
	if _, err := os.Stat(filepath.Join(spider, "dev_gold.sql")); err != nil {
		tb.Skipf("shared Spider data absent (%s): %v", spider, err)
	}
	if err := testdata.CheckShared(filepath.Dir(spider)); err != nil {
		tb.Fatal(err)
	}
	return spider
}

func readLines(tb testing.TB, path string) []string {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return strings.Split(strings.TrimRight(string(b), "\n"), "\n")
}

// TestCorpus_Gold parses every gold query of Spider dev: all must succeed and name at
// least one table.
func TestCorpus_Gold(t *testing.T) {
	dir := spiderDir(t)
	lines := readLines(t, filepath.Join(dir, "dev_gold.sql"))
	if len(lines) != 1034 {
		t.Fatalf("dev_gold.sql has %d lines, want 1034", len(lines))
	}
	for i, l := range lines {
		q := strings.Split(l, "\t")[0]
		s, err := sqlparse.Parse("", q)
		if err != nil {
			t.Errorf("dev_gold.sql:%d: %v\n  %s", i+1, err, q)
			continue
		}
		if len(s.Tables) == 0 || s.Kind != "select" {
			t.Errorf("dev_gold.sql:%d: kind %q, tables %v\n  %s", i+1, s.Kind, s.Tables, q)
		}
	}
}

// TestCorpus_Predictions parses the predictions of real systems that SQLite itself can
// prepare; at least 99.5% of each set must parse.
func TestCorpus_Predictions(t *testing.T) {
	dir := spiderDir(t)
	gold := readLines(t, filepath.Join(dir, "dev_gold_no_wta1.sql"))
	sets, _ := filepath.Glob(filepath.Join(dir, "predictions", "*_no_wta1.txt"))
	if len(sets) == 0 {
		t.Fatal("no prediction sets in predictions/")
	}
	dbs := map[string]*sql.DB{}
	defer func() {
		for _, db := range dbs {
			db.Close()
		}
	}()
	prepares := func(dbID, q string) bool {
		db := dbs[dbID]
		if db == nil {
			var err error
			path := filepath.Join(dir, "database", dbID, dbID+".sqlite")
			db, err = sql.Open("sqlite3", "file:"+path+"?mode=ro")
			if err != nil {
				t.Fatalf("open %s: %v", path, err)
			}
			dbs[dbID] = db
		}
		st, err := db.Prepare(q)
		if err != nil {
			return false
		}
		st.Close()
		return true
	}
	for _, set := range sets {
		name := filepath.Base(set)
		preds := readLines(t, set)
		if len(preds) != len(gold) {
			t.Fatalf("%s has %d lines, dev_gold_no_wta1.sql %d", name, len(preds), len(gold))
		}
		n, ok := 0, 0
		var failed []string
		for i, q := range preds {
			if !prepares(strings.Split(gold[i], "\t")[1], q) {
				continue
			}
			n++
			if _, err := sqlparse.Parse("", q); err != nil {
				failed = append(failed, name+":"+itoa(i+1)+": "+err.Error()+"\n    "+q)
				continue
			}
			ok++
		}
		rate := float64(ok) / float64(n)
		t.Logf("%s: %d of %d preparable predictions parse (%.2f%%)", name, ok, n, 100*rate)
		if rate < 0.995 {
			t.Errorf("%s: %.2f%% parse, want >= 99.5%%:\n  %s", name, 100*rate, strings.Join(failed, "\n  "))
		}
	}
}

// TestHardness_Official compares Hardness with the official evaluator's label on every
// gold query of gold_as_pred.jsonl; at least 99% must agree.
func TestHardness_Official(t *testing.T) {
	dir := spiderDir(t)
	f, err := os.Open(filepath.Join(dir, "oracle", "gold_as_pred.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n, agree := 0, 0
	var mismatches []string
	for line := 1; sc.Scan(); line++ {
		var item struct {
			Gold     string `json:"gold"`
			Hardness string `json:"hardness"`
		}
		if err := json.Unmarshal(sc.Bytes(), &item); err != nil {
			t.Fatalf("gold_as_pred.jsonl:%d: %v", line, err)
		}
		n++
		got, err := sqlparse.Hardness(item.Gold)
		if err == nil && got == item.Hardness {
			agree++
			continue
		}
		mismatches = append(mismatches, "gold_as_pred.jsonl:"+itoa(line)+": Hardness="+got+" want "+item.Hardness+"\n    "+item.Gold)
	}
	if n != 972 {
		t.Fatalf("gold_as_pred.jsonl has %d items, want 972", n)
	}
	rate := float64(agree) / float64(n)
	t.Logf("hardness agrees with the official label on %d of %d (%.2f%%)", agree, n, 100*rate)
	if rate < 0.99 || testing.Verbose() && len(mismatches) > 0 {
		msg := t.Logf
		if rate < 0.99 {
			msg = t.Errorf
		}
		msg("%d mismatches:\n  %s", len(mismatches), strings.Join(mismatches, "\n  "))
	}
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}
