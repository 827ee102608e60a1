package kqlexec_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/kqlexec"
)

var pinnedNow = time.Date(2024, 3, 15, 12, 0, 0, 0, time.UTC)

// mustOpen opens the engine for a semantics test; its deadline is a hang guard only
// (a test's queries take milliseconds alone and seconds on a loaded machine).
func mustOpen(tb testing.TB, source string) *kqlexec.Executor {
	tb.Helper()
	e, err := kqlexec.Open(source, kqlexec.Options{Now: pinnedNow, TempDir: tb.TempDir(), Limits: qeval.Limits{Timeout: 2 * time.Minute}})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { e.Close() })
	return e
}

// rowsText renders rows as "a|b" lines, NULL as "null".
func rowsText(rs *qeval.ResultSet) []string {
	out := make([]string, len(rs.Rows))
	for i, r := range rs.Rows {
		parts := make([]string, len(r))
		for j, v := range r {
			if v.IsNull() {
				parts[j] = "null"
			} else {
				parts[j] = v.String()
			}
		}
		out[i] = strings.Join(parts, "|")
	}
	return out
}

const people = `let T = datatable(Name:string, Age:long, City:string)[
  "Ann", 31, "Oslo", "bob", long(null), "Rome", "Cid", 25, "oslo", "Dee", 40, "Oslo-East"];
`

// queryCase is a query and the columns and rows it must answer ("a|b" lines, NULL as
// "null").
type queryCase struct {
	name, query, cols string
	rows              []string
}

// checkQueries runs each case as a subtest.
func checkQueries(t *testing.T, e *kqlexec.Executor, cases []queryCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rs, err := e.Query(context.Background(), c.query)
			if err != nil {
				sql, _, _ := e.Translate(c.query)
				t.Fatalf("Query: %v\nSQL: %s", err, sql)
			}
			if got := strings.Join(rs.ColumnNames(), ","); got != c.cols {
				t.Errorf("columns = %s, want %s", got, c.cols)
			}
			if got := rowsText(rs); strings.Join(got, "\n") != strings.Join(c.rows, "\n") {
				t.Errorf("rows = %q, want %q", got, c.rows)
			}
		})
	}
}

