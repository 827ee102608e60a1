package testsuite

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/qeval/qeval"
)

// TableWriter fills one new database (sqlite.Writer satisfies it).
type TableWriter interface {
	// Insert adds rows and reports which were kept; a row breaking a constraint is
	// left out.
	Insert(table string, columns []string, rows [][]qeval.Value) ([]bool, error)
	// Close finishes the file.
	Close() error
	// Abort discards the file.
	Abort()
}

// profile shapes one generated database: how many rows per table and how many distinct
// values a column draws from (few values give duplicates and groups of several rows).
type profile struct {
	minRows, maxRows int
	nullRate         float64
	// skew > 1 makes the first values of a column's draw more frequent than the last,
	// so that groups have different sizes (fewer ties in ORDER BY COUNT(*) … LIMIT)
	skew float64
	// narrow draws each column that is not a key from one or two values: groups are
	// large, and a value equals the column's average, minimum and maximum, so that
	// > and >= (or < and <=) against an aggregate, and COUNT and COUNT(DISTINCT), differ
	narrow bool
	// emptyRate is the chance that a table gets no rows at all
	emptyRate float64
}

var profiles = []profile{
	{minRows: 4, maxRows: 9, nullRate: 0.05, skew: 2},
	{minRows: 8, maxRows: 16, nullRate: 0.1, skew: 1},
	{minRows: 12, maxRows: 30, nullRate: 0.05, skew: 3},
	{minRows: 6, maxRows: 20, nullRate: 0, skew: 2},
	{minRows: 3, maxRows: 12, nullRate: 0.05, skew: 1, narrow: true},
}

// pick draws an index below n, skewed towards 0.
func pick(rng *rand.Rand, n int, skew float64) int {
	return int(float64(n) * math.Pow(rng.Float64(), skew))
}

// generate writes one database with the schema of the original and rows drawn from the
// pools; parents are filled before children, and a child's foreign-key columns take
// values from the parent rows that were kept.
//
// It returns the rows kept, per lower-case table name, with a value per column.
func generate(w TableWriter, tables []*table, rng *rand.Rand, p profile) (map[string][][]qeval.Value, error) {
	kept := map[string][][]qeval.Value{}
	for _, t := range order(tables) {
		rows, err := generateTable(w, t, kept, rng, p)
		if err != nil {
			return nil, err
		}
		kept[strings.ToLower(t.name)] = rows
	}
	return kept, nil
}

// tableDraw draws the rows of one table.
type tableDraw struct {
	t    *table
	rng  *rand.Rand
	p    profile
	kept map[string][][]qeval.Value // the rows kept of the tables written before
	// draws are, per column, the values it draws from
	draws [][]qeval.Value
	// fkOf is the foreign key of each column that is part of one
	fkOf map[int]*foreignKey
	// uniq is, per single-column key, the values used so far
	uniq map[int]map[qeval.Value]bool
}

// generateTable draws the rows of t and writes them, and returns those kept, with a
// value per column.
func generateTable(w TableWriter, t *table, kept map[string][][]qeval.Value, rng *rand.Rand, p profile) ([][]qeval.Value, error) {
	n := p.minRows + rng.IntN(p.maxRows-p.minRows+1)
	if p.emptyRate > 0 && rng.Float64() < p.emptyRate {
		n = 0
	}
	var cols []string
	var idx []int
	for i, c := range t.cols {
		if !c.generated {
			cols = append(cols, c.name)
			idx = append(idx, i)
		}
	}
	d := &tableDraw{t: t, rng: rng, p: p, kept: kept, draws: columnDraws(t, rng, p), uniq: map[int]map[qeval.Value]bool{}}
	var selfRef bool
	d.fkOf, selfRef = foreignKeyColumns(t)
	var rows [][]qeval.Value
	var tableRows [][]qeval.Value
	for r := 0; r < n; r++ {
		full, ok := d.row(r, tableRows)
		if !ok {
			continue
		}
		row := make([]qeval.Value, len(idx))
		for j, i := range idx {
			row[j] = full[i]
		}
		if selfRef {
			// a row referring to its own table goes in alone, after the rows it
			// may refer to
			k, err := w.Insert(t.name, cols, [][]qeval.Value{row})
			if err != nil {
				return nil, fmt.Errorf("table %s: %w", t.name, err)
			}
			if k[0] {
				tableRows = append(tableRows, full)
			}
			continue
		}
		rows = append(rows, row)
		tableRows = append(tableRows, full)
	}
	if !selfRef {
		plantLiterals(t, idx, rows, tableRows, d.fkOf, rng)
	}
	if !selfRef && len(rows) > 0 {
		k, err := w.Insert(t.name, cols, rows)
		if err != nil {
			return nil, fmt.Errorf("table %s: %w", t.name, err)
		}
		var keep [][]qeval.Value
		for r, good := range k {
			if good {
				keep = append(keep, tableRows[r])
			}
		}
		tableRows = keep
	}
	return tableRows, nil
}

