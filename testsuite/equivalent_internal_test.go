package testsuite

import (
	"math/rand/v2"
	"testing"

	"github.com/qeval/qeval"
)

// TestOuterJoinsEquivalent checks which LEFT JOIN toggles are marked equivalent: only
// those whose added NULL rows a filter, a never-NULL foreign key or the aggregation
// provably hides, and none where they show.
func TestOuterJoinsEquivalent(t *testing.T) {
	var tables []*table
	for _, ddl := range []qeval.TableSchema{
		{Name: "maker", DDL: `CREATE TABLE maker (id INTEGER PRIMARY KEY, name TEXT)`},
		{Name: "model", DDL: `CREATE TABLE model (id INTEGER PRIMARY KEY, maker_id INTEGER NOT NULL REFERENCES maker(id), loose_id INTEGER REFERENCES maker(id), price REAL)`},
	} {
		tb, _ := parseTable(ddl)
		tables = append(tables, tb)
	}
	resolveKeys(tables)
	keys := keysOf(tables)
	for _, c := range []struct {
		sql  string
		want bool
	}{
		// a null-rejecting WHERE on the right-hand table
		{`SELECT a.name FROM maker AS a JOIN model AS b ON a.id = b.maker_id WHERE b.price > 10`, true},
		{`SELECT a.name FROM maker AS a LEFT JOIN model AS b ON a.id = b.maker_id WHERE b.price IN (1, 2) AND a.id > 0`, true},
		{`SELECT a.name FROM maker AS a JOIN model AS b ON a.id = b.maker_id WHERE b.price IS NOT NULL`, true},
		{`SELECT a.name FROM maker AS a JOIN model AS b ON a.id = b.maker_id WHERE a.id > 0 AND (b.price NOTNULL)`, true},
		// filters a NULL row passes
		{`SELECT a.name FROM maker AS a JOIN model AS b ON a.id = b.maker_id WHERE b.price IS NULL`, false},
		{`SELECT a.name FROM maker AS a JOIN model AS b ON a.id = b.maker_id WHERE b.price > 10 OR a.id = 1`, false},
		{`SELECT a.name FROM maker AS a JOIN model AS b ON a.id = b.maker_id WHERE b.price NOT IN (SELECT price FROM model)`, false},
		{`SELECT a.name FROM maker AS a JOIN model AS b ON a.id = b.maker_id`, false},
		// a foreign key that is never NULL, from the child: every row has its parent
		{`SELECT b.price FROM model AS b JOIN maker AS a ON b.maker_id = a.id`, true},
		{`SELECT b.price FROM model AS b JOIN maker AS a ON a.id = b.maker_id`, true},
		// a foreign key that may be NULL
		{`SELECT b.price FROM model AS b JOIN maker AS a ON b.loose_id = a.id`, false},
		// aggregates that skip the NULL rows, over the right-hand table only
		{`SELECT avg(b.price) FROM maker AS a JOIN model AS b ON a.id = b.maker_id WHERE a.name = 'x'`, true},
		{`SELECT count(*) FROM maker AS a JOIN model AS b ON a.id = b.maker_id WHERE a.name = 'x'`, false},
		{`SELECT count(a.id) FROM maker AS a JOIN model AS b ON a.id = b.maker_id`, false},
		{`SELECT a.name FROM maker AS a JOIN model AS b ON a.id = b.maker_id GROUP BY a.name HAVING sum(b.price) > 10`, true},
		{`SELECT a.name FROM maker AS a JOIN model AS b ON a.id = b.maker_id GROUP BY a.name`, false},
		// groups of one maker each: HAVING count(*) > 1 drops the maker without models
		{`SELECT a.name FROM maker AS a JOIN model AS b ON a.id = b.maker_id GROUP BY a.id HAVING count(*) > 1`, true},
		{`SELECT a.name FROM maker AS a JOIN model AS b ON a.id = b.maker_id GROUP BY a.id HAVING count(*) >= 1`, false},
		{`SELECT a.name FROM maker AS a JOIN model AS b ON a.id = b.maker_id GROUP BY a.name HAVING count(*) > 1`, false},
	} {
		s, err := parseSelect(c.sql)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		toggles := 0
		for _, n := range neighboursOf(s, nil, keys, 200) {
			if n.Change != "toggle LEFT JOIN" {
				if n.Equivalent {
					t.Errorf("%s: %q marked equivalent", c.sql, n.Change)
				}
				continue
			}
			toggles++
			if n.Equivalent != c.want {
				t.Errorf("%s: toggle LEFT JOIN equivalent = %v, want %v", c.sql, n.Equivalent, c.want)
			}
		}
		if toggles != 1 {
			t.Errorf("%s: %d LEFT JOIN toggles, want 1", c.sql, toggles)
		}
	}
}

