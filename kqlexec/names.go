package kqlexec

import (
	"path"
	"strings"

	"github.com/qeval/qeval/kql"
)

// firstArgNamed are the functions whose result column takes the name of their first
// argument when no name is given (project tostring(x) gives a column x), as in Kusto.
var firstArgNamed = map[string]bool{
	"tostring": true, "toint": true, "tolong": true, "toreal": true, "todouble": true,
	"todatetime": true, "totimespan": true, "totime": true, "tobool": true, "toboolean": true,
	"todynamic": true, "toobject": true, "todecimal": true, "toguid": true,
	"parse_json": true, "parsejson": true,
	"bin": true, "bin_at": true, "bin_auto": true, "floor": true, "startofday": true, "startofweek": true,
	"startofmonth": true, "startofyear": true,
}

// funcArgNamed are the functions whose unnamed result column is function_arg.
var funcArgNamed = map[string]bool{"percentile_tdigest": true, "percentrank_tdigest": true, "rank_tdigest": true}

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
		if firstArgNamed[v.Name()] && len(v.Args) > 0 {
			return autoName(v.Args[0])
		}
		if funcArgNamed[v.Name()] && len(v.Args) > 0 {
			if a := autoName(v.Args[0]); a != "" {
				return v.Name() + "_" + a
			}
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
