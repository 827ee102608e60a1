package kqlexec_test

import (
	"context"
	"testing"
)

// TestOperators_Parse checks parse and parse-where against the kinds of the
// reference's parse-operator page, on inputs made up here.
func TestOperators_Parse(t *testing.T) {
	e := mustOpen(t, "")
	rows := `datatable(s:string)["id=7; at=2021-03-04 05:06:07; who=ann, x", "id=x9; at=2021-03-04; who=bob, y", "id=12; at=never; who=cid, z", "no match", ""]`
	cases := []queryCase{
		// simple is strict: a column that does not convert nulls the whole row
		{"simple_strict", rows + ` | parse s with "id=" id:long "; at=" at:datetime "; who=" who "," * | project id, at, who`,
			"id,at,who", []string{"7|2021-03-04T05:06:07Z|ann", "null|null|", "null|null|", "null|null|", "null|null|"}},
		// relaxed nulls only the column that does not convert
		{"relaxed", rows + ` | parse kind=relaxed s with "id=" id:long "; at=" at:datetime "; who=" who "," * | project id, at, who`,
			"id,at,who", []string{"7|2021-03-04T05:06:07Z|ann", "null|2021-03-04T00:00:00Z|bob", "12|null|cid", "null|null|", "null|null|"}},
		{"parse_where_simple", rows + ` | parse-where s with "id=" id:long "; at=" at:datetime "; who=" who "," * | project id, who`,
			"id,who", []string{"7|ann"}},
		// regex: * and string columns are greedy unless flags has U; the delimiters'
		// own groups do not move the columns
		{"regex_greedy", `print s = "k=a,b,c" | parse kind=regex s with "(k)=" v "," * | project v`, "v", []string{"a,b"}},
		{"regex_ungreedy", `print s = "k=a,b,c" | parse kind=regex flags=U s with "(k)=" v "," * | project v`, "v", []string{"a"}},
		{"regex_case", `print s = "KEY=-42;" | parse kind=regex flags=i s with "key=" n:long ";" | project n`, "n", []string{"-42"}},
		{"regex_case_sensitive", `print s = "KEY=-42;" | parse kind=regex s with "key=" n:long ";" | project n`, "n", []string{"null"}},
		// . matches a newline only with flag s
		{"regex_newline", `print s = "a=x\ny;" | parse kind=regex s with "a=" v ";" | project v`, "v", []string{""}},
		{"regex_newline_s", `print s = "a=x\ny;" | parse kind=regex flags=s s with "a=" v ";" | project v`, "v", []string{"x\ny"}},
		{"parse_where_regex", `datatable(s:string)["n=1,", "n=x,", "N=2,"] | parse-where kind=regex flags=i s with "n=" n:long "," | project n`,
			"n", []string{"1", "2"}},
		// a non-string source is parsed as its text; an existing column is replaced
		{"non_string_source", `print s = 12345, n = 0 | parse s with "1" n:long "4" rest | project n, rest`, "n,rest", []string{"23|5"}},
	}
	checkQueries(t, e, cases)
}

// TestOperators_JoinInnerunique checks the default join: the left side keeps the first
// row of each key, and a filter on left columns right after the join is applied
// before that (the join-innerunique page), so the row it asks for is the one kept.
func TestOperators_JoinInnerunique(t *testing.T) {
	e := mustOpen(t, "")
	l := `let L = datatable(k:long, v:string, n:long)[1, "a", 10, 1, "b", 20, 2, "c", 30];
let R = datatable(k:long, w:string)[1, "x", 1, "y", 2, "q"];
`
	cases := []queryCase{
		{"first_of_key", l + `L | join R on k | project v, w | sort by w asc`, "v,w", []string{"c|q", "a|x", "a|y"}},
		{"filter_pushed", l + `L | join R on k | where v == "b" | project v, w | sort by w asc`, "v,w", []string{"b|x", "b|y"}},
		{"two_filters_pushed", l + `L | join kind=innerunique R on k | where n > 15 | where v != "c" | project v, w | sort by w asc`, "v,w", []string{"b|x", "b|y"}},
		// a filter that reads a right column stays after the join
		{"filter_on_right", l + `L | join R on k | where w == "y" | project v, w`, "v,w", []string{"a|y"}},
		// kind=inner keeps every left row
		{"inner", l + `L | join kind=inner R on k | where v == "b" | project v, w | sort by w asc`, "v,w", []string{"b|x", "b|y"}},
		{"inner_all", l + `L | join kind=inner R on k | count`, "Count", []string{"5"}},
	}
	checkQueries(t, e, cases)
}

