package kqlexec

import (
	"path"
	"strings"

	"github.com/qeval/qeval/kql"
)

// The names of unnamed columns follow Kusto.Language's result name kinds
// (Functions.cs, ResultNameKind): most functions give Column1, Column2...; the ones
// below name the column after their argument.

// firstArgNamed are the functions whose result column takes the name of their first
// argument (project tostring(x) gives a column x).
var firstArgNamed = map[string]bool{
	"tostring": true, "toint": true, "tolong": true, "toreal": true, "todouble": true,
	"todatetime": true, "totimespan": true, "totime": true, "tobool": true, "toboolean": true,
	"todynamic": true, "toobject": true, "todecimal": true, "toguid": true, "tohex": true,
	"parse_json": true, "parsejson": true, "parse_csv": true, "parse_xml": true, "split": true,
	"format_datetime": true, "format_timespan": true, "format_bytes": true,
	"bin": true, "bin_at": true, "bin_auto": true, "floor": true, "startofday": true,
	"binary_and": true, "binary_or": true, "binary_xor": true, "binary_not": true,
	"binary_shift_left": true, "binary_shift_right": true, "bitset_count_ones": true,
	"series_fir": true, "series_iir": true, "series_outliers": true, "series_fill_backward": true,
	"series_fill_forward": true, "series_fill_const": true, "series_fill_linear": true,
	"round": true, "ceiling": true, "pow": true, "sqrt": true, "log": true, "log2": true, "log10": true,
	"exp": true, "exp2": true, "exp10": true, "cos": true, "sin": true, "tan": true, "acos": true,
	"asin": true, "atan": true, "atan2": true, "abs": true, "rand": true, "gamma": true,
	"loggamma": true, "erf": true, "erfc": true,
}

// onlyArgNamed name the column after their argument when they have just one.
var onlyArgNamed = map[string]bool{"make_datetime": true, "make_timespan": true}

// prefixArgNamed name the column prefix_argument (strlen(s) gives strlen_s; an
// argument without a name leaves prefix_).
var prefixArgNamed = map[string]string{
	"strlen": "strlen", "string_size": "string_size", "percentile_tdigest": "percentile_tdigest",
	"dcount_hll": "dcount_hll", "gettype": "type", "treepath": "tree", "repeat": "repeat",
	"percentiles_array_tdigest": "percentile_tdigest",
}

// prefixNamed name the column with a fixed name.
var prefixNamed = map[string]string{
	"tdigest_merge": "tdigests_merge_result", "merge_tdigest": "tdigests_merge_result",
	"hll_merge": "hll_merged_result", "ingestion_time": "$IngestionTime",
}

// autoName returns the column name Kusto gives an unnamed expression, or "" when Kusto
// would number it (Column1, print_0).
func autoName(e kql.Expr) string {
	switch v := e.(type) {
	case *kql.Paren:
		return autoName(v.X)
	case *kql.Ident:
		return v.Name
	case *kql.Member:
		if r, ok := v.X.(*kql.Ident); ok && (r.Name == "$left" || r.Name == "$right") {
			return v.Name.Name
		}
		if left := autoName(v.X); left != "" {
			return left + "_" + v.Name.Name
		}
		return v.Name.Name
	case *kql.Index:
		l, ok := v.Index.(*kql.Literal)
		if !ok || (l.Kind != kql.LitString && l.Kind != kql.LitLong && l.Kind != kql.LitInt) {
			return ""
		}
		if left := autoName(v.X); left != "" {
			return left + "_" + l.Value
		}
		return l.Value
	case *kql.Call:
		name := v.Name()
		if _, isAgg := aggregates[strings.ToLower(name)]; isAgg && !firstArgNamed[name] {
			// an aggregate inside an expression (dcount_hll(hll_merge(h))) is named as
			// its own column would be: dcount_hll_hll_merge_h
			return aggName(v)
		}
		switch {
		case firstArgNamed[name] && len(v.Args) > 0, onlyArgNamed[name] && len(v.Args) == 1:
			return autoName(v.Args[0])
		case prefixArgNamed[name] != "" && len(v.Args) > 0:
			return prefixArgNamed[name] + "_" + autoName(v.Args[0])
		case prefixNamed[name] != "":
			return prefixNamed[name]
		}
	}
	return ""
}

func nameMatch(pattern, name string) bool {
	if !strings.ContainsRune(pattern, '*') {
		return pattern == name
	}
	ok, err := path.Match(pattern, name)
	return err == nil && ok
}
