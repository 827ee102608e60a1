package kqlexec_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
)

// TestPages_Semantics checks rules stated in the text of the KQL reference pages
// (MicrosoftDocs/dataexplorer-docs, data-explorer/kusto/query/<page>.md), each on
// inputs of our own with rows worked out from that text.
func TestPages_Semantics(t *testing.T) {
	e := mustOpen(t, "")
	cases := []queryCase{
		// mv-apply-operator.md: an array given by a column's name is removed from the
		// input row; the subquery's output decides what comes back
		{"mv_apply_drops_expanded_column", `datatable(k:string, a:dynamic)["x", dynamic([1, 2]), "y", dynamic([5])]
			| mv-apply a on (summarize s = sum(toint(a))) | order by k asc`, "k,s", []string{"x|3", "y|5"}},
		{"mv_apply_renamed_keeps_column", `datatable(k:string, a:dynamic)["x", dynamic([1, 2])] | mv-apply v = a on (summarize s = sum(toint(v)))`,
			"k,a,s", []string{"x|[1,2]|3"}},
		{"mv_apply_subquery_returns_column", `datatable(k:string, a:dynamic)["x", dynamic([1, 2])] | mv-apply a on (where toint(a) > 1)`,
			"k,a", []string{"x|2"}},
		// ipv4-lookup-plugin.md: extra keys match like a join's and appear once
		{"ipv4_lookup_extra_keys", `let L = datatable(net:string, zone:string, site:long)["10.0.0.0/8", "a", 1, "10.1.0.0/16", "b", 2];
			datatable(ip:string, zone:string)["10.1.2.3", "b", "10.9.9.9", "b", "10.9.9.9", "a"]
			| evaluate ipv4_lookup(L, ip, net, zone) | order by ip asc, zone asc`,
			"ip,zone,net,site", []string{"10.1.2.3|b|10.1.0.0/16|2", "10.9.9.9|a|10.0.0.0/8|1"}},
		{"ipv4_lookup_extra_key_unmatched", `let L = datatable(net:string, zone:string)["10.0.0.0/8", "a"];
			datatable(ip:string, zone:string)["10.1.2.3", "b"] | evaluate ipv4_lookup(L, ip, net, zone, true)`,
			"ip,zone,net", []string{"10.1.2.3|b|"}},
		// geo-point-to-geohash/-h3cell/-s2cell pages: a null accuracy or resolution gives ""
		{"geo_cells_null_level", `print a = geo_point_to_geohash(1, 1, int(null)), b = geo_point_to_h3cell(1, 1, int(null)), c = geo_point_to_s2cell(1, 1, int(null)),
			d = strlen(geo_point_to_geohash(1, 1))`, "a,b,c,d", []string{"|||5"}},
		// geo-from-wkt-function.md: a GEOMETRYCOLLECTION holds each member's GeoJSON
		{"geo_from_wkt_collection", `print g = tostring(geo_from_wkt("GEOMETRYCOLLECTION (POINT (3 4), LINESTRING (0 0, 1 1))")),
			bad = isnull(geo_from_wkt("GEOMETRYCOLLECTION (POINT (3 4), CIRCLE (1 1))"))`,
			"g,bad", []string{`{"type":"GeometryCollection","geometries":[{"type":"Point","coordinates":[3.0,4.0]},{"type":"LineString","coordinates":[[0.0,0.0],[1.0,1.0]]}]}|true`}},
		// session-count-plugin.md: a row starts a session when its id has no row in the
		// look-back before it; bins (bin(Timeline, Bin)) count the sessions starting in
		// them. Here a look-back of 3: id 1 at 1, 3, 8 (8 - 3 > 3: new), id 2 at 2, 6
		// (6 - 2 > 3: new), 7; by region, the same id in another region is another
		{"session_count", `datatable(Id:long, T:long, Region:string)[1, 1, "e", 1, 3, "e", 1, 8, "e", 2, 2, "e", 2, 6, "e", 2, 7, "e", 1, 4, "w"]
			| evaluate session_count(Id, T, 0, 10, 5, 3) | order by T asc`, "T,count_sessions", []string{"0|2", "5|2"}},
		{"session_count_dims", `datatable(Id:long, T:long, Region:string)[1, 1, "e", 1, 3, "e", 1, 8, "e", 2, 2, "e", 2, 6, "e", 2, 7, "e", 1, 4, "w"]
			| evaluate session_count(Id, T, 0, 10, 5, 3, Region) | order by T asc, Region asc`,
			"T,Region,count_sessions", []string{"0|e|2", "0|w|1", "5|e|2"}},
		// substring-function.md: a negative start counts from the end
		{"substring_negative_start", `print a = substring("123456", -2, 2), b = substring("abcdef", -3), c = substring("abc", -5), d = substring("abc", -5, 2), e = substring("abc", 1, 0)`,
			"a,b,c,d,e", []string{"56|def|abc|ab|"}},
		// isnull-function.md and gettype-function.md: parse_json("") is null; text that
		// is not JSON stays a string
		{"parse_json_empty", `print a = isnull(parse_json("")), b = gettype(todynamic("")), c = gettype(parse_json("abc")), d = gettype(parse_json("{}"))`,
			"a,b,c,d", []string{"true|null|string|dictionary"}},
		// where-operator.md: * stands for every column; == compares each one's text
		{"where_star_equals", `datatable(a:string, b:long)["10.20.30.40", 1, "x", 2, "y", 10] | where * == "10"`, "a,b", []string{"y|10"}},
		// ingestion-time-function.md: null for records ingested without an IngestionTime
		// policy (every local table); the column is named $IngestionTime
		{"ingestion_time", `datatable(a:long)[1, 2] | extend ingestion_time() | summarize n = countif(isnull($IngestionTime))`, "n", []string{"2"}},
		// geo-s2cell-neighbors-function.md: the cell's neighbors (cells of its level whose
		// boundary touches it), null for an invalid cell. Each comes once: a face cell
		// (level 0) has four, a cell at a cube corner (45, 35.26) seven, others eight
		{"s2cell_neighbors_distinct", `let corner = geo_point_to_s2cell(45, 35.26, 5);
			print face = tostring(array_sort_asc(geo_s2cell_neighbors("1"))), corner = array_length(geo_s2cell_neighbors(corner)),
				corner_distinct = array_length(set_union(geo_s2cell_neighbors(corner), dynamic([]))), mid = array_length(geo_s2cell_neighbors("89c259")),
				self = set_has_element(geo_s2cell_neighbors("89c259"), "89c259"), bad = isnull(geo_s2cell_neighbors("zz")), empty = isnull(geo_s2cell_neighbors(""))`,
			"face,corner,corner_distinct,mid,self,bad,empty", []string{`["3","5","9","b"]|7|7|8|false|true|true`}},
		// geo-h3cell-neighbors-function.md: the cell's immediate neighbors (the first ring
		// of geo_h3cell_rings), null for an invalid cell; a pentagon (8009fffffffffff, a
		// resolution-0 pentagon of H3) has five
		{"h3cell_neighbors", `let c = geo_point_to_h3cell(10, 20, 3);
			print hex = array_length(geo_h3cell_neighbors(c)), ring = array_length(set_difference(geo_h3cell_neighbors(c), geo_h3cell_rings(c, 1)[1])),
				self = set_has_element(geo_h3cell_neighbors(c), c), pentagon = array_length(geo_h3cell_neighbors("8009fffffffffff")),
				bad = isnull(geo_h3cell_neighbors("abc")), empty = isnull(geo_h3cell_neighbors(""))`,
			"hex,ring,self,pentagon,bad,empty", []string{"6|0|false|5|true|true"}},
		// geo-union-polygons-array-function.md: the union of the polygons, drawn as S2
		// draws it (the page's note: S2 geodesics). Own inputs: a square S whose first
		// vertex lies inside a triangle T; S2's union of an array joins the polygon with
		// fewer vertices first, so in either array order the ring ends with S's last
		// piece outside T and starts where T's west edge crosses the equator, (1, 0)
		{"union_polygons_ring_start", `let S = dynamic({"type":"Polygon","coordinates":[[[2,0],[2,2],[0,2],[0,0],[2,0]]]});
			let T = dynamic({"type":"Polygon","coordinates":[[[1,-1],[3,0.5],[1,1],[1,-1]]]});
			let st = geo_union_polygons_array(pack_array(S, T)); let ts = geo_union_polygons_array(pack_array(T, S));
			print x = round(todouble(st.coordinates[0][0][0]), 9), y = round(todouble(st.coordinates[0][0][1]), 9), n = array_length(st.coordinates[0]), same = tostring(st) == tostring(ts)`,
			"x,y,n,same", []string{"1|0|8|true"}},
		// the same page: a union of a union's output with a polygon that shares two of
		// its edges (three H3 cells around one vertex, joined in two calls): the shared
		// vertices meet though the first union's were read back from S2, so the outline
		// has the twelve outer edges and the area of the three cells
		{"union_polygons_of_union", `let c = geo_point_to_h3cell(20, 10, 5); let nb = geo_h3cell_neighbors(c);
			let p0 = geo_h3cell_to_polygon(c); let p1 = geo_h3cell_to_polygon(tostring(nb[0])); let p2 = geo_h3cell_to_polygon(tostring(nb[1]));
			let u = geo_union_polygons_array(pack_array(geo_union_polygons_array(pack_array(p0, p1)), p2));
			print t = tostring(u.type), n = array_length(u.coordinates[0]), area = round(geo_polygon_area(u) / (geo_polygon_area(p0) + geo_polygon_area(p1) + geo_polygon_area(p2)), 9)`,
			"t,n,area", []string{"Polygon|13|1"}},
		// named-expressions.md: a name bound to toscalar() of a non-deterministic scalar
		// is calculated once, however often it is used; two toscalar() calls are two
		// calculations (rand() draws reals: equal draws have odds of about 2^-53)
		{"named_toscalar_once", `let y = () {toscalar(rand())}; let f = (n:long) {toscalar(rand(n) + rand())};
			print same = y == y, twice = y - y, fsame = f(1000) == f(1000), other = toscalar(rand()) != toscalar(rand())`,
			"same,twice,fsame,other", []string{"true|0|true|true"}},
		// geo-s2cell-neighbors-function.md unions a cell and its neighbors into one
		// polygon: for a cell of our own, the outline of the three-by-three block keeps
		// the twelve cell corners on it (S2 keeps the vertices where cells met) and has
		// the nine cells' area
		{"union_s2cell_block", `let c = geo_point_to_s2cell(20, 10, 8);
			print cells = array_concat(pack_array(c), geo_s2cell_neighbors(c))
			| mv-expand cells to typeof(string)
			| project p = geo_s2cell_to_polygon(cells)
			| summarize arr = make_list(p), total = sum(geo_polygon_area(p))
			| project u = geo_union_polygons_array(arr), total
			| project t = tostring(u.type), n = array_length(u.coordinates[0]), area = round(geo_polygon_area(u) / total, 9)`,
			"t,n,area", []string{"Polygon|13|1"}},
		// hll-if-aggregation-function.md: the hll of the rows where the predicate holds
		{"hll_if", `datatable(s:string, t:string, k:string)["a", "F", "x", "b", "F", "x", "a", "F", "x", "c", "H", "x", "d", "H", "y"]
			| summarize h = hll_if(s, t == "F") by k | project k, n = dcount_hll(h) | order by k asc`, "k,n", []string{"x|2", "y|0"}},
		// percentile-array-tdigest-function.md: percentiles_array_tdigest is its other
		// name; a dynamic array of percentiles, and typeof(T) converts the values
		{"percentiles_array_tdigest", `range x from 1 to 9 step 1 | summarize d = tdigest(x * 1.5)
			| project a = tostring(percentiles_array_tdigest(d, range(0, 100, 50), typeof(long))), b = tostring(percentile_array_tdigest(d, 50, 100))`,
			"a,b", []string{"[1,7,13]|[7.5,13.5]"}},
		// new-activity-metrics-plugin.md: the Lookback table's ids were seen before the
		// analysis, so they are new in no cohort: id 1 (in the look-back) leaves the
		// 01-02 cohort {1, 2} as {2}, and 01-03's new values are 3 and 4 (1 and 2 seen)
		{"new_activity_metrics_lookback", `let L = datatable(id:long, Day:datetime)[1, datetime(2020-01-01), 9, datetime(2020-01-01)];
			datatable(id:long, Day:datetime)[1, datetime(2020-01-02), 2, datetime(2020-01-02), 3, datetime(2020-01-03), 1, datetime(2020-01-03), 2, datetime(2020-01-03), 4, datetime(2020-01-03)]
			| evaluate new_activity_metrics(id, Day, datetime(2020-01-02), datetime(2020-01-03), 1d, L)
			| project f = format_datetime(from_Day, "MM-dd"), t = format_datetime(to_Day, "MM-dd"), dcount_new_values, dcount_retained_values, retention_rate`,
			"f,t,dcount_new_values,dcount_retained_values,retention_rate", []string{"01-02|01-02|1|1|1", "01-02|01-03|2|1|1", "01-03|01-03|2|2|1"}},
		// sliding-window-counts-plugin.md: a LookbackWindow that is not a multiple of Bin
		// is rounded down to one: 2.5d of 1d bins is the bin and the one before it
		{"sliding_window_counts_lookback_rounded", `datatable(u:string, t:datetime)["a", datetime(2020-01-01), "b", datetime(2020-01-02), "c", datetime(2020-01-03)]
			| evaluate sliding_window_counts(u, t, datetime(2020-01-01), datetime(2020-01-03), 2.5d, 1d) | project d = dayofmonth(t), Count, dcount | order by d asc`,
			"d,Count,dcount", []string{"1|1|1", "2|2|2", "3|2|2"}},
		// graph-to-table-operator.md: nodes as N, edges as E gives both tables under
		// those names; the operator's own result is the first item's table
		{"graph_to_table_both", `let N0 = datatable(name:string, age:long)["a", 30, "b", 40];
			datatable(s:string, d:string, k:string)["a", "b", "x", "c", "a", "y"] | make-graph s --> d with N0 on name
			| graph-to-table nodes as N, edges as E with_source_id=S | extend edges = toscalar(E | summarize make_list(strcat(k, "=", tostring(S == hash(s))))) | order by name asc`,
			"name,age,edges", []string{`a|30|["x=true","y=true"]`, `b|40|["x=true","y=true"]`, `c|null|["x=true","y=true"]`}},
		// sort-operator.md: null and NaN sit together, NaN on the numbers' side: the
		// page's table of the four orders
		{"sort_nan_next_to_null", `let T = datatable(x:real)[5.0, real(null), real(-inf), 0.0, real(nan), real(+inf), -5.0];
			union (T | sort by x asc nulls first | summarize l = make_list(tostring(x)) | extend o = 1),
				(T | sort by x desc nulls first | summarize l = make_list(tostring(x)) | extend o = 2),
				(T | sort by x asc nulls last | summarize l = make_list(tostring(x)) | extend o = 3),
				(T | sort by x desc nulls last | summarize l = make_list(tostring(x)) | extend o = 4),
				(T | top 2 by x asc | summarize l = make_list(tostring(x)) | extend o = 5)
			| order by o asc | project l`, "l", []string{`["","NaN","-Infinity","-5","0","5","Infinity"]`, `["","NaN","Infinity","5","0","-5","-Infinity"]`,
			`["-Infinity","-5","0","5","Infinity","NaN",""]`, `["Infinity","5","0","-5","-Infinity","NaN",""]`, `["","NaN"]`}},
		// real.md: NaN is a real value; adding it gives NaN, so a sum or an average over
		// values among which is a NaN is NaN (a null is skipped, as the summarize page says)
		{"sum_avg_with_nan", `datatable(x:real, k:string)[real(nan), "a", 1.0, "a", 2.0, "b", real(null), "b"]
			| summarize s = sum(x), a = avg(x), si = sumif(x, x > 0) by k | order by k asc`, "k,s,a,si", []string{"a|NaN|NaN|1", "b|2|2|2"}},
		// activity-engagement-plugin.md: the outer window ending with each inner window
		// (3d: that day and the two before) counts its distinct ids, per dimension; id
		// 1's days 1 and 2 make one run, day 6 another
		{"activity_engagement_dims", `datatable(id:long, t:datetime, g:string)[1, datetime(2020-01-01), "x", 1, datetime(2020-01-02), "x", 1, datetime(2020-01-06), "x",
				2, datetime(2020-01-03), "x", 3, datetime(2020-01-02), "y"]
			| evaluate activity_engagement(id, t, datetime(2020-01-01), datetime(2020-01-08), 1d, 3d, g)
			| project d = dayofmonth(t), g, dcount_activities_inner, dcount_activities_outer, activity_ratio | order by d asc, g asc`,
			"d,g,dcount_activities_inner,dcount_activities_outer,activity_ratio", []string{"1|x|1|1|1", "2|x|1|1|1", "2|y|1|1|1", "3|x|1|2|0.5", "6|x|1|1|1"}},
		// parse-operator.md: an extended column is converted to its columnType; a
		// dynamic one as todynamic() converts text (JSON becomes its value, other text a
		// string), so its properties can be read
		{"parse_dynamic_column", `datatable(s:string)["a={\"k\":1};", "a=xyz;", "a=[1,2];"] | parse s with "a=" b:dynamic ";"
			| project t = gettype(b), k = tostring(b.k), n = array_length(b)`, "t,k,n", []string{"dictionary|1|null", "string||null", "array||2"}},
		// gettype-function.md: the run-time type of the value: an int is "int" (as
		// parse_json('1') is) and a decimal "decimal", a long "long"
		{"gettype_int_decimal", `datatable(i:int, d:decimal, l:long)[1, 2.5, 3, int(null), decimal(null), long(null)]
			| project a = gettype(i), b = gettype(d), c = gettype(l), e = gettype(toint(7)), f = gettype(parse_version("1.2"))`,
			"a,b,c,e,f", []string{"int|decimal|long|int|decimal", "null|null|null|int|decimal"}},
		// graph-to-table-operator.md: a node only the edges name keeps its key
		{"graph_node_from_edges_keeps_key", `let N = datatable(name:string, age:long)["a", 30];
			datatable(s:string, d:string)["a", "b"] | make-graph s --> d with N on name | graph-to-table nodes | order by name asc`,
			"name,age", []string{"a|30", "b|null"}},
	}
	checkQueries(t, e, cases)
}