// TestOperators_UnionSources checks union's withsource= names (a table's or view's
// name, the name given by as, else the leg's place) and the names of columns split
// by type (the union-operator and as-operator pages).
func TestOperators_UnionSources(t *testing.T) {
	e := mustOpen(t, "")
	cases := []queryCase{
		{"as_names", `range x from 1 to 2 step 1 | as A | union withsource=S (print x = 5 | as B) | project S, x`, "S,x", []string{"A|1", "A|2", "B|5"}},
		{"as_then_filter", `let T = datatable(a:long)[1, 2]; T | where a > 1 | union withsource=S (T | as U | where a < 2)`, "S,a", []string{"T|2", "U|1"}},
		{"unnamed_legs", `union withsource=S (print a = 1), (print a = 2)`, "S,a", []string{"union_arg0|1", "union_arg1|2"}},
		{"view_names", `let V1 = view () { print a = 1 }; let V2 = view () { print a = 2 }; union withsource=S V1, V2`, "S,a", []string{"V1|1", "V2|2"}},
		// x has two types: x_long and x_int; a column already named x_long keeps its
		// name and the one made from the type gets a number
		{"type_split_clash", `union (print x = 1), (print x = toint(2)), (print x_long = 3)`, "x_long1,x_int,x_long", []string{"1|null|null", "null|2|null", "null|null|3"}},
		{"as_in_join", `range k from 1 to 3 step 1 | extend v = k * 10 | as T | where k > 1 | join kind=inner (T | where k < 3) on k | project k, v, v1`, "k,v,v1", []string{"2|20|20"}},
	}
	checkQueries(t, e, cases)
}

// TestSemantics_NaN checks that a real NaN stays NaN, apart from null, through stages,
// arithmetic on columns, comparisons, conversions and functions (the isnan, isinf and
// isfinite pages; SQLite itself stores a NaN as NULL).
func TestSemantics_NaN(t *testing.T) {
	e := mustOpen(t, "")
	div := `range x from -1 to 1 step 1 | extend d = 1.0 * x / 0.0 `
	cases := []queryCase{
		{"kinds", div + `| project x, nan = isnan(d), inf = isinf(d), fin = isfinite(d), nul = isnull(d)`, "x,nan,inf,fin,nul",
			[]string{"-1|false|true|false|false", "0|true|false|false|false", "1|false|true|false|false"}},
		{"null_is_not_nan", `print n = isnan(real(null)), f = isfinite(2.5), z = isnull(real(nan)), w = isnan(real(nan))`, "n,f,z,w", []string{"false|true|false|true"}},
		{"arith_and_compare", div + `| where x == 0 | project a = d * 2, b = d + x, c = d > 0, f = d < 0, g = d >= 0, s = tostring(d), l = tolong(d)`,
			"a,b,c,f,g,s,l", []string{"NaN|NaN|false|false|false|NaN|null"}},
		{"through_stages", div + `| extend d2 = d | project-away d | where isnan(d2) | project x, j = pack("v", d2)`, "x,j", []string{`0|{"v":"NaN"}`}},
	}
	checkQueries(t, e, cases)
}

