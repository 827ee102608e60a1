package kqlexec_test

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/kqlexec"
)

func osReadDir(dir string) ([]os.DirEntry, error) { return os.ReadDir(dir) }

// FuzzQuery feeds arbitrary text to the engine: it must never panic, and every failure
// must be a typed *qeval.Error.
func FuzzQuery(f *testing.F) {
	for _, s := range []string{
		"T | where a > 1 | summarize count() by b",
		`T | extend d = todynamic(s) | mv-expand d | project d.x`,
		`print x = 1 | join (print x = 1) on x`,
		`T | parse s with * "a=" v:long`,
		`let f = (x:long) { x * 2 }; T | extend y = f(a) | top 3 by y`,
		`T | summarize arg_max(a, *) by b | union T`,
		`datatable(a:long)[1,2] | sort by a asc nulls first`,
		`T | where s has_any ("a", "b") and s !contains "c"`,
		`print geo_point_in_polygon(1, 1, dynamic({"type":"Polygon","coordinates":[[[0,0],[0,2],[2,2],[0,0]]]}))`,
		`print geo_h3cell_rings(geo_point_to_h3cell(1, 2, 5), 2), geo_s2cell_neighbors("89c259")`,
		`print geo_line_simplify(dynamic({"type":"LineString","coordinates":[[0,0],[0.5,0.5],[1,0]]}), 10), geo_polygon_to_s2cells(dynamic({"type":"Polygon","coordinates":[[[0,0],[0,2],[2,2],[0,0]]]}), 9)`,
		`T | mv-apply x = pack_array(a, a) on (summarize s = sum(toint(x)))`,
		`range t from datetime(2024-01-01) to datetime(2024-01-05) step 1h | make-series count() on t step 1d`,
		`print d = dynamic({"a":1,"b":"x"}) | evaluate bag_unpack(d)`,
		`T | sort by a asc | scan with_match_id=m declare (v:long=0) with (step s1 output=last: a > 0 => v = a; step s2: b == "y" and s1.a < a;)`,
		`T | sort by a asc | extend w = row_window_session(a, 2, 1, b != prev(b))`,
		`declare pattern p = (x:string)[y:string] { ("a").["b"] = { print 1 }; (*).["c"] = { T | take 1 }; }; p("a").b`,
		`T | partition by b { T | where s == toscalar(b) | count }`,
		`T | make-graph b --> s with_node_id=id | graph-match (x)-[e*1..3]-(y) where all(e, a > 0) project x.id, map(inner_nodes(e), id)`,
		`T | make-graph b --> s with T on b | graph-mark-components | graph-to-table nodes`,
		`T | make-graph b --> s with_node_id=id | graph-shortest-paths output=all (x)-[e*1..2]->(y) project x.id, y.id`,
		`T | evaluate geo_polygon_lookup(T, s, a, a, return_unmatched = true)`,
	} {
		f.Add(s)
	}
	dir := f.TempDir()
	if err := os.WriteFile(dir+"/T.csv", []byte("a,b,s\n1,x,a=1\n2,y,\"{\"\"x\"\":3}\"\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	e, err := kqlexec.Open(dir, kqlexec.Options{TempDir: f.TempDir(), Limits: qeval.Limits{Timeout: time.Second, MaxRows: 1000}})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { e.Close() })
	f.Fuzz(func(t *testing.T, q string) {
		_, err := e.Query(context.Background(), q)
		var qe *qeval.Error
		if err != nil && !errors.As(err, &qe) {
			t.Fatalf("Query(%q): untyped error %v", q, err)
		}
	})
}
