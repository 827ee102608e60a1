package exactmatch

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/qeval/qeval"
)

// The tree the official parser builds (see the header of process_sql.py). Field names
// follow its keys; the comments give the Python shape each one stands for.

// Tri-state flags: the rebuild step of the evaluator replaces DISTINCT flags by None.
type flag int8

const (
	flagFalse flag = iota
	flagTrue
	flagNone
)

// colUnit is (agg_id, col_id, isDistinct).
type colUnit struct {
	agg      int
	col      string
	distinct flag
}

// valUnit is (unit_op, col_unit1, col_unit2); col2 is nil for None.
type valUnit struct {
	op   int
	col1 colUnit
	col2 *colUnit
}

// value is what a condition compares with: nil (None), float64, string (a literal with its
// quotes), colUnit, or *SQL.
type value any

// condUnit is (not_op, op_id, val_unit, val1, val2).
type condUnit struct {
	not        bool
	op         int
	val        valUnit
	val1, val2 value
}

// condition is [cond_unit1, 'and'/'or', cond_unit2, ...].
type condition struct {
	units []condUnit
	ops   []string
}

func (c *condition) empty() bool { return len(c.units) == 0 }

// selectItem is (agg_id, val_unit).
type selectItem struct {
	agg int
	val valUnit
}

// tableUnit is (table_type, col_unit/sql): a table id ("__name__") or a subquery.
type tableUnit struct {
	sub   *SQL
	table string
}

// orderBy is ('asc'/'desc', [val_unit, ...]), or the empty list when there is no ORDER BY.
type orderBy struct {
	present bool
	dir     string
	units   []valUnit
}

// SQL is one parsed query in the official evaluator's structure.
type SQL struct {
	distinct flag
	sel      []selectItem
	tables   []tableUnit
	fromCond condition
	where    condition
	groupBy  []colUnit
	having   condition
	order    orderBy
	limit    bool // the official parser records every LIMIT as 1
	// at most one of these is set
	intersect, except, union *SQL
}

var (
	clauseKeywords = []string{"select", "from", "where", "group", "order", "limit", "intersect", "union", "except"}
	joinKeywords   = []string{"join", "on", "as"}
	whereOps       = []string{"not", "between", "=", ">", "<", ">=", "<=", "!=", "in", "like", "is", "exists"}
	unitOps        = []string{"none", "-", "+", "*", "/"}
	aggOps         = []string{"none", "max", "min", "count", "sum", "avg"}
	condOps        = []string{"and", "or"}
	sqlOps         = []string{"intersect", "union", "except"}
	orderOps       = []string{"desc", "asc"}
)

const (
	opBetween = 1
	opIn      = 8
	opLike    = 9
)

func index(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

func in(list []string, s string) bool { return index(list, s) >= 0 }

// ParseError is a query the official parser cannot read; the evaluator scores such a
// prediction against an empty query.
type ParseError struct{ Reason string }

func (e *ParseError) Error() string { return "the Spider parser cannot read the query: " + e.Reason }

func parseError(format string, args ...any) *ParseError {
	return &ParseError{Reason: fmt.Sprintf(format, args...)}
}

// parser holds the token stream and the schema of one query. Every way the Python parser
// can raise (an index past the end, an unknown alias or column, a failed assertion) panics
// with a *ParseError, which Parse turns into its error.
type parser struct {
	toks    []string
	schema  *Schema
	aliases map[string]string
}

func (p *parser) tok(i int) string {
	if i < 0 || i >= len(p.toks) {
		panic(parseError("the query ends too early"))
	}
	return p.toks[i]
}

func (p *parser) at(i int, s string) bool { return i < len(p.toks) && p.toks[i] == s }

func require(ok bool, format string, args ...any) {
	if !ok {
		panic(parseError(format, args...))
	}
}

// Parse reads query with the official Spider parser's rules against schema.
func Parse(schema *Schema, query string) (sql *SQL, err error) {
	// bounded before tokenizing: a hostile query of millions of tokens is refused at once
	if err := qeval.CheckQuerySize(query, 0, 0); err != nil {
		return nil, parseError("%s", qeval.ErrorMessage(err))
	}
	toks, err := tokenize(query)
	if err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			pe, ok := r.(*ParseError)
			if !ok {
				panic(r)
			}
			sql, err = nil, pe
		}
	}()
	p := &parser{toks: toks, schema: schema, aliases: scanAliases(toks)}
	for _, t := range schema.tables {
		require(p.aliases[t.name] == "", "alias %s has the same name as a table", t.name)
		p.aliases[t.name] = t.name
	}
	_, sql = p.sql(0)
	return sql, nil
}