// TestOperators_SummarizeEmptyDefaults checks the default values of aggregates over no
// rows (the summarize page): 0 for count, sum, stdev and variance, NaN for avg, []
// for the lists, null for the rest; with a by clause there is no row.
func TestOperators_SummarizeEmptyDefaults(t *testing.T) {
	e := mustOpen(t, "")
	cases := []queryCase{
		{"no_rows", `datatable(x:long)[] | summarize c = count(), s = sum(x), si = sumif(x, x > 0), a = avg(x), sd = stdev(x), v = variance(x), vi = varianceif(x, x > 1),
			mn = min(x), ta = take_any(x), l = make_list(x), sp = stdevp(x)`, "c,s,si,a,sd,v,vi,mn,ta,l,sp", []string{"0|0|0|NaN|0|0|0|null|null|[]|null"}},
		{"only_nulls", `datatable(x:real)[real(null), real(null)] | summarize s = sum(x), a = avg(x), c = count(x), mx = max(x)`, "s,a,c,mx", []string{"0|NaN|2|null"}},
		{"by_no_rows", `datatable(x:long, k:string)[] | summarize sum(x) by k`, "k,sum_x", nil},
		{"values", `datatable(x:long)[1, 2, long(null), 6] | summarize s = sum(x), a = avg(x), v = variance(x)`, "s,a,v", []string{"9|3|7"}},
	}
	checkQueries(t, e, cases)
}

// TestFunctions_Range checks range() (the range-function page): the default step is
// 1 for numbers and 1h for datetimes and timespans, the last value is at most stop,
// a step away from stop gives [], a null bound or step null, and the array stops at
// 2^20 values.
func TestFunctions_Range(t *testing.T) {
	e := mustOpen(t, "")
	cases := []queryCase{
		{"numbers", `print a = range(1, 8, 3), b = range(1, 3), c = range(5, 1, -2), d = range(3, 1), e = range(1.5, 3), f = range(1, 2, 0.5), g = range(int(1), int(2))`,
			"a,b,c,d,e,f,g", []string{"[1,4,7]|[1,2,3]|[5,3,1]|[]|[1.5,2.5]|[1.0,1.5,2.0]|[1,2]"}},
		{"times", `print a = range(1h, 3h), b = array_length(range(datetime(2015-01-01), datetime(2015-01-02))), c = range(datetime(2020-01-01), datetime(2020-01-03), 1d), d = range(2h, 0h, -1h)`,
			"a,b,c,d", []string{`["01:00:00","02:00:00","03:00:00"]|25|["2020-01-01T00:00:00.0000000Z","2020-01-02T00:00:00.0000000Z","2020-01-03T00:00:00.0000000Z"]|["02:00:00","01:00:00","00:00:00"]`}},
		{"nulls", `print a = isnull(range(1, long(null))), b = isnull(range(long(null), 3)), c = isnull(range(1, 3, long(null))), d = isnull(range(1, 3, 0))`,
			"a,b,c,d", []string{"true|true|true|true"}},
		{"cap", `print n = array_length(range(1, 1000000000))`, "n", []string{"1048576"}},
	}
	checkQueries(t, e, cases)
}

// TestOperators_SearchEveryTable checks search with no input and no in: it searches
// every table and every view the query declares, naming each in $table.
func TestOperators_SearchEveryTable(t *testing.T) {
	e := mustOpen(t, "")
	cases := []queryCase{
		{"views", `let A = view () { range n from 1 to 3 step 1 }; let B = view () { print n = 2, s = "two" }; let C = datatable(n:long)[2];
search n == 2 | project-reorder $table, n`, "$table,n,s", []string{"A|2|", "B|2|two"}},
		{"term", `let A = view () { print s = "alpha beta" }; let B = view () { print s = "gamma" }; search "beta"`, "$table,s", []string{"A|alpha beta"}},
	}
	checkQueries(t, e, cases)
}

// TestFunctions_Toscalar checks toscalar() (the toscalar page): a scalar is computed
// once for the query, a table gives its first row's first column, and neither may
// read the row it is called from.
func TestFunctions_Toscalar(t *testing.T) {
	e := mustOpen(t, "")
	cases := []queryCase{
		{"once", `let g = toscalar(new_guid()); range x from 1 to 3 step 1 | extend g | summarize dcount(g)`, "dcount_g", []string{"1"}},
		{"per_row_without", `let g = new_guid(); range x from 1 to 3 step 1 | extend g | summarize dcount(g)`, "dcount_g", []string{"3"}},
		{"table", `let S = toscalar(datatable(a:long, b:string)[7, "x", 8, "y"] | sort by a desc); print S`, "print_0", []string{"8"}},
		{"empty_table", `print isnull(toscalar(datatable(a:long)[]))`, "print_0", []string{"true"}},
		{"in_range", `let Start = toscalar(print 2); let End = toscalar(range x from 1 to 6 step 1 | count); range z from Start to End step Start`, "z", []string{"2", "4", "6"}},
		{"function_of_constant", `let f = (a:long) { toscalar(a * 2) }; print f(4)`, "print_0", []string{"8"}},
	}
	checkQueries(t, e, cases)
	for _, q := range []string{
		`let D = datatable(x:long, y:long)[1, 2]; let f = (k:long) { toscalar(D | where x == k | project y) }; range x from 1 to 2 step 1 | extend y = f(x)`,
		`range x from 1 to 2 step 1 | extend y = toscalar(x)`,
	} {
		if _, err := e.Query(context.Background(), q); err == nil {
			t.Errorf("%s: want an error (toscalar cannot read the row), got none", q)
		}
	}
}

