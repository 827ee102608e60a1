package main

import (
	"bufio"
	"database/sql"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qeval/qeval/internal/testdata"
	"github.com/qeval/qeval/spider"
)

// The Spider dev gold, run as the prediction on the DuckDB mirror of its databases
// while the gold runs on SQLite: the agreement, and the engine rule behind every
// disagreement (issue 17). The list is pinned: a change in the mirror, the executor or
// the comparison that moves it must be looked at.
func TestSpider_GoldOnDuckDBMirror(t *testing.T) {
	agree, total, rules := goldOnMirror(t, "duckdb")
	// Rows that tie on ORDER BY may come back in another order from one run to the
	// next (an engine's hash tables): those two rules are bounded, the others exact.
	checkRules(t, agree, total, rules, 612, 14, map[string]int{
		"double-quoted-string": 213, "bare-column": 103, "text-as-number": 23,
		"like-case": 2, "aggregate-over-text": 2, "keyword-as-name": 2, "join-without-on": 2,
	})
}

// TestSpider_GoldOnPostgresMirror: the same on the PostgreSQL mirror (a schema per
// db_id, read as qeval_reader), against the machine's server.
func TestSpider_GoldOnPostgresMirror(t *testing.T) {
	dsn := "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
	if c, err := net.DialTimeout("tcp", "127.0.0.1:5432", time.Second); err != nil {
		t.Skipf("no PostgreSQL server on 127.0.0.1:5432 (%v): this test mirrors Spider dev into it", err)
	} else {
		c.Close()
	}
	agree, total, rules := goldOnMirror(t, "postgres", "--pred-dsn", dsn)
	checkRules(t, agree, total, rules, 612, 25, map[string]int{
		"double-quoted-string": 211, "text-as-number": 57, "bare-column": 49, "aggregate-over-text": 12,
		"like-case": 2, "subquery-alias": 2, "join-without-on": 2,
	})
}

// TestSpider_GoldOnMySQLMirror: the same on the MySQL (here MariaDB) mirror, a
// database per db_id read as qeval_reader. Table names and aliases are case-sensitive on
// this server, which explains most disagreements.
func TestSpider_GoldOnMySQLMirror(t *testing.T) {
	if c, err := net.DialTimeout("tcp", "127.0.0.1:3306", time.Second); err != nil {
		t.Skipf("no MySQL server on 127.0.0.1:3306 (%v): this test mirrors Spider dev into it", err)
	} else {
		c.Close()
	}
	agree, total, rules := goldOnMirror(t, "mysql", "--pred-dsn", "mysql://root@127.0.0.1:3306/test")
	checkRules(t, agree, total, rules, 447, 9, map[string]int{
		"case-sensitive-names": 501, "bare-column": 3, "aggregate-over-text": 3, "like-case": 3,
		"subquery-alias": 2, "space-before-paren": 2, "keyword-as-name": 2,
	})
}

// goldOnMirror runs Spider dev's gold queries as predictions on the engine's mirror of
// the databases, the gold on SQLite, and counts the agreements and, per engine rule,
// the disagreements.
func goldOnMirror(t *testing.T, engine string, extra ...string) (agree, total int, rules map[string]int) {
	t.Helper()
	data := filepath.Join(testdata.SharedDir(t), "spider")
	gold := filepath.Join(data, "dev_gold_no_wta1.sql")
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache")) // DuckDB mirrors are cached there
	raw, err := os.ReadFile(gold)
	if err != nil {
		t.Fatal(err)
	}
	var preds []string
	for _, line := range strings.Split(strings.TrimRight(string(raw), "\n"), "\n") {
		preds = append(preds, strings.SplitN(line, "\t", 2)[0])
	}
	pred := writeFile(t, dir, "pred.txt", strings.Join(preds, "\n")+"\n")
	items := filepath.Join(dir, "items.jsonl")
	args := append([]string{"spider", "--gold", gold, "--pred", pred, "--db", filepath.Join(data, "database"),
		"--pred-engine", engine, "--items", items}, extra...)
	code, _, stderr := runCLI(t, "", args...)
	if code != exitOK {
		t.Fatalf("code %d: %s", code, stderr)
	}
	f, err := os.Open(items)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rules = map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var it spider.Item
		if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
			t.Fatal(err)
		}
		total++
		if it.PredEngine != engine {
			t.Fatalf("item %d: pred_engine %q", it.Index, it.PredEngine)
		}
		if it.Exec != nil && *it.Exec {
			agree++
			continue
		}
		rule, _, _ := strings.Cut(it.Explanation, ":")
		rules[rule]++
	}
	return agree, total, rules
}

