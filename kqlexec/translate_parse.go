package kqlexec

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/qeval/qeval/kql"
)

// parse translates parse and parse-where (the reference's parse-operator and
// parse-where-operator pages). The pattern becomes one regular expression with a named
// group per extracted column; at run time parse_col matches it, converts every typed
// column and returns the asked one:
//
//   - kind=simple (the default) is strict: the delimiters are plain text matched in
//     order from the start of the string, a typed column must look like its type, and
//     when any column fails to convert, every column of the row is null.
//   - kind=relaxed matches the same delimiters, but a typed column followed by a
//     delimiter takes the text up to it, and only that column is null when it does not
//     convert.
//   - kind=regex takes the delimiters as RE2 expressions; * and string columns are
//     greedy (.*) unless flags has U, which makes them lazy; long/int columns match
//     -?digits; flags (i, m, s, U) apply to the whole expression. The match is strict,
//     as in simple.
//
// parse-where keeps only the rows whose string matched and whose columns all
// converted.
func (t *translator) parse(in *rel, o *kql.ParseOp, e *env) (*rel, error) {
	sc := inScope(in, e)
	src, err := t.expr(o.X, sc)
	if err != nil {
		return nil, err
	}
	src = coerce(src, TString)
	kind := "simple"
	if k, ok := o.Param("kind").(*kql.Ident); ok {
		kind = strings.ToLower(k.Name)
	}
	switch kind {
	case "simple", "regex", "relaxed":
	default:
		return nil, t.errAt(o, "parse: unknown kind %q (known: regex, relaxed, simple)", kind)
	}
	if kind == "relaxed" && o.Name == "parse-where" {
		return nil, t.errAt(o, "parse-where: kind=relaxed is not supported (known: regex, simple)")
	}
	flags := ""
	if f := o.Param("flags"); f != nil {
		switch v := f.(type) {
		case *kql.Ident:
			flags = v.Name
		case *kql.Literal:
			flags = v.Value
		}
		if kind != "regex" {
			return nil, t.errAt(o, "%s: flags apply only to kind=regex", o.Name)
		}
		for _, r := range flags {
			if !strings.ContainsRune("imsU", r) {
				return nil, t.errAt(o, "%s: unknown regex flag %q (known: i, m, s, U)", o.Name, r)
			}
		}
	}
	var re strings.Builder
	if kind == "regex" {
		if flags != "" {
			re.WriteString("(?" + flags + ")")
		}
	} else {
		re.WriteString("(?s)^")
	}
	var outCols []column
	var codes []byte
	for i, p := range o.Pattern {
		last := i == len(o.Pattern)-1
		_, nextLit := lit0(o.Pattern, i+1)
		switch v := p.(type) {
		case *kql.Literal:
			if kind == "regex" {
				if _, err := regexp.Compile(v.Value); err != nil {
					return nil, t.errAt(v, "%s: bad regular expression %q: %v", o.Name, v.Value, err)
				}
				re.WriteString("(?:" + v.Value + ")")
			} else {
				re.WriteString(regexp.QuoteMeta(v.Value))
			}
		case *kql.Star:
			switch {
			case kind == "regex":
				re.WriteString(".*")
			case last:
				re.WriteString(".*")
			default:
				re.WriteString(".*?")
			}
		case *kql.ColumnDecl:
			ty, err := t.declType(v, v.Type, TString)
			if err != nil {
				return nil, err
			}
			outCols = append(outCols, column{v.Name.Name, ty})
			codes = append(codes, typeCode[ty])
			re.WriteString("(?P<" + parseGroupName(len(outCols)) + ">")
			switch {
			case kind == "regex" && ty.integer():
				re.WriteString(`-?\d+`)
			case kind == "regex" && (ty == TReal || ty == TDecimal):
				re.WriteString(`-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?`)
			case kind == "regex":
				re.WriteString(".*")
			case kind == "relaxed" && ty != TString && nextLit:
				// the text up to the next delimiter, converted after the match
				re.WriteString(".*?")
			case ty.integer():
				re.WriteString(`[-+]?\d+`)
			case ty == TReal || ty == TDecimal:
				re.WriteString(`[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?`)
			case last:
				re.WriteString(".*")
			default:
				re.WriteString(".*?")
			}
			re.WriteString(")")
			if kind == "relaxed" && ty != TString && !nextLit && (ty.integer() || ty == TReal || ty == TDecimal) {
				// a number that is not there leaves the column null, not the row
				re.WriteString("?")
			}
		default:
			return nil, t.unsupported(p, "parse pattern element "+kql.Format(p))
		}
	}
	if _, err := regexp.Compile(re.String()); err != nil {
		return nil, t.errAt(o, "%s pattern: %v", o.Name, err)
	}
	mode := "s"
	if kind == "relaxed" {
		mode = "r"
	}
	pattern, sig, md := lit(re.String(), TString), lit(string(codes), TString), lit(mode, TString)
	cols := append([]column(nil), in.cols...)
	sqls := selectCols(in)
	for i, c := range outCols {
		v := call("parse_col", c.Type, pattern, sig, md, lit(int64(i), TLong), src)
		cols, sqls = setCol(cols, sqls, c, v.sql)
	}
	sel := "SELECT " + strings.Join(append(sqls, "t._o"), ", ") + " FROM " + in.from + " t"
	if o.Name == "parse-where" {
		sel += " WHERE " + call("parse_ok", TBool, pattern, sig, md, src).sql
	}
	return t.stage(cols, sel), nil
}