// TestAggregates_WeightedPercentiles checks percentilew and percentilesw (the
// percentilesw page): nearest rank over each value repeated weight times, a null
// value or a zero weight left out, columns named as the unweighted percentiles.
func TestAggregates_WeightedPercentiles(t *testing.T) {
	e := mustOpen(t, "")
	rows := `datatable(v:long, w:long)[1, 3, 5, 1, 9, 0, long(null), 4]`
	cases := []queryCase{
		{"columns", rows + ` | summarize percentilesw(v, w, 50, 75, 76, 100), percentilew(v, w, 0)`,
			"percentile_v_50,percentile_v_75,percentile_v_76,percentile_v_100,percentile_v_0", []string{"1|1|5|5|1"}},
		{"named", rows + ` | summarize (a, b) = percentilesw(v, w, 50, 99.5)`, "a,b", []string{"1|5"}},
		{"array", rows + ` | summarize percentilesw_array(v, w, dynamic([25, 100]))`, "percentiles_v", []string{"[1,5]"}},
		{"by", `datatable(k:string, v:real, w:long)["a", 1.5, 1, "a", 2.5, 3, "b", 7.0, 2] | summarize percentilew(v, w, 50) by k | sort by k asc`,
			"k,percentile_v_50", []string{"a|2.5", "b|7"}},
	}
	checkQueries(t, e, cases)
}

// TestFunctions_HasIPv4Prefix checks has_ipv4, has_ipv4_prefix and their any forms
// (their pages): a prefix is a whole address or parts ending with a dot, an invalid
// one never matches, and an address counts only when no letter, digit or dot touches it.
func TestFunctions_HasIPv4Prefix(t *testing.T) {
	e := mustOpen(t, "")
	text := `"from 10.20.30.40, to 10.20.3.4;"`
	cases := []queryCase{
		{"prefix", `print a = has_ipv4_prefix(` + text + `, "10.20."), b = has_ipv4_prefix(` + text + `, "10.20"), c = has_ipv4_prefix(` + text + `, "10.20.30.4"),
			d = has_ipv4_prefix(` + text + `, "10.20.30.40"), e = has_ipv4_prefix(` + text + `, "300."), f = has_ipv4_prefix(` + text + `, "")`,
			"a,b,c,d,e,f", []string{"true|false|false|true|false|false"}},
		{"any_prefix", `print a = has_any_ipv4_prefix(` + text + `, dynamic(["10.2", "10.20.3."])), b = has_any_ipv4_prefix(` + text + `, "1.", "10.20.30."),
			c = has_any_ipv4_prefix(` + text + `, dynamic(["10.2"]))`, "a,b,c", []string{"true|true|false"}},
		{"delimited", `print a = has_ipv4("x10.1.1.1 y", "10.1.1.1"), b = has_ipv4("(10.1.1.1)", "10.1.1.1"), c = has_ipv4("10.1.1.1.5", "10.1.1.1"),
			d = has_ipv4("10.1.1.256", "10.1.1.256"), e = has_ipv4_prefix("ip=10.1.1.1_", "10.1.")`, "a,b,c,d,e", []string{"false|true|false|false|true"}},
	}
	checkQueries(t, e, cases)
}