// scanAliases maps the word after every "as" to the word before it, as scan_alias does
// (column aliases included).
func scanAliases(toks []string) map[string]string {
	m := map[string]string{}
	for i, t := range toks {
		if t != "as" {
			continue
		}
		if i+1 >= len(toks) {
			panic(parseError("nothing after AS"))
		}
		prev := toks[len(toks)-1] // toks[-1] when AS comes first
		if i > 0 {
			prev = toks[i-1]
		}
		m[toks[i+1]] = prev
	}
	return m
}

func (p *parser) alias(name string) string {
	t, ok := p.aliases[name]
	require(ok, "unknown table or alias %q", name)
	return t
}

func (p *parser) col(i int, defaults []string) (int, string) {
	t := p.tok(i)
	if t == "*" {
		return i + 1, "__all__"
	}
	if strings.Contains(t, ".") {
		parts := strings.Split(t, ".")
		require(len(parts) == 2, "column %q has more than one dot", t)
		key := p.alias(parts[0]) + "." + parts[1]
		id, ok := p.schema.ids[key]
		require(ok, "unknown column %q", t)
		return i + 1, id
	}
	require(len(defaults) > 0, "column %q outside a FROM", t)
	for _, a := range defaults {
		table := p.alias(a)
		if p.schema.hasColumn(table, t) {
			return i + 1, p.schema.ids[table+"."+t]
		}
	}
	panic(parseError("unknown column %q", t))
}

func (p *parser) colUnit(i int, defaults []string) (int, colUnit) {
	block := false
	if p.tok(i) == "(" {
		block = true
		i++
	}
	if a := index(aggOps, p.tok(i)); a >= 0 {
		i++
		require(p.at(i, "("), "expected ( after %s", aggOps[a])
		i++
		distinct := flagFalse
		if p.tok(i) == "distinct" {
			i++
			distinct = flagTrue
		}
		var id string
		i, id = p.col(i, defaults)
		require(p.at(i, ")"), "expected ) after the argument of %s", aggOps[a])
		return i + 1, colUnit{agg: a, col: id, distinct: distinct}
	}
	distinct := flagFalse
	if p.tok(i) == "distinct" {
		i++
		distinct = flagTrue
	}
	var id string
	i, id = p.col(i, defaults)
	if block {
		require(p.tok(i) == ")", "expected )")
		i++
	}
	return i, colUnit{col: id, distinct: distinct}
}

func (p *parser) valUnit(i int, defaults []string) (int, valUnit) {
	block := false
	if p.tok(i) == "(" {
		block = true
		i++
	}
	var v valUnit
	i, v.col1 = p.colUnit(i, defaults)
	if i < len(p.toks) && in(unitOps, p.toks[i]) {
		v.op = index(unitOps, p.toks[i])
		var c2 colUnit
		i, c2 = p.colUnit(i+1, defaults)
		v.col2 = &c2
	}
	if block {
		require(p.tok(i) == ")", "expected )")
		i++
	}
	return i, v
}

func (p *parser) tableUnit(i int) (next int, name, id string) {
	name = p.alias(p.tok(i))
	if p.at(i+1, "as") {
		i += 3
	} else {
		i++
	}
	id, ok := p.schema.ids[name]
	require(ok, "unknown table %q", name)
	return i, name, id
}

