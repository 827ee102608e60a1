package kqlexec

import (
	"regexp"
	"strings"

	"github.com/qeval/qeval/kql"
)

// search translates T | search Pred and search in (T1, T2) Pred into where (over a
// union withsource=$table for the in form): a string term in the predicate is a term
// match on every column (billg: has, billg*: hasprefix, *billg: hassuffix, *billg*:
// contains, bi*lg: a regex), Col:"term" the same on one column, * every row, and the
// rest of the predicate is KQL as written. kind=case_sensitive makes the terms case
// sensitive. A search with no input and no in searches every table of the database
// and every view (let V = view () {…}) the query declares.
func (t *translator) search(in *rel, o *kql.SearchOp, e *env) (*rel, error) {
	cs := false
	if k, ok := o.Param("kind").(*kql.Ident); ok {
		switch strings.ToLower(k.Name) {
		case "case_sensitive":
			cs = true
		case "case_insensitive", "default":
		default:
			return nil, t.errAt(k, "search kind is case_sensitive, case_insensitive or default, not %q", k.Name)
		}
	}
	if in == nil {
		tables := o.Tables
		if len(tables) == 0 {
			// every table of the database and every view the query declares
			if tables = t.wildcardTables(&kql.Ident{Span: o.Span, Name: "*"}, e); len(tables) == 0 {
				return nil, t.errAt(o, "search: there is no table or view to search")
			}
		}
		var err error
		if in, err = t.union(nil, &kql.UnionOp{OpBase: kql.OpBase{Span: o.Span, Name: "union",
			Params: []*kql.OpParam{{Span: o.Span, Name: "withsource", Value: &kql.Ident{Span: o.Span, Name: "$table"}}}},
			Tables: tables}, e); err != nil {
			return nil, err
		}
	} else if len(o.Tables) > 0 {
		return nil, t.errAt(o, "search takes its input from the pipe or from in (…), not both")
	}
	pred := searchPred(o.Pred, cs)
	return t.where(in, &kql.WhereOp{OpBase: kql.OpBase{Span: o.Span, Name: "where"}, Pred: pred}, e)
}

// searchPred rewrites a search predicate's terms as KQL.
func searchPred(x kql.Expr, cs bool) kql.Expr {
	switch v := x.(type) {
	case *kql.Paren:
		return &kql.Paren{Span: v.Span, X: searchPred(v.X, cs)}
	case *kql.Star:
		return &kql.Literal{Span: v.Span, Kind: kql.LitBool, Value: "true"}
	case *kql.Literal:
		if v.Kind == kql.LitString {
			return searchTerm(&kql.Star{Span: v.Span}, v, cs)
		}
	case *kql.Unary:
		if strings.EqualFold(v.Op, "not") {
			return &kql.Unary{Span: v.Span, Op: v.Op, X: searchPred(v.X, cs)}
		}
	case *kql.Call:
		if strings.EqualFold(v.Name(), "not") && len(v.Args) == 1 {
			return &kql.Call{Span: v.Span, Func: v.Func, Args: []kql.Expr{searchPred(v.Args[0], cs)}}
		}
	case *kql.Binary:
		switch strings.ToLower(v.Op) {
		case "and", "or":
			return &kql.Binary{Span: v.Span, Op: v.Op, Left: searchPred(v.Left, cs), Right: searchPred(v.Right, cs)}
		case ":":
			if l, ok := v.Right.(*kql.Literal); ok && l.Kind == kql.LitString {
				return searchTerm(v.Left, l, cs)
			}
		}
	}
	return x
}

// searchTerm is the match of one search term on a column (or * for every column).
func searchTerm(col kql.Expr, term *kql.Literal, cs bool) kql.Expr {
	s := term.Value
	op := "has"
	lead, trail := strings.HasPrefix(s, "*"), strings.HasSuffix(s, "*") && len(s) > 1
	core := strings.TrimSuffix(strings.TrimPrefix(s, "*"), "*")
	switch {
	case strings.Contains(core, "*"):
		re := `\b` + strings.ReplaceAll(regexp.QuoteMeta(core), `\*`, ".*") + `\b`
		if !cs {
			re = "(?i)" + re
		}
		return &kql.Binary{Span: term.Span, Op: "matches regex", Left: col, Right: &kql.Literal{Span: term.Span, Kind: kql.LitString, Value: re}}
	case lead && trail:
		op = "contains"
	case lead:
		op = "hassuffix"
	case trail:
		op = "hasprefix"
	}
	if cs {
		op += "_cs"
	}
	return &kql.Binary{Span: term.Span, Op: op, Left: col, Right: &kql.Literal{Span: term.Span, Kind: kql.LitString, Value: core}}
}