// TestFunctions_BetaAndBagZip checks the edge cases the beta_cdf, beta_inv and bag_zip
// pages give: nulls, values out of range (NaN or null), and arrays of other lengths.
func TestFunctions_BetaAndBagZip(t *testing.T) {
	e := mustOpen(t, "")
	cases := []queryCase{
		{"beta_cdf", `print a = round(beta_cdf(0.5, 2.0, 2.0), 9), b = beta_cdf(1.5, 2, 2), c = beta_cdf(-0.1, 2, 2), d = beta_cdf(0.5, 0, 2), e = beta_cdf(0.5, 2, 20000),
			f = isnull(beta_cdf(real(null), 2, 2)), g = beta_cdf(1, 2, 2)`, "a,b,c,d,e,f,g", []string{"0.5|NaN|NaN|NaN|NaN|true|1"}},
		{"beta_inv", `print a = round(beta_inv(0.5, 2.0, 2.0), 9), b = isnull(beta_inv(1.5, 2, 2)), c = isnull(beta_inv(0, 2, 2)), d = beta_inv(0.5, -1, 2), e = beta_inv(1, 2, 3),
			f = round(beta_cdf(beta_inv(0.3, 2, 5), 2, 5), 9), g = isnull(beta_inv(0.5, long(null), 2))`, "a,b,c,d,e,f,g", []string{"0.5|true|true|NaN|1|0.3|true"}},
		{"bag_zip", `print a = bag_zip(dynamic(["a", 8, "b"]), dynamic([1, "2", 2.5])), b = bag_zip(dynamic(["a", "b"]), dynamic(1)), c = bag_zip(dynamic(["a", "b", "c"]), dynamic([1])),
			d = isnull(bag_zip(dynamic("a"), dynamic([1]))), f = bag_zip(dynamic([]), dynamic([1]))`, "a,b,c,d,f", []string{`{"a":1,"b":2.5}|{"a":null,"b":null}|{"a":1,"b":null,"c":null}|true|{}`}},
	}
	checkQueries(t, e, cases)
}

// TestOperators_Reduce checks reduce (the reduce-operator page): terms split at the
// given characters (else at every character that is not an ASCII letter or digit),
// words more frequent than the threshold kept, the rest written *, rows in no group
// counted as others.
func TestOperators_Reduce(t *testing.T) {
	e := mustOpen(t, "")
	cities := `datatable(s:string)["San Bernard", "San Jose", "San Diego", "Paris", "Paris", "x-1", "x-2", "Rome"]`
	cases := []queryCase{
		{"characters", `range x from 1 to 10 step 1 | project str = strcat("foo", "Z", tostring(x)) | reduce by str with characters="Z"`,
			"Pattern,Count,Representative", []string{"foo*|10|fooZ1"}},
		{"no_frequent_word", `range x from 1 to 10 step 1 | project str = strcat("foo", "Z", tostring(x)) | reduce by str`,
			"Pattern,Count,Representative", []string{"others|10|"}},
		{"groups", cities + ` | reduce by s with threshold=0.2`, "Pattern,Count,Representative",
			[]string{"San*|3|San Bernard", "Paris|2|Paris", "x*|2|x-1", "others|1|"}},
		{"threshold_keeps_fewer", cities + ` | reduce by s with threshold=0.3`, "Pattern,Count,Representative",
			[]string{"San*|3|San Bernard", "others|5|"}},
		{"source", cities + ` | reduce kind=source by s with threshold=0.3 | project s, Pattern`, "s,Pattern",
			[]string{"San Bernard|San*", "San Jose|San*", "San Diego|San*", "Paris|others", "Paris|others", "x-1|others", "x-2|others", "Rome|others"}},
		{"empty", `datatable(s:string)[] | reduce by s`, "Pattern,Count,Representative", nil},
	}
	checkQueries(t, e, cases)
}