// TestSemantics_KQLRules checks the rules where KQL differs from SQL, each against rows
// worked out by hand.
func TestSemantics_KQLRules(t *testing.T) {
	e := mustOpen(t, "")
	cases := []queryCase{
		{"SortDefaultDescNullsLast", people + "T | sort by Age | project Name", "Name", []string{"Dee", "Ann", "Cid", "bob"}},
		{"SortAscNullsFirst", people + "T | sort by Age asc | project Name", "Name", []string{"bob", "Cid", "Ann", "Dee"}},
		{"TopDefaultDesc", people + "T | top 2 by Age | project Name", "Name", []string{"Dee", "Ann"}},
		{"EqualsCaseSensitive", people + `T | where City == "oslo" | project Name`, "Name", []string{"Cid"}},
		{"TildeCaseInsensitive", people + `T | where City =~ "OSLO" | project Name`, "Name", []string{"Ann", "Cid"}},
		{"HasWholeTerm", people + `T | where City has "oslo" | project Name`, "Name", []string{"Ann", "Cid", "Dee"}},
		{"HasNotPartialTerm", people + `T | where City has "osl" | count`, "Count", []string{"0"}},
		{"ContainsSubstring", people + `T | where City contains "SL" | count`, "Count", []string{"3"}},
		{"SubstringZeroBased", `print s = substring("Kusto", 1, 3)`, "s", []string{"ust"}},
		{"DefaultNames", people + "T | summarize count(), sum(Age), avg(Age) by City | where City == 'Oslo'", "City,count_,sum_Age,avg_Age", []string{"Oslo|1|31|31"}},
		{"PrintNames", "print 1, x=2, strlen('ab')", "print_0,x,print_2", []string{"1|2|2"}},
		{"ColumnN", people + "T | where Name == 'Ann' | project Age + 1, Age * 2", "Column1,Column2", []string{"32|62"}},
		{"CountIgnoresNothing", people + "T | summarize count(Age), countif(Age > 30), dcount(City)", "count_Age,countif_,dcount_City", []string{"4|2|4"}},
		{"JoinInnerUniqueDedupsLeft", `datatable(k:long, a:string)[1,"x",1,"y",2,"z"] | join (datatable(k:long, b:string)[1,"p",1,"q"]) on k | project a, b | order by b asc`,
			"a,b", []string{"x|p", "x|q"}},
		{"JoinInnerKeepsAll", `datatable(k:long, a:string)[1,"x",1,"y"] | join kind=inner (datatable(k:long, b:string)[1,"p"]) on k | count`, "Count", []string{"2"}},
		{"JoinDuplicateNames", `datatable(k:long)[1] | join kind=inner (datatable(k:long)[1]) on k`, "k,k1", []string{"1|1"}},
		{"LeftAnti", `datatable(k:long)[1,2,3] | join kind=leftanti (datatable(k:long)[2]) on k | order by k asc`, "k", []string{"1", "3"}},
		{"LeftOuterStringsNotNull", `datatable(k:long)[1,2] | join kind=leftouter (datatable(k:long, s:string)[1,"a"]) on k | order by k asc | project s, isnull(s)`,
			"s,Column1", []string{"a|false", "|false"}},
		{"AgoPinnedNow", "print a = ago(1d)", "a", []string{"2024-03-14T12:00:00Z"}},
		{"BinDatetime", "print b = bin(datetime(2024-03-15 13:47), 1h)", "b", []string{"2024-03-15T13:00:00Z"}},
		{"TimespanText", "print t = datetime(2024-03-15 13:47:30.5) - datetime(2024-03-14)", "t", []string{"1.13:47:30.5000000"}},
		{"SafeToInt", `print a = toint("12"), b = toint("x"), c = todouble("2.5")`, "a,b,c", []string{"12|null|2.5"}},
		{"SplitAndIndex", `print p = split("a,b,c", ",")[1]`, "p", []string{`"b"`}},
		{"DynamicAccess", `print d = dynamic({"a":{"b":[10,20]}}) | project v = toint(d.a.b[1])`, "v", []string{"20"}},
		{"ArgMax", `datatable(g:string, v:long, w:string)[ "a",1,"x", "a",3,"y", "b",2,"z"] | summarize arg_max(v, w) by g | order by g asc`,
			"g,v,w", []string{"a|3|y", "b|2|z"}},
		{"MakeSetList", `datatable(g:string, v:long)["a",1,"a",1,"a",2] | summarize make_set(v), make_list(v)`, "set_v,list_v", []string{"[1,2]|[1,1,2]"}},
		{"Percentile", `range x from 1 to 100 step 1 | summarize percentile(x, 90)`, "percentile_x_90", []string{"90"}},
		{"RegexExtract", `print e = extract(@"(\d+)-(\d+)", 2, "ab 12-345")`, "e", []string{"345"}},
		{"MatchesRegex", `datatable(s:string)["a1","b"] | where s matches regex @"\d"`, "s", []string{"a1"}},
		{"InCaseInsensitive", `datatable(s:string)["A","b","c"] | where s in~ ("a","B") | count`, "Count", []string{"2"}},
		{"HasAny", `datatable(s:string)["error: disk full","all good"] | where s has_any ("disk", "cpu")`, "s", []string{"error: disk full"}},
		{"Between", `range x from 1 to 10 step 1 | where x between (3 .. 5) | count`, "Count", []string{"3"}},
		{"MvExpand", `print a = dynamic([1,2,3]) | mv-expand a to typeof(long) | summarize sum(a)`, "sum_a", []string{"6"}},
		// a random value is drawn once per row: every reference to it reads the same value,
		// and each row mv-expand makes of it keeps it
		// a null dynamic argument reaches functions as null, not as an empty string
		{"NullDynamicArgument", `datatable(v: dynamic)[dynamic(null), dynamic([1])] | project t = gettype(v), n = array_length(v)`, "t,n", []string{"null|null", "array|1"}},
		// union T* reads the views and tables whose names match; a plain let function is no table
		{"UnionWildcard", `let T_view = view () { print x=1 }; let T_notview = () { print x=2 }; let U_view = view () { print x=3 }; union T* | project x`, "x", []string{"1"}},
		{"RandOncePerRow", `range x from 1 to 200 step 1 | extend r = rand() | extend a = r, b = r * 1 | where a != b | count`, "Count", []string{"0"}},
		{"RandKeptByMvExpand", `range d from 1 to 50 step 1 | extend r = rand() + 1 | extend u = range(tolong(d * 10 * r), tolong(d * 10 * r + 5 * r), 1)
			| mv-expand u to typeof(long) | summarize dcount(r), lo = min(u), first = take_any(tolong(d * 10 * r)) by d | where dcount_r != 1 or lo != first | count`, "Count", []string{"0"}},
		{"Parse", `print s = "user=ann id=7" | parse s with "user=" user " id=" id:long | project user, id`, "user,id", []string{"ann|7"}},
		{"UnionOuter", `union (print a=1), (print b="x") | project a, b`, "a,b", []string{"1|", "null|x"}},
		{"IffCase", `range x from 1 to 3 step 1 | project c = case(x == 1, "one", x == 2, "two", "many"), i = iff(x > 1, x, -1)`,
			"c,i", []string{"one|-1", "two|2", "many|3"}},
		{"LetAndFunction", `let n = 3; let f = (a:long) { a * n }; print f(2)`, "print_0", []string{"6"}},
		{"Toscalar", `let m = toscalar(range x from 1 to 5 step 1 | summarize max(x)); print m`, "print_0", []string{"5"}},
		{"StartOfWeekSunday", `print w = startofweek(datetime(2024-03-15))`, "w", []string{"2024-03-10T00:00:00Z"}},
		{"DatetimeAddMonthClamp", `print d = datetime_add("month", 1, datetime(2024-01-31))`, "d", []string{"2024-02-29T00:00:00Z"}},
		{"StrcatTostring", `print s = strcat("n=", 5, ", t=", 1h)`, "s", []string{"n=5, t=01:00:00"}},
		{"UnicodeLower", `print l = tolower("ÄÖÜ"), eq = "straße" =~ "STRASSE", eq2 = "Ä" =~ "ä"`, "l,eq,eq2", []string{"äöü|false|true"}},
	}
	checkQueries(t, e, cases)
}