func (p *parser) value(i int, defaults []string) (int, value) {
	start := i
	block := false
	if p.tok(i) == "(" {
		block = true
		i++
	}
	var v value
	switch t := p.tok(i); {
	case t == "select":
		i, v = p.sql(i)
	case strings.Contains(t, `"`):
		v = t
		i++
	default:
		if f, ok := pyFloat(t); ok {
			v = f
			i++
			break
		}
		end := i
		for end < len(p.toks) {
			t := p.toks[end]
			if t == "," || t == ")" || t == "and" || in(clauseKeywords, t) || in(joinKeywords, t) {
				break
			}
			end++
		}
		// The column is read from a copy of the tokens that starts where the value
		// started (before any "(") and stops at the scan's end.
		sub := &parser{toks: p.toks[start:end], schema: p.schema, aliases: p.aliases}
		_, v = sub.colUnit(0, defaults)
		i = end
	}
	if block {
		require(p.tok(i) == ")", "expected )")
		i++
	}
	return i, v
}

func (p *parser) condition(i int, defaults []string) (int, condition) {
	var c condition
	for i < len(p.toks) {
		var u condUnit
		i, u.val = p.valUnit(i, defaults)
		if p.tok(i) == "not" {
			u.not = true
			i++
		}
		require(i < len(p.toks) && in(whereOps, p.toks[i]), "expected a comparison, found %q", p.tok(i))
		u.op = index(whereOps, p.toks[i])
		i++
		if u.op == opBetween {
			i, u.val1 = p.value(i, defaults)
			require(p.tok(i) == "and", "expected AND in BETWEEN")
			i, u.val2 = p.value(i+1, defaults)
		} else {
			i, u.val1 = p.value(i, defaults)
		}
		c.units = append(c.units, u)
		if i < len(p.toks) {
			t := p.toks[i]
			if in(clauseKeywords, t) || t == ")" || t == ";" || in(joinKeywords, t) {
				break
			}
			if in(condOps, t) {
				c.ops = append(c.ops, t)
				i++
			}
		}
	}
	return i, c
}

func (p *parser) selectClause(i int, defaults []string, s *SQL) {
	require(p.tok(i) == "select", "SELECT not found")
	i++
	if p.at(i, "distinct") {
		i++
		s.distinct = flagTrue
	}
	for i < len(p.toks) && !in(clauseKeywords, p.toks[i]) {
		agg := 0
		if a := index(aggOps, p.toks[i]); a >= 0 {
			agg = a
			i++
		}
		var v valUnit
		i, v = p.valUnit(i, defaults)
		s.sel = append(s.sel, selectItem{agg: agg, val: v})
		if p.at(i, ",") {
			i++
		}
	}
}

func (p *parser) from(start int, s *SQL) (int, []string) {
	i := -1
	for j := start; j < len(p.toks); j++ {
		if p.toks[j] == "from" {
			i = j + 1
			break
		}
	}
	require(i >= 0, "FROM not found")
	var defaults []string
	for i < len(p.toks) {
		block := false
		if p.tok(i) == "(" {
			block = true
			i++
		}
		if p.tok(i) == "select" {
			var sub *SQL
			i, sub = p.sql(i)
			s.tables = append(s.tables, tableUnit{sub: sub})
		} else {
			if p.at(i, "join") {
				i++
			}
			var name, id string
			i, name, id = p.tableUnit(i)
			s.tables = append(s.tables, tableUnit{table: id})
			defaults = append(defaults, name)
		}
		if p.at(i, "on") {
			var c condition
			i, c = p.condition(i+1, defaults)
			if !s.fromCond.empty() {
				s.fromCond.ops = append(s.fromCond.ops, "and")
			}
			s.fromCond.units = append(s.fromCond.units, c.units...)
			s.fromCond.ops = append(s.fromCond.ops, c.ops...)
		}
		if block {
			require(p.tok(i) == ")", "expected )")
			i++
		}
		if i < len(p.toks) && (in(clauseKeywords, p.toks[i]) || p.toks[i] == ")" || p.toks[i] == ";") {
			break
		}
	}
	return i, defaults
}