// TestFunctions_SeriesElementwise checks the element-wise series functions (the
// series_add page and its siblings): the longer series sets the length, a missing or
// non-numeric element gives null, a scalar applies to every element, integers stay
// integers under + - *, and a NaN or infinity computed from numbers is kept.
func TestFunctions_SeriesElementwise(t *testing.T) {
	e := mustOpen(t, "")
	cases := []queryCase{
		{"lengths", `print a = series_add(dynamic([1, "a", 2.5]), dynamic([1, 2])), b = series_add(dynamic([1, 2]), dynamic([5])), c = series_multiply(dynamic([2, 3]), 2),
			d = series_subtract(10, dynamic([1.5, 2]))`, "a,b,c,d", []string{"[2,null,null]|[6,null]|[4,6]|[8.5,8]"}},
		{"nan_kept", `print a = series_divide(dynamic([1, 0, -1]), 0), b = series_log(dynamic([0, -1, "x", null, 1])), c = series_sign(dynamic([-2.5, 0, 3, null]))`,
			"a,b,c", []string{`["Infinity","NaN","-Infinity"]|["-Infinity","NaN",null,null,0.0]|[-1.0,0.0,1.0,null]`}},
		{"compare", `print a = series_greater(dynamic([1, 2, 3]), 2), b = series_equals(dynamic([1, null]), dynamic([1, 1])), c = isnull(series_add(dynamic(null), dynamic([1])))`,
			"a,b,c", []string{"[false,false,true]|[true,null]|true"}},
	}
	checkQueries(t, e, cases)
}

// TestFunctions_Rand checks rand() and rand(N) (the rand page): reals in [0, 1) or
// whole reals in [0, N), null for N below 1, one draw per row kept by later stages.
func TestFunctions_Rand(t *testing.T) {
	e := mustOpen(t, "")
	cases := []queryCase{
		{"ranges", `range x from 1 to 2000 step 1 | extend u = rand(), k = rand(5) | summarize lo = min(u) >= 0.0, hi = max(u) < 1.0, kmin = min(k), kmax = max(k), whole = countif(k != floor(k, 1)) == 0, kinds = dcount(k)`,
			"lo,hi,kmin,kmax,whole,kinds", []string{"true|true|0|4|true|5"}},
		{"types_and_nulls", `print a = rand(0), b = rand(long(null)), c = rand(1) | extend t = gettype(c)`, "a,b,c,t", []string{"null|null|0|real"}},
		{"one_draw_per_row", `range x from 1 to 50 step 1 | extend r = rand() | extend d = r - r, r2 = r | summarize maxd = max(d), same = countif(r == r2)`, "maxd,same", []string{"0|50"}},
	}
	checkQueries(t, e, cases)
}

// TestNames_GeneratedColumns checks the names Kusto gives unnamed columns (the result
// name kinds of Kusto.Language's function tables): most functions number the column,
// conversions, bin and the math functions take their argument's name, strlen and
// gettype prefix it, take_anyif and binary_all_* take it too, and project numbers a
// name it already has while extend replaces the column.
func TestNames_GeneratedColumns(t *testing.T) {
	e := mustOpen(t, "")
	d := `datatable(k:string, x:long, y:real, s:string)["a", 1, 2.5, "p", "b", 2, 0.5, "q"]`
	cases := []queryCase{
		{"project", d + ` | where k == "a" | project round(y), abs(x), strlen(s), strlen(strcat(s, s)), gettype(x), tolower(s), startofmonth(datetime(2020-05-05)), format_bytes(x)`,
			"y,x,strlen_s,strlen_,type_x,Column1,Column2,x1", []string{"3|1|1|2|long|p|2020-05-01T00:00:00Z|1 Bytes"}},
		{"project_duplicates", d + ` | where k == "a" | project x, x, sqrt(y), tostring(y)`, "x,x1,y,y1", []string{"1|1|1.5811388300841898|2.5"}},
		{"extend_replaces", d + ` | where k == "a" | extend round(y), tostring(x)`, "k,x,y,s", []string{"a|1|3|p"}},
		{"aggregates", d + ` | summarize take_anyif(s, x > 1), binary_all_or(x), max(round(y)), count() by bin(x, 5)`, "x,s,x1,max_y,count_", []string{"0|q|3|3|2"}},
		// the aggregates' other names are named by their own prefixes (Kusto.Language's
		// Aggregates.cs): makelist and makeset as make_list and make_set, any and anyif
		// by their names, count_distinct(if) and make_dictionary by theirs
		{"aggregate_aliases", d + ` | summarize makelist(x), makeset(s), any(k), anyif(s, x > 1), count_distinct(s), count_distinctif(s, x > 1), make_dictionary(bag_pack("k", k))`,
			"list_x,set_s,any_k,anyif_s,count_distinct_s,count_distinctif_s,dictionary_", []string{`[1,2]|["p","q"]|a|q|2|1|{"k":"a"}`}},
		// series_fft's and series_ifft's outputs, as Kusto.Language's Functions.cs names them
		// (the columns' names only, as getschema lists them: the values are another test's)
		{"fft_outputs", `print y = dynamic([1, 0, -1, 0]) | extend series_fft(y) | extend series_ifft(series_fft_y_real, series_fft_y_imag) | getschema | project ColumnName`,
			"ColumnName", []string{"y", "series_fft_y_real", "series_fft_y_imag", "series_ifft_series_fft_y_real_real", "series_ifft_series_fft_y_real_imag"}},
		// an aggregate inside an expression names it as its own column would
		{"nested_aggregates", d + ` | summarize t = tdigest(x), h = hll(s) by k | summarize percentile_tdigest(merge_tdigest(t), 100), dcount_hll(hll_merge(h))`,
			"percentile_tdigest_merge_tdigests_t,dcount_hll_hll_merge_h", []string{"2|2"}},
	}
	checkQueries(t, e, cases)
}

