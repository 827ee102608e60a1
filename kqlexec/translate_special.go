package kqlexec

import (
	"strings"

	"github.com/qeval/qeval/kql"
)

type specialFunc func(t *translator, c *kql.Call, sc *scope) (expr, error)

// specialFunc returns the translation of a function that becomes SQL directly or needs
// the translator's knowledge (types, the pinned now, the row scope). It is a switch, not
// a map, because these translators call back into the translator that looks them up.
func lookupSpecial(name string) (specialFunc, bool) {
	switch name {
	case "iff":
		return spIff, true
	case "case":
		return spCase, true
	case "coalesce":
		return spCoalesce, true
	case "isnull":
		return spNullTest(false, false), true
	case "isnotnull":
		return spNullTest(true, false), true
	case "isempty":
		return spNullTest(false, true), true
	case "isnotempty":
		return spNullTest(true, true), true
	case "not":
		return spNot, true
	case "now":
		return spNow, true
	case "rand":
		return spRand, true
	case "ago":
		return spAgo, true
	case "strcat":
		return spStrcat, true
	case "toscalar":
		return spToscalar, true
	case "node_degree_in":
		return spNodeDegree(true), true
	case "node_degree_out":
		return spNodeDegree(false), true
	case "node_id":
		return spNodeID, true
	case "labels":
		return spLabels, true
	case "tostring":
		return spConvert(TString), true
	case "toint":
		return spConvert(TInt), true
	case "tolong":
		return spConvert(TLong), true
	case "toreal":
		return spConvert(TReal), true
	case "todecimal":
		return spConvert(TDecimal), true
	case "tobool":
		return spConvert(TBool), true
	case "todatetime":
		return spConvert(TDatetime), true
	case "totimespan":
		return spConvert(TTimespan), true
	case "toguid":
		return spConvert(TGuid), true
	case "todynamic":
		return spParseJSON, true
	case "parse_json":
		return spParseJSON, true
	case "pack_all":
		return spPackAll, true
	case "column_ifexists":
		return spColumnIfExists, true
	case "row_number":
		return spRowNumber, true
	case "prev":
		return spPrevNext("lag"), true
	case "next":
		return spPrevNext("lead"), true
	case "row_cumsum":
		return spRowCumsum, true
	case "row_rank_min":
		return spRowRankMin, true
	case "row_rank_dense":
		return spRowRankDense, true
	case "bin_auto":
		return spBinAuto, true
	case "max_of":
		return spExtremeOf("max_of"), true
	case "min_of":
		return spExtremeOf("min_of"), true
	case "estimate_data_size":
		return spEstimateSize, true
	case "column_names_of":
		return spColumnNamesOf, true
	case "bag_pack_columns":
		return spBagPackColumns, true
	case "tohex":
		return spToHex, true
	case "gettype":
		return spGetType, true
	case "current_database":
		return standIn(StandInDatabase), true
	case "current_principal":
		return standIn(StandInPrincipal), true
	case "current_cluster_endpoint":
		return standIn(StandInClusterEndpoint), true
	case "ingestion_time":
		return spIngestionTime, true
	}
	return nil, false
}

func (t *translator) argN(c *kql.Call, sc *scope, min, max int) ([]expr, error) {
	if len(c.Args) < min || (max >= 0 && len(c.Args) > max) {
		return nil, t.errAt(c, "%s(): wrong number of arguments (%d)", c.Name(), len(c.Args))
	}
	return t.args(c, sc)
}

// common returns the type two branches share.
func common(a, b expr) Type {
	switch {
	case a.t == b.t:
		return a.t
	case a.sql == "NULL":
		return b.t
	case b.sql == "NULL":
		return a.t
	case a.t.numeric() && b.t.numeric():
		return promote(a.t, b.t)
	}
	return a.t
}