// checkRules pins the disagreements per rule; the two tie rules together are bounded.
func checkRules(t *testing.T, agree, total int, rules map[string]int, wantAgree, wantTies int, want map[string]int) {
	t.Helper()
	ties := rules["tie-at-limit"] + rules["tie-order"]
	delete(rules, "tie-at-limit")
	delete(rules, "tie-order")
	if total != 972 || agree < wantAgree-4 || agree > wantAgree+4 || ties < wantTies-4 || ties > wantTies+4 {
		t.Errorf("%d of %d agree (want %d of 972, give or take tied rows), %d disagreements on tied rows (want %d±4)", agree, total, wantAgree, ties, wantTies)
	}
	for r, n := range want {
		if rules[r] != n {
			t.Errorf("rule %s explains %d disagreements, want %d", r, rules[r], n)
		}
	}
	for r, n := range rules {
		if _, ok := want[r]; !ok {
			t.Errorf("%d disagreements explained as %q, want none", n, r)
		}
	}
}

// --pred-dsn duckdb:DIR mirrors into that folder, and a second run on the same folder
// replaces the copies it finds there (it failed on every database: the folder was
// taken as "duckdb:DIR" twice over and the old files could not be removed).
func TestSpider_DuckDBFolderTwice(t *testing.T) {
	dir := t.TempDir()
	dbDir := filepath.Join(dir, "database", "shop")
	if err := os.MkdirAll(dbDir, 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite3", filepath.Join(dbDir, "shop.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT); INSERT INTO item VALUES (1,'a'),(2,'b');"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	gold := writeFile(t, dir, "gold.sql", "SELECT count(*) FROM item\tshop\nSELECT name FROM item WHERE id = 1\tshop\n")
	pred := writeFile(t, dir, "pred.txt", "SELECT count(*) FROM item\nSELECT name FROM item WHERE id = 2\n")
	mirror := filepath.Join(dir, "mirror")
	for run := 1; run <= 2; run++ {
		code, out, stderr := runCLI(t, "", "spider", "--gold", gold, "--pred", pred, "--db", filepath.Join(dir, "database"),
			"--pred-engine", "duckdb", "--pred-dsn", "duckdb:"+mirror, "--keep", "--json")
		if code != exitOK {
			t.Fatalf("run %d: code %d: %s", run, code, stderr)
		}
		var sum struct {
			Total   int `json:"total"`
			Correct int `json:"correct"`
		}
		if err := json.Unmarshal([]byte(out), &sum); err != nil || sum.Total != 2 || sum.Correct != 1 {
			t.Fatalf("run %d: %+v (%v), want 1 of 2 correct: %s", run, sum, err, out)
		}
		if _, err := os.Stat(filepath.Join(mirror, "shop.duckdb")); err != nil {
			t.Fatalf("run %d: no copy in the folder: %v", run, err)
		}
	}
}

// With --pred-engine duckdb a prediction reads its own database only: the mirrors were
// attached side by side to one DuckDB instance, where "SELECT v FROM vault.secret"
// asked of the shop database read the vault database, and scored a match.
func TestSpider_DuckDBPredictionReadsOnlyItsDatabase(t *testing.T) {
	dir := t.TempDir()
	for name, setup := range map[string]string{
		"shop":  "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT); INSERT INTO item VALUES (1,'a');",
		"vault": "CREATE TABLE secret(v TEXT); INSERT INTO secret VALUES ('hidden');",
	} {
		dbDir := filepath.Join(dir, "database", name)
		if err := os.MkdirAll(dbDir, 0o755); err != nil {
			t.Fatal(err)
		}
		db, err := sql.Open("sqlite3", filepath.Join(dbDir, name+".sqlite"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(setup); err != nil {
			t.Fatal(err)
		}
		db.Close()
	}
	gold := writeFile(t, dir, "gold.sql", "SELECT v FROM secret\tvault\nSELECT 'hidden'\tshop\nSELECT 'hidden'\tshop\n")
	pred := writeFile(t, dir, "pred.txt", "SELECT v FROM secret\nSELECT v FROM vault.secret\nSELECT * FROM query('SELECT v FROM vault.secret')\n")
	items := filepath.Join(dir, "items.jsonl")
	code, out, stderr := runCLI(t, "", "spider", "--gold", gold, "--pred", pred, "--db", filepath.Join(dir, "database"),
		"--pred-engine", "duckdb", "--pred-dsn", "duckdb:"+filepath.Join(dir, "mirror"), "--items", items, "--json")
	if code != exitOK {
		t.Fatalf("code %d: %s", code, stderr)
	}
	var sum struct {
		Total   int `json:"total"`
		Correct int `json:"correct"`
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil || sum.Total != 3 || sum.Correct != 1 {
		t.Errorf("%+v (%v), want 1 of 3 correct (the vault's own query): %s", sum, err, out)
	}
	b, err := os.ReadFile(items)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	for i, l := range lines[1:] {
		if !strings.Contains(l, "vault") || !strings.Contains(l, "pred_error") {
			t.Errorf("item %d, the shop's prediction reading the vault: %s, want a pred_error naming vault", i+1, l)
		}
	}
}
