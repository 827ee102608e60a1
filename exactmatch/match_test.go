package exactmatch

import (
	"testing"

	"github.com/qeval/qeval"
)

func testSchema() *Schema {
	return NewSchema(&qeval.Schema{Tables: []qeval.TableSchema{
		{Name: "Singer", Columns: []qeval.Column{{Name: "Singer_ID"}, {Name: "Name"}, {Name: "Age"}, {Name: "Country"}}},
		{Name: "concert", Columns: []qeval.Column{{Name: "concert_id"}, {Name: "singer_id"}, {Name: "year"}}},
		{Name: "v", Columns: []qeval.Column{{Name: "x"}}, DDL: "CREATE VIEW v AS SELECT 1 AS x"},
	}})
}

// concert.singer_id references singer.singer_id: both become __singer.singer_id__.
var testKeys = map[string]string{"__concert.singer_id__": "__singer.singer_id__", "__singer.singer_id__": "__singer.singer_id__"}

func TestMatch(t *testing.T) {
	s := testSchema()
	cases := []struct {
		name, gold, pred string
		exact, parsed    bool
	}{
		{"same", "SELECT name FROM singer", "select NAME from Singer;", true, true},
		{"values are masked", "SELECT name FROM singer WHERE age > 20", "SELECT name FROM singer WHERE age > 99", true, true},
		{"distinct is ignored", "SELECT DISTINCT name FROM singer", "SELECT name FROM singer", true, true},
		{"limit value is ignored", "SELECT name FROM singer ORDER BY age LIMIT 1", "SELECT name FROM singer ORDER BY age LIMIT 5", true, true},
		{"select is a set", "SELECT name, age FROM singer", "SELECT age, name FROM singer", true, true},
		{"where is a set", "SELECT name FROM singer WHERE age > 1 AND country = 'x'", "SELECT name FROM singer WHERE country = 'y' AND age > 2", true, true},
		{"foreign keys unify", "SELECT T1.name FROM singer AS T1 JOIN concert AS T2 ON T1.singer_id = T2.singer_id GROUP BY T2.singer_id",
			"SELECT T1.name FROM singer AS T1 JOIN concert AS T2 ON T1.singer_id = T2.singer_id GROUP BY T1.singer_id", true, true},
		{"table order is free", "SELECT T1.name FROM singer AS T1 JOIN concert AS T2 ON T1.singer_id = T2.singer_id",
			"SELECT T1.name FROM concert AS T2 JOIN singer AS T1 ON T1.singer_id = T2.singer_id", true, true},
		{"order direction", "SELECT name FROM singer ORDER BY age DESC", "SELECT name FROM singer ORDER BY age", false, true},
		{"aggregate differs", "SELECT max(age) FROM singer", "SELECT min(age) FROM singer", false, true},
		{"missing limit", "SELECT name FROM singer ORDER BY age LIMIT 1", "SELECT name FROM singer ORDER BY age", false, true},
		{"set operation", "SELECT name FROM singer WHERE age > 1 INTERSECT SELECT name FROM singer WHERE age < 9",
			"SELECT name FROM singer WHERE age > 1 INTERSECT SELECT name FROM singer WHERE age < 3", true, true},
		{"wrong set operation", "SELECT name FROM singer WHERE age > 1 INTERSECT SELECT name FROM singer WHERE age < 9",
			"SELECT name FROM singer WHERE age > 1 UNION SELECT name FROM singer WHERE age < 9", false, true},
		{"column alias is unreadable", "SELECT count(*) FROM singer", "SELECT count(*) AS n FROM singer", false, false},
		{"comma join is unreadable", "SELECT name FROM singer", "SELECT name FROM singer, concert", false, false},
		{"left join is unreadable", "SELECT name FROM singer", "SELECT name FROM singer LEFT JOIN concert ON 1 = 1", false, false},
		{"unknown column", "SELECT name FROM singer", "SELECT nom FROM singer", false, false},
		{"views are not in the schema", "SELECT name FROM singer", "SELECT x FROM v", false, false},
		{"limit value may be any token", "SELECT name FROM singer ORDER BY age LIMIT 1", "SELECT name FROM singer ORDER BY age LIMIT name", true, true},
		{"limit without a value is unreadable", "SELECT name FROM singer ORDER BY age LIMIT 1", "SELECT name FROM singer ORDER BY age LIMIT", false, false},
		{"value in prediction becomes 1", "SELECT name FROM singer WHERE age = 1", "SELECT name FROM singer WHERE age = value", true, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := Match(s, testKeys, c.gold, c.pred)
			if err != nil {
				t.Fatalf("gold: %v", err)
			}
			if r.Exact != c.exact || (r.ParseError == "") != c.parsed {
				t.Errorf("exact %v parsed %v (%s), want exact %v parsed %v", r.Exact, r.ParseError == "", r.ParseError, c.exact, c.parsed)
			}
			if len(r.Partial) != len(Components) {
				t.Errorf("%d partial scores, want %d", len(r.Partial), len(Components))
			}
		})
	}
}

func TestMatch_GoldError(t *testing.T) {
	_, err := Match(testSchema(), nil, "SELECT nope FROM singer", "SELECT name FROM singer")
	if _, ok := err.(*ParseError); !ok {
		t.Fatalf("got %v, want a *ParseError for the gold query", err)
	}
}

func TestPartial(t *testing.T) {
	r, err := Match(testSchema(), nil, "SELECT name, age FROM singer WHERE age > 1 OR country = 'x'", "SELECT name FROM singer WHERE age > 1")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"select": 0, "select(no AGG)": 0, "where": 0, "and/or": 0, "group": 1, "IUEN": 1}
	for c, f1 := range want {
		if r.Partial[c].F1 != f1 {
			t.Errorf("%s: f1 %v, want %v (%+v)", c, r.Partial[c].F1, f1, r.Partial[c])
		}
	}
	if r.Partial["select"].PredTotal != 1 || r.Partial["select"].LabelTotal != 2 {
		t.Errorf("select totals %+v, want pred 1 label 2", r.Partial["select"])
	}
}

func FuzzParse(f *testing.F) {
	for _, q := range []string{"SELECT name FROM singer", "SELECT T1.name FROM singer AS T1 JOIN concert AS T2 ON T1.singer_id = T2.singer_id WHERE T2.year BETWEEN 1 AND 2",
		"SELECT count(*) FROM (SELECT * FROM singer) WHERE age IN (SELECT age FROM singer) EXCEPT SELECT 1", "(", "SELECT max(", "as", "= !"} {
		f.Add(q)
	}
	s := testSchema()
	f.Fuzz(func(t *testing.T, q string) {
		if _, err := Parse(s, q); err != nil {
			if _, ok := err.(*ParseError); !ok {
				t.Fatalf("untyped error %v", err)
			}
		}
		Match(s, testKeys, "SELECT name FROM singer", q)
	})
}