func spIff(t *translator, c *kql.Call, sc *scope) (expr, error) {
	a, err := t.argN(c, sc, 3, 3)
	if err != nil {
		return expr{}, err
	}
	ty := common(a[1], a[2])
	return expr{sql: "(CASE WHEN " + coerce(a[0], TBool).sql + " THEN " + coerce(a[1], ty).sql + " ELSE " + coerce(a[2], ty).sql + " END)", t: ty}, nil
}

func spCase(t *translator, c *kql.Call, sc *scope) (expr, error) {
	a, err := t.argN(c, sc, 3, -1)
	if err != nil {
		return expr{}, err
	}
	if len(a)%2 == 0 {
		return expr{}, t.errAt(c, "case() takes predicate, value pairs and an else value")
	}
	ty := a[len(a)-1].t
	for i := 1; i < len(a); i += 2 {
		if a[i].sql != "NULL" {
			ty = common(a[i], expr{sql: "x", t: ty})
			if a[len(a)-1].sql == "NULL" || i == 1 {
				ty = a[i].t
			}
			break
		}
	}
	var b strings.Builder
	b.WriteString("(CASE")
	for i := 0; i+1 < len(a); i += 2 {
		b.WriteString(" WHEN " + coerce(a[i], TBool).sql + " THEN " + coerce(a[i+1], ty).sql)
	}
	b.WriteString(" ELSE " + coerce(a[len(a)-1], ty).sql + " END)")
	return expr{sql: b.String(), t: ty}, nil
}

func spCoalesce(t *translator, c *kql.Call, sc *scope) (expr, error) {
	a, err := t.argN(c, sc, 1, -1)
	if err != nil {
		return expr{}, err
	}
	ty := a[0].t
	for _, x := range a {
		if x.sql != "NULL" {
			ty = x.t
			break
		}
	}
	parts := make([]string, len(a))
	for i, x := range a {
		x = coerce(x, ty)
		if ty == TString {
			parts[i] = "nullif(" + x.sql + ", '')"
		} else {
			parts[i] = x.sql
		}
	}
	if ty == TString {
		parts = append(parts, "''")
	}
	if len(parts) == 1 {
		return expr{sql: parts[0], t: ty}, nil
	}
	return expr{sql: "coalesce(" + strings.Join(parts, ", ") + ")", t: ty}, nil
}

func spNullTest(not, empty bool) specialFunc {
	return func(t *translator, c *kql.Call, sc *scope) (expr, error) {
		a, err := t.argN(c, sc, 1, 1)
		if err != nil {
			return expr{}, err
		}
		x := a[0]
		var s string
		switch {
		case x.t == TString && !empty:
			s = "0"
		case x.t == TString || (empty && x.t == TGuid):
			s = "coalesce(" + x.sql + ", '') = ''"
		case x.t == TDynamic && empty:
			s = "coalesce(" + x.sql + ", '\"\"') IN ('\"\"', 'null')"
		case x.t == TDynamic:
			s = "coalesce(" + x.sql + ", 'null') = 'null'"
		default:
			s = x.sql + " IS NULL"
		}
		if not {
			s = "NOT (" + s + ")"
		}
		return expr{sql: "(" + s + ")", t: TBool}, nil
	}
}

func spNot(t *translator, c *kql.Call, sc *scope) (expr, error) {
	a, err := t.argN(c, sc, 1, 1)
	if err != nil {
		return expr{}, err
	}
	return expr{sql: "(NOT " + coerce(a[0], TBool).sql + ")", t: TBool}, nil
}

// The local engine has no cluster, database or caller: the functions that name them
// answer fixed stand-ins, as now() answers the pinned time. The database is the one
// the Kusto emulator serves (NetDefaultDB); the principal has the documented form
// PrincipalType=PrincipalId;TenantId with zero ids.
const (
	StandInDatabase        = "NetDefaultDB"
	StandInPrincipal       = "aaduser=00000000-0000-0000-0000-000000000000;00000000-0000-0000-0000-000000000000"
	StandInClusterEndpoint = "localhost"
)