// columnDraws returns, per column of t, the values it draws from: a prefix of its
// shuffled pool. A short prefix repeats values (DISTINCT, COUNT and GROUP BY differ),
// a long one spreads them.
func columnDraws(t *table, rng *rand.Rand, p profile) [][]qeval.Value {
	draws := make([][]qeval.Value, len(t.cols))
	for i, c := range t.cols {
		pool := append([]qeval.Value(nil), c.pool...)
		rng.Shuffle(len(pool), func(a, b int) { pool[a], pool[b] = pool[b], pool[a] })
		// the gold literals (and their neighbours) go first most of the time, so
		// that the gold's predicates select some rows and not others
		front := 0
		for j, v := range pool {
			if c.literal[v] && rng.Float64() < 0.7 {
				pool[front], pool[j] = pool[j], pool[front]
				front++
			}
		}
		k := len(pool)
		switch {
		case t.inUnique(i) || c.sortKey:
		case p.narrow:
			k = min(k, 1+rng.IntN(2))
		case k > 3 && rng.IntN(2) == 0:
			k = 2 + rng.IntN(k/2)
		}
		draws[i] = pool[:k]
	}
	return draws
}

// foreignKeyColumns maps each column of t that is part of a foreign key to that key,
// and says whether a key refers to t itself.
func foreignKeyColumns(t *table) (fkOf map[int]*foreignKey, selfRef bool) {
	fkOf = map[int]*foreignKey{}
	for fi := range t.fks {
		fk := &t.fks[fi]
		for _, c := range fk.cols {
			fkOf[c] = fk
		}
		if strings.EqualFold(fk.parent, t.name) {
			selfRef = true
		}
	}
	return fkOf, selfRef
}

// row draws row r, a value per column (generated columns left zero); tableRows are
// the rows of the table kept so far. It reports false when a NOT NULL column has
// nothing to draw from.
func (d *tableDraw) row(r int, tableRows [][]qeval.Value) ([]qeval.Value, bool) {
	t, rng, p := d.t, d.rng, d.p
	full := make([]qeval.Value, len(t.cols))
	for i, c := range t.cols {
		if c.generated {
			continue
		}
		if fk := d.fkOf[i]; fk != nil {
			v, good := t.fkValue(fk, i, d.kept, tableRows, rng, p, c)
			if !good {
				return nil, false
			}
			full[i] = v
			continue
		}
		if !c.notNull && !t.inUnique(i) && !c.sortKey && rng.Float64() < p.nullRate {
			full[i] = qeval.Null
			continue
		}
		if len(d.draws[i]) == 0 {
			if c.notNull {
				return nil, false
			}
			full[i] = qeval.Null
			continue
		}
		full[i] = d.value(i, r)
	}
	return full, true
}

// value draws the value of column i in row r from its draws.
func (d *tableDraw) value(i, r int) qeval.Value {
	c, draws, rng := d.t.cols[i], d.draws[i], d.rng
	var v qeval.Value
	if c.sortKey {
		// a sort key of a gold with LIMIT: distinct values while they last,
		// so that no tie falls at the cut
		v = draws[r%len(draws)]
	} else {
		v = draws[pick(rng, len(draws), d.p.skew)]
	}
	if d.t.singleUnique(i) {
		// prefer a value not used yet in a single-column key
		if d.uniq[i] == nil {
			d.uniq[i] = map[qeval.Value]bool{}
		}
		for try := 0; try < 8 && d.uniq[i][v]; try++ {
			v = c.pool[rng.IntN(len(c.pool))]
		}
		if d.uniq[i][v] {
			v = fresh(c, d.uniq[i])
		}
		d.uniq[i][v] = true
	}
	return v
}

// plantRate is the chance that a gold literal missing from a column's drawn rows is
// written into one of them.
const plantRate = 0.5

// plantLiterals makes the gold's own literals likely to be present: a literal the draw
// missed (the pool holds many values, its neighbours among them) replaces the value of
// a random row, half of the time. Foreign-key columns are left alone (they take their
// values from the parent, whose key draws the literal instead), and a value already in
// the column is not planted again, so keys and LIMIT sort keys stay distinct.
func plantLiterals(t *table, idx []int, rows, full [][]qeval.Value, fkOf map[int]*foreignKey, rng *rand.Rand) {
	if len(rows) == 0 {
		return
	}
	for j, i := range idx {
		c := t.cols[i]
		if fkOf[i] != nil || len(c.exact) == 0 {
			continue
		}
		present := map[qeval.Value]bool{}
		for _, r := range full {
			present[r[i]] = true
		}
		for _, v := range c.exact {
			if present[v] || rng.Float64() >= plantRate {
				continue
			}
			r := rng.IntN(len(rows))
			rows[r][j], full[r][i] = v, v
			present[v] = true
		}
	}
}