// lit0 reports whether the pattern element at i exists and is a delimiter.
func lit0(p []kql.Expr, i int) (kql.Expr, bool) {
	if i >= len(p) {
		return nil, false
	}
	_, ok := p[i].(*kql.Literal)
	return p[i], ok
}

func parseGroupName(i int) string { return "kqlparse" + strconv.Itoa(i) }

// parsed is one string parsed by a parse pattern: the converted value of each column,
// nil when the string did not match (strict: or a column did not convert).
type parsed struct {
	vals []any
	ok   bool
}

// parseCache holds the last strings parsed: the columns of one row are read by one
// parse_col call each, with the same pattern and string.
var parseCache struct {
	sync.Mutex
	keys [8]string
	vals [8]parsed
	next int
}

// parseRow matches s against a parse pattern and converts each column (types in codes,
// one type code each); mode "s" is strict, "r" relaxed.
func parseRow(pattern, codes, mode, s string) parsed {
	key := pattern + "\x00" + codes + "\x00" + mode + "\x00" + s
	parseCache.Lock()
	for i, k := range parseCache.keys {
		if k == key {
			p := parseCache.vals[i]
			parseCache.Unlock()
			return p
		}
	}
	parseCache.Unlock()
	p := parseRow1(pattern, codes, mode, s)
	parseCache.Lock()
	parseCache.keys[parseCache.next], parseCache.vals[parseCache.next] = key, p
	parseCache.next = (parseCache.next + 1) % len(parseCache.keys)
	parseCache.Unlock()
	return p
}

func parseRow1(pattern, codes, mode, s string) parsed {
	re, err := compileRegex(pattern)
	if err != nil {
		return parsed{}
	}
	m := re.FindStringSubmatchIndex(s)
	if m == nil {
		return parsed{}
	}
	vals := make([]any, len(codes))
	for i := range codes {
		g := re.SubexpIndex(parseGroupName(i + 1))
		if g < 0 || m[2*g] < 0 {
			if mode == "s" {
				return parsed{}
			}
			continue
		}
		text := s[m[2*g]:m[2*g+1]]
		ty := codeType[codes[i]]
		if ty == TString {
			vals[i] = text
			continue
		}
		if ty == TDynamic {
			// converted as todynamic() converts a string: JSON text becomes its
			// value, other text a string
			if strings.TrimSpace(text) != "" {
				vals[i] = Dyn{parseJSON(text)}
			}
			continue
		}
		v := decode(encode(text, ty), ty)
		if v == nil && mode == "s" {
			return parsed{}
		}
		vals[i] = v
	}
	return parsed{vals: vals, ok: true}
}

func parseFuncs(def func(string, *fnDef)) {
	def("parse_col", fixed("", func(a []any) any {
		p := parseRow(a[0].(string), a[1].(string), a[2].(string), a[4].(string))
		i := int(a[3].(int64))
		if !p.ok || i < 0 || i >= len(p.vals) {
			return nil
		}
		return p.vals[i]
	}, TString, TString, TString, TLong, TString))
	def("parse_ok", fixed(TBool, func(a []any) any {
		return parseRow(a[0].(string), a[1].(string), a[2].(string), a[3].(string)).ok
	}, TString, TString, TString, TString))
}