// standIn translates a function without arguments that answers a fixed string.
func standIn(v string) specialFunc {
	return func(t *translator, c *kql.Call, sc *scope) (expr, error) {
		if len(c.Args) != 0 {
			return expr{}, t.errAt(c, "%s() takes no arguments", c.Name())
		}
		return lit(v, TString), nil
	}
}

// spIngestionTime is ingestion_time(): null, as its page says of records ingested
// without an IngestionTime policy, which local tables never had.
func spIngestionTime(t *translator, c *kql.Call, sc *scope) (expr, error) {
	if len(c.Args) != 0 {
		return expr{}, t.errAt(c, "ingestion_time() takes no arguments")
	}
	return expr{sql: "NULL", t: TDatetime}, nil
}

// uniformSQL draws a real in [0, 1) from 53 bits of SQLite's random().
const uniformSQL = "((random() & 9007199254740991) / 9007199254740992.0)"

// spRand is rand() and rand(N) (the rand page): a real in [0, 1), or a real chosen
// from {0.0, 1.0, ..., N-1} (null for N below 1). The draw is SQLite's random(),
// natively: a Go call per row made rand the slowest part of queries that generate
// data. A stage that draws is computed once (see stage).
func spRand(t *translator, c *kql.Call, sc *scope) (expr, error) {
	a, err := t.argN(c, sc, 0, 1)
	if err != nil {
		return expr{}, err
	}
	if len(a) == 0 {
		return expr{sql: uniformSQL, t: TReal}, nil
	}
	n := coerce(a[0], TLong)
	if n.isLit {
		if v, ok := n.lit.(int64); !ok || v < 1 {
			return lit(nil, TReal), nil
		}
		return expr{sql: "(CAST(" + uniformSQL + " * " + n.sql + " AS INTEGER) + 0.0)", t: TReal}, nil
	}
	return expr{sql: "(CASE WHEN " + n.sql + " >= 1 THEN CAST(" + uniformSQL + " * " + n.sql + " AS INTEGER) + 0.0 END)", t: TReal}, nil
}

func spNow(t *translator, c *kql.Call, sc *scope) (expr, error) {
	a, err := t.argN(c, sc, 0, 1)
	if err != nil {
		return expr{}, err
	}
	now := lit(t.now, TDatetime)
	if len(a) == 1 {
		return expr{sql: "(" + now.sql + " + " + coerce(a[0], TTimespan).sql + ")", t: TDatetime}, nil
	}
	return now, nil
}

func spAgo(t *translator, c *kql.Call, sc *scope) (expr, error) {
	a, err := t.argN(c, sc, 1, 1)
	if err != nil {
		return expr{}, err
	}
	return expr{sql: "(" + lit(t.now, TDatetime).sql + " - " + coerce(a[0], TTimespan).sql + ")", t: TDatetime}, nil
}

func spStrcat(t *translator, c *kql.Call, sc *scope) (expr, error) {
	a, err := t.argN(c, sc, 1, -1)
	if err != nil {
		return expr{}, err
	}
	parts := make([]string, len(a))
	for i, x := range a {
		x = coerce(x, TString)
		if x.isLit {
			parts[i] = x.sql
		} else {
			parts[i] = "coalesce(" + x.sql + ", '')"
		}
	}
	return expr{sql: "(" + strings.Join(parts, " || ") + ")", t: TString}, nil
}

func spToscalar(t *translator, c *kql.Call, sc *scope) (expr, error) {
	if len(c.Args) != 1 {
		return expr{}, t.errAt(c, "toscalar() takes one argument")
	}
	if isTabular(c.Args[0], sc.env, t) {
		return t.scalarSubquery(c.Args[0], sc)
	}
	// a scalar is computed once for the query (toscalar(new_guid()) is one value),
	// so it cannot read the row
	t.tabDepth++
	x, err := t.expr(c.Args[0], &scope{env: sc.env})
	t.tabDepth--
	if err != nil || x.isLit {
		return x, err
	}
	key := onceKey{c, x.sql}
	if v, ok := t.once[key]; ok {
		return v, nil
	}
	r := t.stage([]column{{"toscalar", x.t}}, "SELECT "+x.sql+", 0")
	t.materialize(r)
	v := expr{sql: "(SELECT c0 FROM " + r.from + ")", t: x.t}
	if t.once == nil {
		t.once = map[onceKey]expr{}
	}
	t.once[key] = v
	return v, nil
}

