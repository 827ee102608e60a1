package sqlparse_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/qeval/qeval/sqlparse"
)

// engineTables asks SQLite which tables q reads: the authorizer's READ calls, plus the
// tables behind EXPLAIN's OpenRead root pages (the authorizer misses a table read only
// by count(*)). It returns ok=false when SQLite cannot prepare q.
func engineTables(t *testing.T, conn *sql.Conn, roots map[int64]string, q string) (map[string]bool, bool) {
	t.Helper()
	ctx := context.Background()
	got := map[string]bool{}
	err := conn.Raw(func(dc any) error {
		dc.(*sqlite3.SQLiteConn).RegisterAuthorizer(func(op int, a1, _, _ string) int {
			if op == sqlite3.SQLITE_READ && a1 != "" && !strings.HasPrefix(strings.ToLower(a1), "sqlite_") {
				got[strings.ToLower(a1)] = true
			}
			return sqlite3.SQLITE_OK
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	st, err := conn.PrepareContext(ctx, q)
	conn.Raw(func(dc any) error { dc.(*sqlite3.SQLiteConn).RegisterAuthorizer(nil); return nil })
	if err != nil {
		return nil, false
	}
	st.Close()
	rows, err := conn.QueryContext(ctx, "EXPLAIN "+q)
	if err != nil {
		return nil, false
	}
	defer rows.Close()
	for rows.Next() {
		var addr, p1, p2, p3 int64
		var opcode string
		var p4, p5, comment any
		if err := rows.Scan(&addr, &opcode, &p1, &p2, &p3, &p4, &p5, &comment); err != nil {
			t.Fatal(err)
		}
		if opcode == "OpenRead" && p3 == 0 && roots[p2] != "" {
			got[roots[p2]] = true
		}
	}
	return got, true
}

// TestCorpus_TablesMatchEngine compares the tables the parser finds with the ones
// SQLite reads, on every gold query and preparable prediction: at least 99.5% equal.
func TestCorpus_TablesMatchEngine(t *testing.T) {
	if testing.Short() {
		t.Skip("corpus check skipped in -short mode")
	}
	dir := spiderDir(t)
	gold := readLines(t, filepath.Join(dir, "dev_gold_no_wta1.sql"))
	type item struct{ where, q, db string }
	var items []item
	for i, l := range gold {
		f := strings.Split(l, "\t")
		items = append(items, item{"dev_gold_no_wta1.sql:" + itoa(i+1), f[0], f[1]})
	}
	sets, _ := filepath.Glob(filepath.Join(dir, "predictions", "*_no_wta1.txt"))
	for _, set := range sets {
		for i, q := range readLines(t, set) {
			items = append(items, item{filepath.Base(set) + ":" + itoa(i+1), q, strings.Split(gold[i], "\t")[1]})
		}
	}
	type dbConn struct {
		db    *sql.DB
		conn  *sql.Conn
		roots map[int64]string
	}
	conns := map[string]*dbConn{}
	defer func() {
		for _, c := range conns {
			c.conn.Close()
			c.db.Close()
		}
	}()
	n, equal := 0, 0
	var diffs []string
	for _, it := range items {
		c := conns[it.db]
		if c == nil {
			path := filepath.Join(dir, "database", it.db, it.db+".sqlite")
			db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
			if err != nil {
				t.Fatal(err)
			}
			conn, err := db.Conn(context.Background())
			if err != nil {
				t.Fatalf("open %s: %v", path, err)
			}
			c = &dbConn{db: db, conn: conn, roots: map[int64]string{}}
			rows, err := conn.QueryContext(context.Background(), "SELECT rootpage, tbl_name FROM sqlite_master WHERE rootpage > 0")
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var root int64
				var name string
				rows.Scan(&root, &name)
				c.roots[root] = strings.ToLower(name)
			}
			rows.Close()
			conns[it.db] = c
		}
		want, ok := engineTables(t, c.conn, c.roots, it.q)
		if !ok {
			continue
		}
		n++
		shape, err := sqlparse.Parse("", it.q)
		if err != nil {
			diffs = append(diffs, it.where+": "+err.Error())
			continue
		}
		got := map[string]bool{}
		for _, tb := range shape.Tables {
			got[strings.ToLower(tb)] = true
		}
		if sameSet(got, want) {
			equal++
			continue
		}
		diffs = append(diffs, it.where+": parser "+keys(got)+", engine "+keys(want)+"\n    "+it.q)
	}
	rate := float64(equal) / float64(n)
	t.Logf("parser tables equal the engine's on %d of %d queries (%.2f%%)", equal, n, 100*rate)
	if rate < 0.995 {
		t.Errorf("%.2f%% equal, want >= 99.5%%:\n  %s", 100*rate, strings.Join(diffs, "\n  "))
	} else if len(diffs) > 0 {
		t.Logf("differences:\n  %s", strings.Join(diffs, "\n  "))
	}
}

func sameSet(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

func keys(m map[string]bool) string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return "[" + strings.Join(out, " ") + "]"
}
