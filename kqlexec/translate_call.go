package kqlexec

import (
	"strings"

	"github.com/qeval/qeval/kql"
)

// call translates a function call: user functions, the functions the translator
// writes as SQL, aggregates (inside summarize) and the Go run-time functions.
func (t *translator) call(c *kql.Call, sc *scope) (expr, error) {
	if id, ok := c.Func.(*kql.Ident); ok {
		if b := sc.env.lookup(id.Name); b != nil && b.fn != nil {
			if funcIsTabular(b.fn, b.fnEnv, t) {
				return t.scalarSubquery(c, sc)
			}
			return t.callScalarFunc(c, b, c.Args, sc)
		}
	} else {
		return expr{}, t.unsupported(c, "function "+kql.Format(c.Func))
	}
	if sc.graph != nil {
		if x, ok, err := t.graphCall(c, sc); ok {
			return x, err
		}
	}
	name := strings.ToLower(c.Name())
	scalarName := name
	if alias, ok := funcAliases[name]; ok {
		scalarName = alias
	}
	// hll_merge and tdigest_merge are aggregations of one column and scalar functions
	// of several digests
	_, isScalar := funcs()[scalarName]
	aggName := name
	if _, ok := aggregates[aggName]; !ok {
		aggName = scalarName
	}
	if _, ok := aggregates[aggName]; ok && (!isScalar || sc.agg != nil && len(c.Args) < 2) {
		if sc.agg == nil {
			return expr{}, t.errAt(c, "%s() is an aggregation function: use it in summarize", c.Name())
		}
		return t.aggregate(c, aggName, sc.agg.row)
	}
	name = scalarName
	if f, ok := lookupSpecial(name); ok {
		return f(t, c, sc)
	}
	def, ok := funcs()[name]
	if !ok {
		if r := unsupportedReason(name); r != "" {
			return expr{}, t.unsupported(c, name+"(): "+r)
		}
		if isUnsupported(name) {
			return expr{}, t.unsupported(c, name+"()")
		}
		return expr{}, t.unsupported(c, "function "+c.Name()+"()")
	}
	args, err := t.args(c, sc)
	if err != nil {
		return expr{}, err
	}
	if len(args) < def.min || (def.max >= 0 && len(args) > def.max) {
		return expr{}, t.errAt(c, "%s(): wrong number of arguments (%d)", c.Name(), len(args))
	}
	for i := range args {
		if ty := def.argType(i); ty != "" && args[i].t != ty {
			args[i] = coerce(args[i], ty)
		}
	}
	ret := def.ret
	if def.retf != nil {
		ret = def.retf(args)
	}
	return call(name, ret, args...), nil
}

// args translates the arguments of a call; typeof(T) arguments become a string literal
// with the type name.
func (t *translator) args(c *kql.Call, sc *scope) ([]expr, error) {
	out := make([]expr, 0, len(c.Args))
	for _, a := range c.Args {
		if to, ok := a.(*kql.TypeOf); ok {
			name := ""
			if to.Type != nil {
				name = to.Type.Name
			}
			ty, ok := ParseType(name)
			if !ok {
				return nil, t.errAt(a, "unknown type %q", name)
			}
			out = append(out, lit(string(ty), TString))
			continue
		}
		if n, ok := a.(*kql.NamedExpr); ok {
			a = n.Value
		}
		x, err := t.expr(a, sc)
		if err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, nil
}

// callScalarFunc expands a user function with a scalar body in place.
func (t *translator) callScalarFunc(at kql.Node, b *binding, args []kql.Expr, sc *scope) (expr, error) {
	inner, err := t.bindParams(at, b, args, sc)
	if err != nil {
		return expr{}, err
	}
	var last kql.Expr
	for _, s := range b.fn.Body.Stmts {
		switch s := s.(type) {
		case *kql.LetStmt:
			if err := t.let(s, inner); err != nil {
				return expr{}, err
			}
		case *kql.QueryStmt:
			last = s.Query
		}
	}
	if last == nil {
		return expr{}, t.errAt(at, "function has no result")
	}
	// The body sees the caller's row (Kusto functions may read the columns in scope).
	body := *sc
	body.env = inner
	x, err := t.expr(last, &body)
	if err != nil {
		return expr{}, err
	}
	if !x.isLit {
		x.sql = "(" + x.sql + ")"
	}
	return x, nil
}

// funcAliases are other names of the same function.
var funcAliases = map[string]string{
	"iif": "iff", "toboolean": "tobool", "todouble": "toreal", "totime": "totimespan",
	"toobject": "todynamic", "parsejson": "parse_json", "pack": "bag_pack",
	"makelist": "make_list", "makeset": "make_set", "any": "take_any", "anyif": "take_anyif",
	"argmax": "arg_max", "argmin": "arg_min", "floor": "bin", "tohex": "tohex",
	"array_strcat": "strcat_array", "pack_dictionary": "bag_pack", "make_dictionary": "make_bag",
	"replace": "replace_regex", "parse_ipv4": "parse_ipv4", "countof": "countof",
	"datepart": "datetime_part", "todate": "todatetime", "int": "toint", "long": "tolong",
	"real": "toreal", "double": "toreal", "bool": "tobool", "string": "tostring",
	"datetime": "todatetime", "timespan": "totimespan", "time": "totimespan", "guid": "toguid",
	"dynamic": "todynamic", "decimal": "todecimal", "count_distinct": "dcount",
	"count_distinctif": "dcountif", "getmonth": "monthofyear", "dcount_hll": "dcount_hll",
	// the obsolete names Kusto.Language's Functions.cs still accepts, each with the
	// function it names as its replacement (and extractjson, extract_json's other name)
	"arraylength": "array_length", "notnull": "isnotnull", "notempty": "isnotempty",
	"extractall": "extract_all", "extractjson": "extract_json", "parseurl": "parse_url",
	"parseurlquery": "parse_urlquery", "base64_encodestring": "base64_encode_tostring",
	"base64_decodestring": "base64_decode_tostring", "make_string": "unicode_codepoints_to_string",
	"to_utf8": "unicode_codepoints_from_string", "columnifexists": "column_ifexists",
}