func TestSemantics_ColumnTypes(t *testing.T) {
	e := mustOpen(t, "")
	rs, err := e.Query(context.Background(), `print a=1, b=int(2), c=1.5, d=true, e=now(), f=1h, g=dynamic([1]), h=guid(74be27de-1e4e-49d9-b579-fe0b331d3642), i="s", j=decimal(1.5)`)
	if err != nil {
		t.Fatal(err)
	}
	want := "long int real bool datetime timespan dynamic guid string decimal"
	var got []string
	for _, c := range rs.Columns {
		got = append(got, c.Type)
	}
	if strings.Join(got, " ") != want {
		t.Errorf("types = %v, want %s", got, want)
	}
}

func TestSemantics_Errors(t *testing.T) {
	e := mustOpen(t, "")
	cases := []struct {
		name, query string
		code        qeval.Code
		msg         string
		line, col   int
	}{
		{"Syntax", "print x = \n  (1 +", qeval.CodeQuery, "", 2, 0},
		{"UnknownColumn", "print a=1\n| where b > 1", qeval.CodeQuery, `unknown name "b"`, 2, 9},
		{"UnknownTable", "Nope | count", qeval.CodeQuery, `unknown table "Nope"`, 1, 1},
		{"UnsupportedOperator", "print a=1 | evaluate autocluster()", qeval.CodeUnsupported, "unsupported: evaluate autocluster", 1, 13},
		{"UnsupportedFunction", "print cursor_current()", qeval.CodeUnsupported, "unsupported: cursor_current()", 1, 7},
		{"UnsupportedAtRunTime", `print geo_polygon_buffer(dynamic({"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]}), 10)`, qeval.CodeUnsupported, "unsupported: geo_polygon_buffer() of valid input", 0, 0},
		{"LookbackWithoutId", "let L = datatable(user:long)[1];\ndatatable(id:long, Day:datetime)[1, datetime(2020-01-02)] | evaluate new_activity_metrics(id, Day, datetime(2020-01-02), datetime(2020-01-03), 1d, L)",
			qeval.CodeQuery, "the Lookback table has no column id", 2, 148},
		{"SpheroidDistance", "print geo_distance_2points(1, 1, 2, 2, true)", qeval.CodeUnsupported, "unsupported: geo_distance_2points() on the spheroid", 0, 0},
		{"NoIPLocationData", "print geo_info_from_ip_address('20.53.203.50')", qeval.CodeUnsupported, "geo_info_from_ip_address(): needs IP geolocation data", 1, 7},
		{"HashManyUndefined", `print hash_many("Hello", "World")`, qeval.CodeUnsupported, "hash_many(): the reference does not say how", 1, 7},
		{"Sample", "range x from 1 to 3 step 1 | sample 1", qeval.CodeUnsupported, "unsupported: sample", 1, 30},
		{"AggregateOutsideSummarize", "print count()", qeval.CodeQuery, "aggregation function", 1, 7},
		{"StringPlus", `print "a" + "b"`, qeval.CodeQuery, "strcat", 1, 7},
		{"Empty", "  ", qeval.CodeQuery, "empty query", 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := e.Query(context.Background(), c.query)
			if qeval.ErrorCode(err) != c.code || !strings.Contains(qeval.ErrorMessage(err), c.msg) {
				t.Fatalf("error = %v (code %q), want %q containing %q", err, qeval.ErrorCode(err), c.code, c.msg)
			}
			qe := err.(*qeval.Error)
			if qe.Line != c.line || (c.col > 0 && qe.Col != c.col) {
				t.Errorf("position = %d:%d, want %d:%d", qe.Line, qe.Col, c.line, c.col)
			}
		})
	}
}

