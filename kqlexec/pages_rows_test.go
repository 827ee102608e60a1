package kqlexec_test

import (
	"context"
	"strings"
	"testing"

	"github.com/qeval/qeval"
)

// TestPages_Rows checks rows of the KQL reference pages' definitions
// (MicrosoftDocs/dataexplorer-docs, data-explorer/kusto/query/<page>.md) on inputs of
// our own, with edge cases (nulls, empty arrays, boundaries) worked out from the text.
func TestPages_Rows(t *testing.T) {
	e := mustOpen(t, "")
	checkQueries(t, e, []queryCase{
		// bag-zip.md: missing values are null, extra values ignored, a key that is not a
		// string is skipped (its value with it), values that are not an array give null
		// values, keys that are not an array give a null bag
		{"bag_zip", `print a = bag_zip(dynamic(['a', 8, 'b']), dynamic([1, '2', 2.5])), b = bag_zip(dynamic(['a', 'b']), dynamic(1)),
			c = isnull(bag_zip(dynamic('a'), dynamic([1]))), d = bag_zip(dynamic(['a', 'b', 'c']), dynamic([1])), e = bag_zip(dynamic([]), dynamic([1]))`,
			"a,b,c,d,e", []string{`{"a":1,"b":2.5}|{"a":null,"b":null}|true|{"a":1,"b":null,"c":null}|{}`}},
		// datetime-local-to-utc-function.md: a local time the clock skips at a DST move
		// reads with the offset after it (the page's Brussels example); one it shows
		// twice reads as standard time, in Europe and in the US alike
		{"local_to_utc_dst", `print gap = datetime_local_to_utc(datetime(2022-03-27 02:30:00.25), 'Europe/Brussels'),
			fold_eu = datetime_local_to_utc(datetime(2022-10-30 02:30), 'Europe/Brussels'), fold_us = datetime_local_to_utc(datetime(2022-11-06 01:30), 'US/Pacific'),
			gap_us = datetime_local_to_utc(datetime(2022-03-13 02:30), 'US/Pacific'), back = datetime_utc_to_local(datetime(2022-11-06 09:30), 'US/Pacific')`,
			"gap,fold_eu,fold_us,gap_us,back", []string{"2022-03-27T00:30:00.25Z|2022-10-30T01:30:00Z|2022-11-06T09:30:00Z|2022-03-13T09:30:00Z|2022-11-06T01:30:00Z"}},
		// datetime-utc-to-local-function.md: the zone is one of the timezone page's list;
		// another name ("Local", "") gives null, not the machine's zone or UTC
		{"utc_to_local_zones", `print a = datetime_utc_to_local(datetime(2022-07-11 22:18:48.4678620), 'Australia/Canberra'),
			b = isnull(datetime_utc_to_local(datetime(2022-07-11), 'Local')), c = isnull(datetime_utc_to_local(datetime(2022-07-11), '')),
			d = datetime_utc_to_local(datetime(1960-01-01 00:00:00.5), 'Asia/Kolkata')`,
			"a,b,c,d", []string{"2022-07-12T08:18:48.467862Z|true|true|1960-01-01T05:30:00.5Z"}},
		// isnan-function.md, isinf-function.md, isfinite-function.md: NaN is a value,
		// not null, and real arithmetic follows IEEE 754 (as .NET computes): a NaN
		// column spreads through +, -, * and unary minus, equals nothing (itself
		// included) and orders with nothing; a sum or average over a NaN is NaN, and
		// so is the average of infinities of both signs
		{"nan_arithmetic", `datatable(x:real)[real(nan), 1.0, real(null)]
			| extend a = -x, b = x + 1, c = -(x + 1), eq = x == x, ne = x != x, gt = x > 0, f = real(nan) + 1
			| extend n = isnan(a), nn = isnull(a)`,
			"x,a,b,c,eq,ne,gt,f,n,nn", []string{
				"NaN|NaN|NaN|NaN|false|true|false|NaN|true|false",
				"1|-1|2|-2|true|false|true|NaN|false|false",
				"null|null|null|null|null|null|null|NaN|false|true"}},
		{"nan_sum_avg", `datatable(g:string, x:real)["a", 1.0, "a", real(nan), "a", real(null), "c", 2.0, "c", real(null), "d", real(null)]
			| summarize s = sum(x), m = avg(x), si = sumif(x, x != 1.0) by g | order by g asc`,
			"g,s,m,si", []string{"a|NaN|NaN|NaN", "c|2|2|2", "d|0|NaN|0"}},
		{"avg_infinities", `datatable(x:real)[real(+inf), real(-inf)] | summarize m = avg(x)`, "m", []string{"NaN"}},
		// percentile-tdigest-function.md (its second example: digests of a number and of a
		// datetime column in one column): a digest of datetimes or timespans answers
		// percentiles of their own type, dynamic without a type literal; rank_tdigest and
		// percentrank_tdigest order them alike (were null and 0)
		{"tdigest_datetimes", `datatable(t:datetime, s:timespan)[datetime(2020-01-01), 1h, datetime(2020-01-05), 2h, datetime(2020-01-03), 3h]
			| summarize d = tdigest(t), e = tdigest(s)
			| project p = percentile_tdigest(d, 100, typeof(datetime)), q = percentile_tdigest(e, 50, typeof(timespan)), dyn = todatetime(percentile_tdigest(d, 50)),
				r = rank_tdigest(d, datetime(2020-01-03)), pr = percentrank_tdigest(e, 2h)`,
			"p,q,dyn,r,pr", []string{"2020-01-05T00:00:00Z|02:00:00|2020-01-03T00:00:00Z|2|66.66666666666667"}},
		{"tdigest_mixed_types", `datatable(a:long, g:string)[1, "x", 5, "x"] | summarize d = tdigest(a) by g
			| union (datatable(t:datetime, g:string)[datetime(2020-01-01), "y", datetime(2020-01-05), "y"] | summarize d = tdigest(t) by g)
			| project g, p = tostring(percentile_tdigest(d, 100)) | order by g asc`,
			"g,p", []string{"x|5", "y|2020-01-05T00:00:00.0000000Z"}},
		// union-operator.md: isfuzzy=true leaves out the legs whose table does not
		// resolve, named or inside a subquery
		{"union_isfuzzy", `let A = datatable(x:long)[1, 2]; union isfuzzy=true withsource=S A, NoSuch, (NoSuch2 | where x > 0), (A | where x > 1) | order by x asc`,
			"S,x", []string{"A|1", "A|2", "A|2"}},
	})
}

// TestPages_UnionFuzzyErrors checks union-operator.md's limits of isfuzzy=true: when
// no table resolves the query fails, and a leg's failure past resolution (an unknown
// column) is not suppressed.
func TestPages_UnionFuzzyErrors(t *testing.T) {
	e := mustOpen(t, "")
	for q, want := range map[string]string{
		`union isfuzzy=true NoSuch1, (NoSuch2 | where x > 0)`:                        "none of its tables could be resolved",
		`let A = datatable(x:long)[1]; union isfuzzy=true A, (A | where nosuch > 0)`: "nosuch",
	} {
		_, err := e.Query(context.Background(), q)
		if err == nil || !strings.Contains(qeval.ErrorMessage(err), want) || qeval.ErrorCode(err) != qeval.CodeQuery {
			t.Errorf("%s: error %v, want a query error naming %q", q, err, want)
		}
	}
}