func spConvert(to Type) specialFunc {
	return func(t *translator, c *kql.Call, sc *scope) (expr, error) {
		a, err := t.argN(c, sc, 1, 2)
		if err != nil {
			return expr{}, err
		}
		x := a[0]
		if x.t == to && to != TString {
			return x, nil
		}
		if to == TString && len(a) == 2 {
			return expr{}, t.unsupported(c, "tostring() with a format")
		}
		if to == TString && x.t == TString {
			return x, nil
		}
		if to == TString && x.t == TDynamic {
			// the stored JSON text as it is (its keys in their order), read as a string
			return call("_dyntext", TString, expr{sql: x.sql, t: TString}), nil
		}
		return call("_cvt", to, x), nil
	}
}

func spParseJSON(t *translator, c *kql.Call, sc *scope) (expr, error) {
	a, err := t.argN(c, sc, 1, 1)
	if err != nil {
		return expr{}, err
	}
	if a[0].t == TDynamic {
		return a[0], nil
	}
	return call("parse_json", TDynamic, a[0]), nil
}

func spPackAll(t *translator, c *kql.Call, sc *scope) (expr, error) {
	a, err := t.argN(c, sc, 0, 1)
	if err != nil {
		return expr{}, err
	}
	skip := lit(false, TBool)
	if len(a) == 1 {
		skip = coerce(a[0], TBool)
	}
	args := []expr{skip}
	for i, col := range sc.cols {
		if x, ok := sc.vars[col.Name]; ok {
			args = append(args, lit(col.Name, TString), x)
			continue
		}
		args = append(args, lit(col.Name, TString), expr{sql: sc.ref(i), t: col.Type})
	}
	return call("pack_all", TDynamic, args...), nil
}

func spColumnIfExists(t *translator, c *kql.Call, sc *scope) (expr, error) {
	if len(c.Args) != 2 {
		return expr{}, t.errAt(c, "column_ifexists() takes a column name and a default")
	}
	l, ok := c.Args[0].(*kql.Literal)
	if !ok || l.Kind != kql.LitString {
		return expr{}, t.errAt(c, "column_ifexists() needs a constant column name")
	}
	if x, ok := sc.column(l.Value); ok {
		return x, nil
	}
	return t.expr(c.Args[1], sc)
}

func spPrevNext(fn string) specialFunc {
	return func(t *translator, c *kql.Call, sc *scope) (expr, error) {
		a, err := t.argN(c, sc, 1, 3)
		if err != nil {
			return expr{}, err
		}
		if sc.rowOrder == "" {
			return expr{}, t.errAt(c, "%s() needs a serialized row set", c.Name())
		}
		off := "1"
		if len(a) > 1 {
			off = coerce(a[1], TLong).sql
		}
		def := "NULL"
		if len(a) > 2 {
			def = coerce(a[2], a[0].t).sql
		}
		return expr{sql: fn + "(" + a[0].sql + ", " + off + ", " + def + ") OVER (ORDER BY " + sc.rowOrder + ")", t: a[0].t}, nil
	}
}

func spExtremeOf(name string) specialFunc {
	return func(t *translator, c *kql.Call, sc *scope) (expr, error) {
		a, err := t.argN(c, sc, 1, -1)
		if err != nil {
			return expr{}, err
		}
		ty := a[0].t
		for _, x := range a[1:] {
			ty = common(expr{t: ty, sql: "x"}, x)
		}
		for i := range a {
			a[i] = coerce(a[i], ty)
		}
		return call(name, ty, a...), nil
	}
}

