package kqlexec

import (
	"strings"

	"github.com/qeval/qeval/kql"
)

// scan translates the scan operator: the rows in order, numbered, and the declared
// variables, handed to scanSteps (one step or several; see there).
//
//	T | scan declare (total:long=0) with (step s: true => total = x + s.total;)
//
// partition by and order by are not translated.
func (t *translator) scan(in *rel, o *kql.ScanOp, e *env) (*rel, error) {
	if len(o.Steps) == 0 {
		return nil, t.errAt(o, "scan needs at least one step")
	}
	if len(o.PartitionBy) > 0 || len(o.OrderBy) > 0 {
		return nil, t.unsupported(o, "scan with partition by or order by")
	}
	matchID := ""
	if p := o.Param("with_match_id"); p != nil {
		id, ok := p.(*kql.Ident)
		if !ok {
			return nil, t.errAt(p, "with_match_id takes a column name")
		}
		matchID = id.Name
	}
	// the rows in order, numbered: c0..cN-1 the row, cN its number (within its group,
	// inside partition or mv-apply: each group is scanned apart)
	over := "ORDER BY t._o"
	if pi := in.index(t.part); t.part != "" && pi >= 0 {
		over = "PARTITION BY t." + colName(pi) + " " + over
	}
	ord := t.stage(append(append([]column(nil), in.cols...), column{"\x00rn", TLong}),
		"SELECT "+strings.Join(append(selectCols(in), "row_number() OVER ("+over+")", "t._o"), ", ")+" FROM "+in.from+" t")

	// the declared variables: names, types, defaults
	vars := make([]scanVar, len(o.Declare))
	for i, d := range o.Declare {
		ty, err := t.declType(d, d.Type, TDynamic)
		if err != nil {
			return nil, err
		}
		def := expr{sql: "NULL", t: ty}
		if d.Default != nil {
			x, err := t.expr(d.Default, &scope{env: e})
			if err != nil {
				return nil, err
			}
			def = coerce(x, ty)
		}
		vars[i] = scanVar{d.Name.Name, ty, def}
	}
	return t.scanSteps(in, o, e, ord, vars, matchID)
}

// scanVar is a variable a scan declares: its name, type and default.
type scanVar struct {
	name string
	t    Type
	def  expr
}

func indexOf2(cols []column, name string) int {
	for i, c := range cols {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// opParam returns the value of a named parameter in a list, or nil.
func opParam(ps []*kql.OpParam, name string) kql.Expr {
	for _, p := range ps {
		if p.Name == name {
			return p.Value
		}
	}
	return nil
}