// insertable returns the column names a writer fills (generated columns left out) and
// a row reduced to them.
func insertable(t *table) ([]string, func([]qeval.Value) []qeval.Value) {
	var cols []string
	var idx []int
	for i, c := range t.cols {
		if !c.generated {
			cols = append(cols, c.name)
			idx = append(idx, i)
		}
	}
	return cols, func(full []qeval.Value) []qeval.Value {
		row := make([]qeval.Value, len(idx))
		for j, i := range idx {
			row[j] = full[i]
		}
		return row
	}
}

// write fills w with given rows (parents first, one statement per row so that a self
// reference finds its parent) and returns the rows kept.
func write(w TableWriter, tables []*table, rows map[string][][]qeval.Value) (map[string][][]qeval.Value, error) {
	kept := map[string][][]qeval.Value{}
	for _, t := range order(tables) {
		key := strings.ToLower(t.name)
		cols, reduce := insertable(t)
		var batch [][]qeval.Value
		for _, r := range rows[key] {
			batch = append(batch, reduce(r))
		}
		if len(batch) == 0 {
			continue
		}
		k, err := w.Insert(t.name, cols, batch)
		if err != nil {
			return nil, fmt.Errorf("table %s: %w", t.name, err)
		}
		for i, good := range k {
			if good {
				kept[key] = append(kept[key], rows[key][i])
			}
		}
	}
	return kept, nil
}

// leafRows lists the rows no kept row refers to, as (lower-case table, index) pairs,
// for the tables named.
func leafRows(tables []*table, rows map[string][][]qeval.Value, only map[string]bool) [][2]any {
	referenced := map[string]map[string]bool{} // parent table -> key text
	for _, t := range tables {
		for _, fk := range t.fks {
			p := strings.ToLower(fk.parent)
			if referenced[p] == nil {
				referenced[p] = map[string]bool{}
			}
			for _, r := range rows[strings.ToLower(t.name)] {
				referenced[p][keyText(fk.pidx, nil, fk.cols, r)] = true
			}
		}
	}
	var out [][2]any
	for _, t := range tables {
		key := strings.ToLower(t.name)
		if !only[key] {
			continue
		}
		for i, r := range rows[key] {
			leaf := true
			for _, c := range tables {
				for _, fk := range c.fks {
					if strings.EqualFold(fk.parent, t.name) && referenced[key][keyText(fk.pidx, r, nil, nil)] {
						leaf = false
					}
				}
			}
			if leaf {
				out = append(out, [2]any{key, i})
			}
		}
	}
	return out
}

// keyText renders the key values of a row: the parent's columns pidx of parentRow, or
// the child's columns cols of childRow.
func keyText(pidx []int, parentRow []qeval.Value, cols []int, childRow []qeval.Value) string {
	var b strings.Builder
	if parentRow != nil {
		for _, i := range pidx {
			b.WriteString(parentRow[i].String())
			b.WriteByte(0)
		}
		return b.String()
	}
	for _, i := range cols {
		b.WriteString(childRow[i].String())
		b.WriteByte(0)
	}
	return b.String()
}

func countRows(tables []*table, rows map[string][][]qeval.Value) map[string]int {
	out := map[string]int{}
	for _, t := range tables {
		out[t.name] = len(rows[strings.ToLower(t.name)])
	}
	return out
}

// fkValue picks the value of a foreign-key column from the kept parent rows (or the
// rows of this table so far, for a self reference).
func (t *table) fkValue(fk *foreignKey, i int, kept map[string][][]qeval.Value, self [][]qeval.Value, rng *rand.Rand, p profile, c *column) (qeval.Value, bool) {
	parents := kept[strings.ToLower(fk.parent)]
	if strings.EqualFold(fk.parent, t.name) {
		parents = self
	}
	pos := 0
	for k, ci := range fk.cols {
		if ci == i {
			pos = k
		}
	}
	if len(parents) == 0 {
		if !c.notNull {
			return qeval.Null, true
		}
		return qeval.Value{}, false
	}
	if !c.notNull && rng.Float64() < p.nullRate {
		return qeval.Null, true
	}
	return parents[pick(rng, len(parents), p.skew)][fk.pidx[pos]], true
}

func (t *table) inUnique(i int) bool {
	for _, u := range t.uniques {
		for _, c := range u {
			if c == i {
				return true
			}
		}
	}
	return false
}

func (t *table) singleUnique(i int) bool {
	for _, u := range t.uniques {
		if len(u) == 1 && u[0] == i {
			return true
		}
	}
	return false
}

// fresh returns a value of the column's kind not in used.
func fresh(c *column, used map[qeval.Value]bool) qeval.Value {
	kind := qeval.KindInt
	if len(c.pool) > 0 {
		kind = c.pool[0].Kind
	}
	for n := int64(len(used) + 1000); ; n++ {
		var v qeval.Value
		switch kind {
		case qeval.KindText:
			v = qeval.Text(fmt.Sprintf("%s_%d", strings.ToLower(c.name), n))
		case qeval.KindFloat:
			v = qeval.Float(float64(n) + 0.5)
		default:
			v = qeval.Int(n)
		}
		if !used[v] {
			return v
		}
	}
}
