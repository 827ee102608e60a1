package equiv

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/testsuite"
	"github.com/qeval/qeval/z3"
)

// unsupported stops an encoding: the construct it names is outside the model. It is
// raised with panic inside the encoder and recovered by Prove, never beyond.
type unsupported struct{ what string }

func fail(format string, args ...any) { panic(unsupported{fmt.Sprintf(format, args...)}) }

// kind is a value's class as Python compares it: numbers with numbers, text with text.
type kind int

const (
	kNull kind = iota // the NULL literal: of any kind
	kNum
	kText
)

// val is one symbolic value: NULL or not, and its number (a text's code).
type val struct {
	null  z3.Term // Bool
	v     z3.Term // Real
	kind  kind
	isInt bool // an integer (SQLite's integer arithmetic applies)
	// column is set for a column's value: its affinity converts literals compared with it
	column bool
	// lit is a literal's text (isText: a text literal), which SQLite converts to the
	// affinity of a column it is compared with
	lit    string
	isText bool
	// numAff marks a column of NUMERIC affinity that holds texts (dates): SQLite turns
	// a text literal that reads as a number into one before comparing with it
	numAff bool
	// bad says why the value cannot be read (a column of mixed kinds): reading it
	// makes the pair unsupported
	bad string
}

// pred is a three-valued condition: t when it is TRUE, f when FALSE (neither: NULL).
type pred struct{ t, f z3.Term }

// colInfo names a column of a relation: the name a query may qualify it by, its own
// name, and the base table instance it comes from (for the grouping rules).
type colInfo struct {
	qual, name string // lower case
	inst       int    // base table instance (0: computed)
	col        int    // column index in that table
	table      *table
}

// row is one symbolic row of a relation.
type row struct {
	exists z3.Term
	vals   []val
	// key names the base rows the row is made of ("member#1|team#0"), so that two
	// queries joining the same tables in another order can be matched row for row
	key string
}

// relation is a symbolic bag (or list, with pos) of rows.
type relation struct {
	cols []colInfo
	rows []row
	// pos, for an ordered result, is each row's place (Int) among the rows kept
	pos []z3.Term
	// uniq are sets of columns no two rows present share values of (NULLs apart): a
	// base table's keys, kept through joins that give each row at most one partner
	uniq [][]int
}

// table is a table of the schema, modelled.
type table struct {
	info  testsuite.TableInfo
	kinds []kind
	ints  []bool
	mixed []bool // the original holds values of another kind: not modelled
	// numAff marks text columns of NUMERIC affinity (a DATETIME column of dates)
	numAff []bool
	rows   []row // the K symbolic rows, made on first use
}

// model is the symbolic database both queries read, and what they assume of it.
type model struct {
	ctx    *z3.Context
	k      int
	tables map[string]*table // by lower-case name
	made   []*table          // tables with rows, in order of use
	facts  []z3.Term         // constraints of the schema and definitions
	texts  map[string]z3.Term
	likes  map[string]func(z3.Term) z3.Term
	// number is the number a text reads as (SQLite's conversion), free
	number func(z3.Term) z3.Term
	insts  int
	zero   z3.Term
	one    z3.Term
	izero  z3.Term
	ione   z3.Term
}

func newModel(ctx *z3.Context, tables []testsuite.TableInfo, k int) *model {
	m := &model{ctx: ctx, k: k, tables: map[string]*table{}, texts: map[string]z3.Term{}, likes: map[string]func(z3.Term) z3.Term{},
		zero: ctx.RealVal("0"), one: ctx.RealVal("1"), izero: ctx.IntVal(0), ione: ctx.IntVal(1), number: ctx.Function("number")}
	for _, ti := range tables {
		t := &table{info: ti}
		for ci, c := range ti.Columns {
			kd, isInt := columnKind(c)
			numAff := false
			if kd == kNull || c.Affinity == 'n' && kindOfValues(ti.Rows, ci) == kText {
				// no type, or NUMERIC affinity holding texts that do not read as
				// numbers (dates): the kind of the original values
				numAff = kd != kNull
				kd = kindOfValues(ti.Rows, ci)
			}
			mixed := kd == kNull
			for _, r := range ti.Rows {
				if ci < len(r) && !fits(r[ci], kd) {
					mixed = true
					break
				}
			}
			t.kinds, t.ints, t.mixed, t.numAff = append(t.kinds, kd), append(t.ints, isInt && kd == kNum), append(t.mixed, mixed), append(t.numAff, numAff)
		}
		m.tables[strings.ToLower(ti.Name)] = t
	}
	return m
}

// columnKind is the kind of values a column holds by its declared type: numbers for
// INTEGER, REAL and NUMERIC affinity, text for TEXT; a column without type takes the
// kind of its original values.
func columnKind(c testsuite.ColumnInfo) (kind, bool) {
	switch c.Affinity {
	case 'i':
		return kNum, true
	case 'r', 'n':
		return kNum, false
	case 't':
		return kText, false
	}
	return kNull, false
}

// kindOfValues is the one kind of a column's original values (kNull when mixed or none).
func kindOfValues(rows [][]qeval.Value, ci int) kind {
	k := kNull
	for _, r := range rows {
		if ci >= len(r) || r[ci].Kind == qeval.KindNull {
			continue
		}
		vk := kText
		switch r[ci].Kind {
		case qeval.KindInt, qeval.KindFloat, qeval.KindBool:
			vk = kNum
		case qeval.KindText:
		default:
			return kNull
		}
		if k != kNull && k != vk {
			return kNull
		}
		k = vk
	}
	return k
}