func spEstimateSize(t *translator, c *kql.Call, sc *scope) (expr, error) {
	var args []expr
	for _, a := range c.Args {
		if _, ok := a.(*kql.Star); ok {
			for i, col := range sc.cols {
				args = append(args, expr{sql: sc.ref(i), t: col.Type})
			}
			continue
		}
		x, err := t.expr(a, sc)
		if err != nil {
			return expr{}, err
		}
		args = append(args, x)
	}
	return call("estimate_data_size", TLong, args...), nil
}

func spColumnNamesOf(t *translator, c *kql.Call, sc *scope) (expr, error) {
	if len(c.Args) != 1 {
		return expr{}, t.errAt(c, "column_names_of() takes a table")
	}
	r, err := t.tabular(c.Args[0], sc.env)
	if err != nil {
		return expr{}, err
	}
	names := make([]any, len(r.cols))
	for i, col := range r.cols {
		names[i] = col.Name
	}
	return lit(Dyn{names}, TDynamic), nil
}

func spBagPackColumns(t *translator, c *kql.Call, sc *scope) (expr, error) {
	var args []expr
	for _, a := range c.Args {
		id, ok := a.(*kql.Ident)
		if !ok {
			return expr{}, t.errAt(a, "bag_pack_columns() takes column names")
		}
		x, err := t.ident(id, sc)
		if err != nil {
			return expr{}, err
		}
		args = append(args, lit(id.Name, TString), x)
	}
	return call("bag_pack", TDynamic, args...), nil
}

// spBinAuto is bin_auto(x): bin_at(x, size, at) with the query's set statements
// query_bin_auto_size and query_bin_auto_at (bin(x, size) without it).
func spBinAuto(t *translator, c *kql.Call, sc *scope) (expr, error) {
	if len(c.Args) != 1 {
		return expr{}, t.errAt(c, "bin_auto() takes one argument")
	}
	size := t.props["query_bin_auto_size"]
	if size == nil {
		return expr{}, t.errAt(c, "bin_auto() needs the bin size: set query_bin_auto_size=1h; before the query")
	}
	at := t.props["query_bin_auto_at"]
	if at == nil {
		return t.expr(&kql.Call{Span: c.Span, Func: &kql.Ident{Span: c.Span, Name: "bin"}, Args: []kql.Expr{c.Args[0], size}}, sc)
	}
	return t.expr(&kql.Call{Span: c.Span, Func: &kql.Ident{Span: c.Span, Name: "bin_at"}, Args: []kql.Expr{c.Args[0], size, at}}, sc)
}

// spToHex writes an int (32 bits) as its own two's complement, a long as 64 bits:
// tohex(toint(-256)) is ffffff00, tohex(-256) ffffffffffffff00.
func spToHex(t *translator, c *kql.Call, sc *scope) (expr, error) {
	a, err := t.argN(c, sc, 1, 2)
	if err != nil {
		return expr{}, err
	}
	name := "tohex"
	if a[0].t == TInt {
		name = "op:tohex32"
	}
	args := []expr{coerce(a[0], TLong)}
	if len(a) > 1 {
		args = append(args, coerce(a[1], TLong))
	}
	return call(name, TString, args...), nil
}

// spGetType is gettype(): the run-time type of the value, which the Go function reads
// from the decoded value; an int and a decimal decode as a long and a real, so their
// names come from the argument's type (a null stays "null").
func spGetType(t *translator, c *kql.Call, sc *scope) (expr, error) {
	a, err := t.argN(c, sc, 1, 1)
	if err != nil {
		return expr{}, err
	}
	x := call("gettype", TString, a[0])
	if name, ok := map[Type]string{TInt: "int", TDecimal: "decimal"}[a[0].t]; ok {
		x.sql = "CASE WHEN " + a[0].sql + " IS NULL THEN " + x.sql + " ELSE " + quote(name) + " END"
	}
	return x, nil
}