// TestPages_NewGuidIsVersion4 checks new_guid() prints as a random (version 4) GUID:
// a 4 leads the third group and 8, 9, a or b the fourth.
func TestPages_NewGuidIsVersion4(t *testing.T) {
	e := mustOpen(t, "")
	rs, err := e.Query(context.Background(), `range i from 1 to 50 step 1 | project g = tostring(new_guid())`)
	if err != nil {
		t.Fatal(err)
	}
	v4 := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	for _, r := range rs.Rows {
		if !v4.MatchString(r[0].Str) {
			t.Fatalf("new_guid() = %s, not a version 4 GUID", r[0].Str)
		}
	}
}

// TestNative_SameAsRuntime checks the calls written as SQL (bin of a column by a
// constant, timespan × number, a string element of mv-expand converted) and the
// calls computed while translating answer what the run-time functions answer: the
// same expressions made opaque (iff(true, x, x) is not a plain column) go to Go.
func TestNative_SameAsRuntime(t *testing.T) {
	e := mustOpen(t, "")
	q := `datatable(d:datetime, s:timespan, n:long, f:real)[
		datetime(2017-01-01 10:07:31.1234567), 90m, 7, 2.5,
		datetime(1601-12-31 23:59:59), -90m, -7, -0.5,
		datetime(1969-12-31 23:59:59.9999999), 0s, 0, real(null),
		datetime(null), timespan(null), long(null), 1e300,
		datetime(9999-12-31), 1tick, 9223372036854775807, 0.1]
	| extend od = iff(true, d, d), os = iff(true, s, s), on = iff(true, n, n), of = iff(true, f, f)
	| project a = bin(d, 1h) == bin(od, 1h) or isnull(bin(od, 1h)) and isnull(bin(d, 1h)),
		b = bin(d, 7d) == bin(od, 7d) or isnull(bin(od, 7d)) and isnull(bin(d, 7d)),
		c = bin(s, 1h) == bin(os, 1h) or isnull(bin(os, 1h)) and isnull(bin(s, 1h)),
		g = bin(n, 5) == bin(on, 5) or isnull(bin(on, 5)) and isnull(bin(n, 5)),
		h = s * f == os * of or isnull(s * f) and isnull(os * of),
		i = n * 1h == on * 1h or isnull(n * 1h) and isnull(on * 1h),
		j = 1h * f == 1h * of or isnull(1h * f) and isnull(1h * of)
	| summarize countif(a and b and c and g and h and i and j), count()`
	checkQueries(t, e, []queryCase{
		{"bin_and_span_times", q, "countif_,count_", []string{"5|5"}},
		{"folded", `print a = 1h * 2.5, b = 90m / 2, c = bin(7, 5), d = bin(datetime(2017-01-01 10:07), 1h), e = -7 % 5`,
			"a,b,c,d,e", []string{"02:30:00|00:45:00|5|2017-01-01T10:00:00Z|3"}},
	})
}

// TestNative_ExpandedTextSameAsJSON checks an array's elements converted by
// mv-expand ... to typeof(T) from json_each's text (one column expanded) answer what
// the conversion from their JSON answers (two columns expanded together).
func TestNative_ExpandedTextSameAsJSON(t *testing.T) {
	e := mustOpen(t, "")
	arr := `dynamic(["2017-01-01T10:00:00Z", "x", 3, null, "1.02:00:00", 2.5, true, "2017-01-01 10:00", "00000000-0000-0000-0000-000000000001", "12"])`
	for _, ty := range []string{"datetime", "timespan", "long", "int", "real", "bool", "guid", "decimal"} {
		one, err := e.Query(context.Background(), "print a = "+arr+" | mv-expand a to typeof("+ty+") | project v = tostring(a)")
		if err != nil {
			t.Fatal(err)
		}
		two, err := e.Query(context.Background(), "print a = "+arr+", z = range(1, 10) | mv-expand a to typeof("+ty+"), z | project v = tostring(a)")
		if err != nil {
			t.Fatal(err)
		}
		if got, want := rowsText(one), rowsText(two); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("typeof(%s): one column %q, two columns %q", ty, got, want)
		}
	}
}