// fits reports whether an original value is of the column's kind.
func fits(v qeval.Value, k kind) bool {
	switch v.Kind {
	case qeval.KindNull:
		return true
	case qeval.KindInt, qeval.KindFloat, qeval.KindBool:
		return k == kNum
	case qeval.KindText:
		return k == kText
	}
	return false
}

// table returns the rows of a base table, made (with the schema's constraints) on
// first use; parents named by foreign keys are made too.
func (m *model) table(name string) *table {
	t := m.tables[strings.ToLower(name)]
	if t == nil {
		fail("table %s is not in the schema", name)
	}
	if t.rows != nil {
		return t
	}
	ctx := m.ctx
	t.rows = make([]row, m.k)
	for i := range t.rows {
		r := row{exists: ctx.Bool(t.info.Name + ".e")}
		for ci, c := range t.info.Columns {
			v := val{null: ctx.Bool(t.info.Name + "." + c.Name + ".null"), v: ctx.Real(t.info.Name + "." + c.Name), kind: t.kinds[ci], isInt: t.ints[ci], column: true, numAff: t.numAff[ci]}
			if c.NotNull {
				m.facts = append(m.facts, r.exists.Implies(v.null.Not()))
			}
			if v.isInt {
				m.facts = append(m.facts, v.v.IsInt())
			}
			r.vals = append(r.vals, v)
		}
		t.rows[i] = r
		// rows present come first: which rows are present is what matters
		if i > 0 {
			m.facts = append(m.facts, r.exists.Implies(t.rows[i-1].exists))
		}
	}
	m.made = append(m.made, t)
	m.keys(t)
	for _, fk := range t.info.ForeignKeys {
		m.foreignKey(t, fk)
	}
	return t
}

// keys constrains the primary key (not NULL, distinct) and UNIQUE sets (distinct
// where no value is NULL).
func (m *model) keys(t *table) {
	ctx := m.ctx
	for _, pk := range t.info.PrimaryKey {
		for _, r := range t.rows {
			m.facts = append(m.facts, r.exists.Implies(r.vals[pk].null.Not()))
		}
	}
	for _, u := range t.info.Unique {
		for i := range t.rows {
			for j := i + 1; j < len(t.rows); j++ {
				a, b := t.rows[i], t.rows[j]
				same := []z3.Term{a.exists, b.exists}
				for _, c := range u {
					same = append(same, a.vals[c].null.Not(), b.vals[c].null.Not(), a.vals[c].v.Eq(b.vals[c].v))
				}
				m.facts = append(m.facts, ctx.And(same...).Not())
			}
		}
	}
}

// foreignKey constrains each row whose key columns are not NULL to name a parent row.
func (m *model) foreignKey(t *table, fk testsuite.ForeignKeyInfo) {
	if len(fk.Columns) != len(fk.ParentColumns) || len(fk.Columns) == 0 {
		return
	}
	p := m.table(fk.Parent)
	ctx := m.ctx
	for _, r := range t.rows {
		cond := []z3.Term{r.exists}
		for _, c := range fk.Columns {
			cond = append(cond, r.vals[c].null.Not())
		}
		var some []z3.Term
		for _, pr := range p.rows {
			match := []z3.Term{pr.exists}
			for k, c := range fk.Columns {
				pc := fk.ParentColumns[k]
				if p.kinds[pc] != t.kinds[c] {
					return // a key between columns of different kinds: not modelled, left out
				}
				match = append(match, pr.vals[pc].null.Not(), pr.vals[pc].v.Eq(r.vals[c].v))
			}
			some = append(some, ctx.And(match...))
		}
		m.facts = append(m.facts, ctx.And(cond...).Implies(ctx.Or(some...)))
	}
}

// text is the code of a text literal. Codes keep the byte order of the texts (SQLite's
// BINARY collation); they are assigned once every literal of both queries is known
// (see assignTexts), and a column's text may take any code, between them too.
func (m *model) text(s string) z3.Term {
	if c, ok := m.texts[s]; ok {
		return c
	}
	c := m.ctx.Real("text")
	m.texts[s] = c
	return c
}

// assignTexts fixes the literal codes in byte order of the texts: 1, 2, 3 ….
func (m *model) assignTexts() {
	var all []string
	for s := range m.texts {
		all = append(all, s)
	}
	sort.Strings(all)
	for i, s := range all {
		m.facts = append(m.facts, m.texts[s].Eq(m.ctx.RealVal(strconv.Itoa(i+1))))
	}
	// nothing sorts before the empty text
	if len(all) > 0 && all[0] == "" {
		for _, t := range m.made {
			for _, r := range t.rows {
				for ci, v := range r.vals {
					if t.kinds[ci] == kText {
						m.facts = append(m.facts, v.v.Ge(m.ctx.RealVal("1")))
					}
				}
			}
		}
	}
}

// nullVal is the NULL literal.
func (m *model) nullVal() val { return val{null: m.ctx.True(), v: m.zero, kind: kNull} }

// num is a number literal.
func (m *model) num(text string) val {
	isInt := !strings.ContainsAny(text, ".eE")
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		fail("number %s", text)
	}
	r := strconv.FormatFloat(f, 'f', -1, 64)
	if isInt {
		if i, err := strconv.ParseInt(text, 10, 64); err == nil {
			r = strconv.FormatInt(i, 10)
		}
	}
	return val{null: m.ctx.False(), v: m.ctx.RealVal(r), kind: kNum, isInt: isInt}
}

// textVal is a text literal.
func (m *model) textVal(s string) val {
	return val{null: m.ctx.False(), v: m.text(s), kind: kText}
}