func (p *parser) groupBy(i int, defaults []string) (int, []colUnit) {
	if !p.at(i, "group") {
		return i, nil
	}
	require(p.tok(i+1) == "by", "expected BY after GROUP")
	i += 2
	var out []colUnit
	for i < len(p.toks) && !(in(clauseKeywords, p.toks[i]) || p.toks[i] == ")" || p.toks[i] == ";") {
		var c colUnit
		i, c = p.colUnit(i, defaults)
		out = append(out, c)
		if !p.at(i, ",") {
			break
		}
		i++
	}
	return i, out
}

func (p *parser) orderBy(i int, defaults []string) (int, orderBy) {
	if !p.at(i, "order") {
		return i, orderBy{}
	}
	require(p.tok(i+1) == "by", "expected BY after ORDER")
	i += 2
	o := orderBy{present: true, dir: "asc"}
	for i < len(p.toks) && !(in(clauseKeywords, p.toks[i]) || p.toks[i] == ")" || p.toks[i] == ";") {
		var v valUnit
		i, v = p.valUnit(i, defaults)
		o.units = append(o.units, v)
		if i < len(p.toks) && in(orderOps, p.toks[i]) {
			o.dir = p.toks[i]
			i++
		}
		if !p.at(i, ",") {
			break
		}
		i++
	}
	return i, o
}

func (p *parser) skipSemicolons(i int) int {
	for p.at(i, ";") {
		i++
	}
	return i
}

func (p *parser) sql(start int) (int, *SQL) {
	s := &SQL{}
	i := start
	block := false
	if p.tok(i) == "(" {
		block = true
		i++
	}
	fromEnd, defaults := p.from(start, s)
	p.selectClause(i, defaults, s)
	i = fromEnd
	if p.at(i, "where") {
		i, s.where = p.condition(i+1, defaults)
	}
	i, s.groupBy = p.groupBy(i, defaults)
	if p.at(i, "having") {
		i, s.having = p.condition(i+1, defaults)
	}
	i, s.order = p.orderBy(i, defaults)
	if p.at(i, "limit") {
		// The official parser reads the token after LIMIT whatever it is, and fails
		// only where there is none.
		require(i+1 < len(p.toks), "LIMIT without a value")
		i += 2
		s.limit = true
	}
	i = p.skipSemicolons(i)
	if block {
		require(p.tok(i) == ")", "expected )")
		i++
	}
	i = p.skipSemicolons(i)
	if i < len(p.toks) && in(sqlOps, p.toks[i]) {
		op := p.toks[i]
		var sub *SQL
		i, sub = p.sql(i + 1)
		switch op {
		case "intersect":
			s.intersect = sub
		case "union":
			s.union = sub
		default:
			s.except = sub
		}
	}
	return i, s
}

// pyFloat accepts what Python's float() accepts for a token: decimal numbers with an
// optional sign, exponent and digit-separating underscores, and inf/infinity/nan.
func pyFloat(s string) (float64, bool) {
	t := strings.TrimSpace(s)
	body := strings.TrimLeft(t, "+-")
	if len(t)-len(body) > 1 {
		return 0, false
	}
	switch strings.ToLower(body) {
	case "inf", "infinity":
		if strings.HasPrefix(t, "-") {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	case "nan":
		return math.NaN(), true
	}
	if body == "" {
		return 0, false
	}
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c >= '0' && c <= '9', c == '.', c == 'e', c == 'E', c == '+', c == '-':
			b.WriteByte(c)
		case c == '_':
			// only between two digits
			if i == 0 || i == len(body)-1 || !isDigit(body[i-1]) || !isDigit(body[i+1]) {
				return 0, false
			}
		default:
			return 0, false
		}
	}
	f, err := strconv.ParseFloat(t[:len(t)-len(body)]+b.String(), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false // out of range is ±Inf or 0 in Python too
	}
	return f, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
