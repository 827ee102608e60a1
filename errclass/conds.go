package errclass

import (
	"slices"
	"strings"

	"github.com/qeval/qeval/sqlparse"
)

// conds compares the conditions of a WHERE or HAVING clause: those the same in both
// are set aside, then the rest are paired by the column they test (a literal, an
// operator or a nested query differs), by the test (another column or aggregate is
// tested the same way), then in order (another condition); what is left is missing or
// extra. The connectives differ when the conditions are as many and AND/OR are not.
func (d *differ) conds(g, p []sqlparse.Condition, gops, pops []string) {
	gu, pu := d.unmatched(len(g), len(p), func(i, j int) bool { return d.sameCond(g[i], p[j]) })
	if len(g) == len(p) && len(g) > 1 && !slices.Equal(gops, pops) {
		d.add(OperatorLogical, opsText(g, gops), opsText(p, pops))
	}
	steps := []struct {
		pairs func(gc, pc sqlparse.Condition) bool
		class func(gc, pc sqlparse.Condition)
	}{
		{func(gc, pc sqlparse.Condition) bool { return gc.Left != "" && d.same(gc.Left, pc.Left) }, d.sameLeft},
		{func(gc, pc sqlparse.Condition) bool {
			return gc.Op != "" && gc.Op == pc.Op && d.sameRight(gc, pc) && gc.Sub == nil && pc.Sub == nil
		}, d.otherLeft},
		{func(gc, pc sqlparse.Condition) bool { return true }, func(gc, pc sqlparse.Condition) {
			d.add(ConditionMismatch, gc.Text, pc.Text)
		}},
	}
	for _, step := range steps {
		var gl, pl []int
		used := map[int]bool{}
		for _, i := range gu {
			paired := false
			for _, j := range pu {
				if !used[j] && step.pairs(g[i], p[j]) {
					used[j], paired = true, true
					step.class(g[i], p[j])
					break
				}
			}
			if !paired {
				gl = append(gl, i)
			}
		}
		for _, j := range pu {
			if !used[j] {
				pl = append(pl, j)
			}
		}
		gu, pu = gl, pl
	}
	for _, i := range gu {
		d.add(ConditionMissing, g[i].Text, "")
	}
	for _, j := range pu {
		d.add(ConditionExtra, "", p[j].Text)
	}
}

func (d *differ) sameCond(g, p sqlparse.Condition) bool {
	if !d.same(g.Left, p.Left) || g.Op != p.Op || !d.sameRight(g, p) || (g.Sub == nil) != (p.Sub == nil) {
		return false
	}
	if g.Op == "" && !d.same(g.Text, p.Text) {
		return false
	}
	return g.Sub == nil || d.quiet(g.Sub, p.Sub)
}

func (d *differ) sameRight(g, p sqlparse.Condition) bool {
	if g.Literal && p.Literal {
		return g.Right == p.Right
	}
	return d.same(g.Right, p.Right)
}

// sameLeft classes two conditions on the same column.
func (d *differ) sameLeft(g, p sqlparse.Condition) {
	switch {
	case g.Sub != nil && p.Sub == nil:
		d.add(SubqueryMissing, g.Text, p.Text)
		return
	case g.Sub == nil && p.Sub != nil:
		d.add(SubqueryExtra, g.Text, p.Text)
		return
	}
	if g.Op != p.Op {
		d.add(OperatorComparison, g.Text, p.Text)
	}
	switch {
	case g.Sub != nil:
		d.query(g.Sub, p.Sub)
	case d.sameRight(g, p):
	case g.Op != p.Op && (listOp(g.Op) || listOp(p.Op)):
		// BETWEEN a AND b for >= a: the operator says it, the bounds are another form
	case g.Literal && p.Literal:
		d.add(ValueLiteral, g.Right, p.Right)
	default:
		d.add(ConditionMismatch, g.Text, p.Text)
	}
}

// otherLeft classes two conditions making the same test of different things.
func (d *differ) otherLeft(g, p sqlparse.Condition) {
	if len(g.LeftAggs) > 0 || len(p.LeftAggs) > 0 {
		if !slices.Equal(lowerAll(g.LeftAggs), lowerAll(p.LeftAggs)) {
			d.add(FunctionAggregate, g.Left, p.Left)
			return
		}
	}
	d.add(AttributeMismatch, g.Left, p.Left)
}

// listOp says whether op takes a list or a range of values (IN, BETWEEN).
func listOp(op string) bool {
	return strings.HasSuffix(op, "in") || strings.HasSuffix(op, "between")
}

func opsText(conds []sqlparse.Condition, ops []string) string {
	var b strings.Builder
	for i, c := range conds {
		if i > 0 && i-1 < len(ops) {
			b.WriteString(" " + strings.ToUpper(ops[i-1]) + " ")
		}
		b.WriteString(c.Text)
	}
	return b.String()
}

// same compares two rendered expressions as names: case aside, table qualifiers of
// either query's tables dropped, unless the same name is qualified on both sides by
// two tables both queries read.
func (d *differ) same(a, b string) bool {
	if a == b {
		return true
	}
	na, qa := d.split(a)
	nb, qb := d.split(b)
	if na != nb || len(qa) != len(qb) {
		return false
	}
	for i := range qa {
		if qa[i] != "" && qb[i] != "" && qa[i] != qb[i] && d.both[qa[i]] && d.both[qb[i]] {
			return false
		}
	}
	return true
}

// norm is s as same compares it.
func (d *differ) norm(s string) string {
	n, _ := d.split(s)
	return n
}

// split lower-cases s outside its string literals and drops "table." before a name
// when table is one of the queries' tables; quals are the qualifiers dropped, one per
// name of s ("" where none was).
func (d *differ) split(s string) (string, []string) {
	var quals []string
	pending := ""
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		if c == '\'' {
			j := i + 1
			for j < len(s) && !(s[j] == '\'' && (j+1 >= len(s) || s[j+1] != '\'')) {
				if s[j] == '\'' {
					j++
				}
				j++
			}
			j = min(j+1, len(s))
			b.WriteString(s[i:j])
			i = j
			continue
		}
		if isIdent(c) && (i == 0 || !isIdent(s[i-1])) {
			j := i
			for j < len(s) && isIdent(s[j]) {
				j++
			}
			word := strings.ToLower(s[i:j])
			if j < len(s) && s[j] == '.' && d.tables[word] {
				pending, i = word, j+1
				continue
			}
			quals = append(quals, pending)
			pending = ""
			b.WriteString(word)
			i = j
			continue
		}
		b.WriteByte(c)
		i++
	}
	return b.String(), quals
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}