// TestCountOfNeverNullColumns checks that count(a) → count(b) is equivalent only when
// neither column is ever NULL and the count has no DISTINCT.
func TestCountOfNeverNullColumns(t *testing.T) {
	var tables []*table
	tb, _ := parseTable(qeval.TableSchema{Name: "model", DDL: `CREATE TABLE model (id INTEGER PRIMARY KEY, maker_id INTEGER NOT NULL, price REAL)`})
	tables = append(tables, tb)
	keys := keysOf(tables)
	cols := map[string][]string{"maker_id": {"id", "price"}}
	for _, c := range []struct {
		sql  string
		want map[string]bool
	}{
		{`SELECT count(b.maker_id) FROM model AS b`, map[string]bool{"count of column id instead": true, "count of column price instead": false}},
		{`SELECT count(maker_id) FROM model`, map[string]bool{"count of column id instead": true, "count of column price instead": false}},
		{`SELECT count(DISTINCT maker_id) FROM model`, map[string]bool{"count of column id instead": false, "count of column price instead": false}},
	} {
		s, err := parseSelect(c.sql)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for _, n := range neighboursOf(s, cols, keys, 200) {
			got[n.Change] = n.Equivalent
		}
		for change, want := range c.want {
			if eq, ok := got[change]; !ok || eq != want {
				t.Errorf("%s: %q made %v, equivalent %v; want equivalent %v", c.sql, change, ok, eq, want)
			}
		}
	}
}

// TestBuildPools_ForeignKeyLiterals checks that a literal compared with a foreign-key
// column reaches the parent key's pool, and that planting puts missing literals in.
func TestBuildPools_ForeignKeyLiterals(t *testing.T) {
	var tables []*table
	for _, ddl := range []qeval.TableSchema{
		{Name: "airport", DDL: `CREATE TABLE airport (code TEXT PRIMARY KEY, city TEXT)`},
		{Name: "flight", DDL: `CREATE TABLE flight (no INTEGER PRIMARY KEY, source TEXT REFERENCES airport(code))`},
	} {
		tb, _ := parseTable(ddl)
		tables = append(tables, tb)
	}
	resolveKeys(tables)
	buildPools(tables, map[string][]qeval.Value{"source": {qeval.Text("APG")}, "city": {qeval.Text("Anthony")}})
	code := tables[0].cols[0]
	if !code.literal[qeval.Text("APG")] || len(code.exact) != 1 || code.exact[0] != qeval.Text("APG") {
		t.Fatalf("airport.code: literal %v, exact %v; want APG from flight.source", code.literal, code.exact)
	}
	if src := tables[1].cols[1]; len(src.exact) != 1 {
		t.Errorf("flight.source exact %v, want APG", src.exact)
	}
	// planting: over many draws, each literal is present about plantRate of the time
	// more often than chance alone gives
	seen := 0
	const runs = 400
	for r := 0; r < runs; r++ {
		rows := [][]qeval.Value{{qeval.Text("AAA"), qeval.Text("x")}, {qeval.Text("BBB"), qeval.Text("y")}}
		full := [][]qeval.Value{{qeval.Text("AAA"), qeval.Text("x")}, {qeval.Text("BBB"), qeval.Text("y")}}
		plantLiterals(tables[0], []int{0, 1}, rows, full, nil, rand.New(rand.NewPCG(1, uint64(r))))
		for i := range rows {
			if rows[i][1] != full[i][1] || rows[i][0] != full[i][0] {
				t.Fatalf("row %d: written %v, kept %v", i, rows[i], full[i])
			}
			if full[i][1] == qeval.Text("Anthony") {
				seen++
			}
		}
	}
	if seen < runs/3 || seen > 2*runs/3 {
		t.Errorf("Anthony planted in %d of %d draws, want about half", seen, runs)
	}
}
