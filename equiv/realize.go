package equiv

import (
	"math/big"
	"sort"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/z3"
)

// realize reads the database of a satisfying model: the rows present of each table
// the queries read, a value per column. Texts get strings in the order of their codes,
// the literals' own where the code is a literal's (a code between two literals gets
// the lower one followed by a space and letters, which sorts between them in most
// cases; the caller runs the queries on the database to confirm the difference).
func (m *model) realize(md *z3.Model) map[string][][]qeval.Value {
	type cell struct {
		table, row, col int
		code            *big.Rat
	}
	out := map[string][][]qeval.Value{}
	var texts []cell
	rowsOf := make([][][]qeval.Value, len(m.made))
	for ti, t := range m.made {
		for _, r := range t.rows {
			if ok, _ := md.Bool(r.exists); !ok {
				continue
			}
			vals := make([]qeval.Value, len(r.vals))
			for ci, v := range r.vals {
				if null, _ := md.Bool(v.null); null || t.info.Columns[ci].Generated {
					vals[ci] = qeval.Null
					continue
				}
				n, ok := md.Number(v.v)
				if !ok {
					n = new(big.Rat)
				}
				switch {
				case t.kinds[ci] == kText:
					texts = append(texts, cell{ti, len(rowsOf[ti]), ci, n})
				case n.IsInt() && (t.ints[ci] || t.info.Columns[ci].Affinity == 'n'):
					vals[ci] = qeval.Int(n.Num().Int64())
				default:
					f, _ := n.Float64()
					vals[ci] = qeval.Float(f)
				}
			}
			rowsOf[ti] = append(rowsOf[ti], vals)
		}
	}
	names := m.textNames(md, texts2codes(texts, func(c cell) *big.Rat { return c.code }))
	for _, c := range texts {
		rowsOf[c.table][c.row][c.col] = qeval.Text(names[c.code.RatString()])
	}
	for ti, t := range m.made {
		// a foreign key between columns of different kinds is not modelled: its
		// nullable columns are left NULL so that SQLite does not refuse the row
		for _, fk := range t.info.ForeignKeys {
			p := m.tables[strings.ToLower(fk.Parent)]
			for k, c := range fk.Columns {
				if p == nil || k >= len(fk.ParentColumns) || p.kinds[fk.ParentColumns[k]] == t.kinds[c] || t.info.Columns[c].NotNull {
					continue
				}
				for _, r := range rowsOf[ti] {
					r[c] = qeval.Null
				}
			}
		}
		out[strings.ToLower(t.info.Name)] = rowsOf[ti]
	}
	return out
}

func texts2codes[T any](cells []T, code func(T) *big.Rat) []*big.Rat {
	out := make([]*big.Rat, len(cells))
	for i, c := range cells {
		out[i] = code(c)
	}
	return out
}

// textNames gives each text code a string: a literal's code its literal, others
// strings that sort between their neighbouring literals.
func (m *model) textNames(md *z3.Model, codes []*big.Rat) map[string]string {
	lit := map[string]string{}
	var all []*big.Rat
	for s, c := range m.texts {
		if n, ok := md.Number(c); ok {
			lit[n.RatString()] = s
			all = append(all, n)
		}
	}
	all = append(all, codes...)
	sort.Slice(all, func(i, j int) bool { return all[i].Cmp(all[j]) < 0 })
	out := map[string]string{}
	prev, run := " ", 0
	for i, c := range all {
		k := c.RatString()
		if i > 0 && all[i-1].Cmp(c) == 0 {
			continue
		}
		if s, ok := lit[k]; ok {
			out[k], prev, run = s, s+" ", 0
			continue
		}
		out[k] = prev + letters(run)
		run++
	}
	return out
}

// letters is a, b, …, z, za, zb, …: strings in increasing order.
func letters(n int) string {
	return strings.Repeat("z", n/26) + string(rune('a'+n%26))
}