// TestFunctions_StandIns checks the fixed answers of the functions that name the
// cluster, the database and the caller, which a local engine does not have.
func TestFunctions_StandIns(t *testing.T) {
	e := mustOpen(t, "")
	cases := []queryCase{
		{"values", `print p = current_principal(), c = current_cluster_endpoint(), d = current_database()`, "p,c,d",
			[]string{"aaduser=00000000-0000-0000-0000-000000000000;00000000-0000-0000-0000-000000000000|localhost|NetDefaultDB"}},
		{"fqn_parts", `print t = tostring(split(current_principal(), "=")[0]), n = array_length(split(current_principal(), ";"))`, "t,n", []string{"aaduser|2"}},
	}
	checkQueries(t, e, cases)
	if _, err := e.Query(context.Background(), `print current_principal(1)`); err == nil {
		t.Error("current_principal(1): want an error, got none")
	}
}

// TestPlugins_SchemaMerge checks schema_merge on schemas made here: columns once,
// moved columns out of order and last unless PreserveOrder=false.
func TestPlugins_SchemaMerge(t *testing.T) {
	e := mustOpen(t, "")
	s := `let a = datatable(A:string, B:long, C:real)[] | getschema; let b = datatable(A:string, C:real, D:bool, B:long)[] | getschema; `
	cases := []queryCase{
		{"preserve", s + `union a, b | evaluate schema_merge() | project ColumnName, ColumnOrdinal`, "ColumnName,ColumnOrdinal",
			[]string{"A|0", "D|1", "B|-1", "C|-1"}},
		{"not_preserve", s + `union a, b | evaluate schema_merge(false) | project ColumnName, ColumnOrdinal`, "ColumnName,ColumnOrdinal",
			[]string{"A|0", "C|1", "D|2", "B|3"}},
	}
	checkQueries(t, e, cases)
}

// TestFunctions_SeriesStatsDynamic checks series_stats_dynamic's bag (its page): the
// statistics with sum and len, non-finite values ignored only when asked.
func TestFunctions_SeriesStatsDynamic(t *testing.T) {
	e := mustOpen(t, "")
	cases := []queryCase{
		{"bag", `print s = series_stats_dynamic(dynamic([4, 1, 7])) | project mn = s.min, mi = s.min_idx, mx = s.max, a = s.avg, v = s.variance, sum = s.sum, n = s.len`,
			"mn,mi,mx,a,v,sum,n", []string{"1.0|1|7.0|4.0|9.0|12.0|3"}},
		{"nulls", `print a = series_stats_dynamic(dynamic([1, null, 3])).sum, b = series_stats_dynamic(dynamic([1, null, 3]), true).sum, c = series_stats_dynamic(dynamic([1, null, 3]), true).len`,
			"a,b,c", []string{"null|4.0|3"}},
	}
	checkQueries(t, e, cases)
}