// A geometry operation over more edge pairs than it compares is refused at once as
// too large, not run for seconds inside one SQLite function call past the deadline.
func TestSemantics_GeometryTooLarge(t *testing.T) {
	e := mustOpen(t, "")
	circle := func(n int, dx float64) string {
		var b strings.Builder
		b.WriteString(`{"type":"Polygon","coordinates":[[`)
		for i := 0; i <= n; i++ {
			a := 2 * math.Pi * float64(i%n) / float64(n)
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "[%.6f,%.6f]", dx+10*math.Cos(a), 10*math.Sin(a))
		}
		b.WriteString("]]}")
		return b.String()
	}
	q := fmt.Sprintf("print geo_intersection_2polygons(dynamic(%s), dynamic(%s))", circle(3000, 0), circle(3000, 1))
	_, err := e.Query(context.Background(), q)
	if qeval.ErrorCode(err) != qeval.CodeTooLarge || !strings.Contains(qeval.ErrorMessage(err), "geo_intersection_2polygons") {
		t.Fatalf("error %v (code %q), want too_large naming the function", err, qeval.ErrorCode(err))
	}
	if rs, err := e.Query(context.Background(), fmt.Sprintf("print n = array_length(geo_intersection_2polygons(dynamic(%s), dynamic(%s)).coordinates[0])", circle(300, 0), circle(300, 1))); err != nil || rs.NumRows() != 1 {
		t.Errorf("smaller polygons: %v %v", rs, err)
	}
}
