package metric

import (
	"slices"

	"github.com/qeval/qeval"
)

// Column alignment: schema_match and results_match compare a generated result with the
// expected one column by column, and a column is known by its name. A system that names
// its columns its own way (count(TrackId) for count(*), a semantic layer's
// singer_count) returns the right values under another name; compared by name alone,
// a right answer would score 0. So before the seed's formulas apply, each expected
// column that no generated column matches by name is lined up with a generated column
// that holds the same values (the same cells over the compared rows: as a bag, else as
// a set), if one is left; that column then counts under the expected name. A column
// missing by value stays missing; extra generated columns stay free. The details say
// which rule applied (column_alignment: name, or value) and the columns lined up by
// value (column_mapping: expected → generated).

// alignment is how the generated columns were lined up with the expected ones.
type alignment struct {
	rule    string            // "name" or "value"
	mapping map[string]string // expected name → generated name, for columns lined up by value
}

func (a alignment) record(d map[string]any) {
	d["column_alignment"] = a.rule
	if len(a.mapping) > 0 {
		d["column_mapping"] = a.mapping
	}
}

// alignColumns returns gen with the generated columns that hold an unmatched expected
// column's values renamed to that column's name (the rows are shared, not copied).
func alignColumns(gen, exp *qeval.ResultSet, maxRows int, norm func(qeval.Value) string) (*qeval.ResultSet, alignment) {
	al := alignment{rule: "name"}
	if gen == nil || exp == nil {
		return gen, al
	}
	genNames := make([]string, len(gen.Columns))
	byName := map[string]int{}
	for j, c := range gen.Columns {
		genNames[j] = normName(c.Name)
		if _, ok := byName[genNames[j]]; !ok {
			byName[genNames[j]] = j
		}
	}
	used := make([]bool, len(gen.Columns))
	var unmatched []int
	for i, c := range exp.Columns {
		if j, ok := byName[normName(c.Name)]; ok && !used[j] {
			used[j] = true
			continue
		}
		unmatched = append(unmatched, i)
	}
	if len(unmatched) == 0 {
		return gen, al
	}
	genRows, expRows := head(gen.Rows, maxRows), head(exp.Rows, maxRows)
	genCols := make([]columnValues, len(gen.Columns))
	for j := range gen.Columns {
		genCols[j] = valuesOf(genRows, j, norm)
	}
	renamed := slices.Clone(gen.Columns)
	for _, i := range unmatched {
		want := valuesOf(expRows, i, norm)
		j := pickColumn(want, genCols, used)
		if j < 0 {
			continue // missing by value too
		}
		used[j] = true
		if al.mapping == nil {
			al.mapping = map[string]string{}
		}
		al.mapping[exp.Columns[i].Name] = gen.Columns[j].Name
		renamed[j].Name = exp.Columns[i].Name
	}
	if al.mapping == nil {
		return gen, al
	}
	al.rule = "value"
	out := *gen
	out.Columns = renamed
	return &out, al
}

// columnValues are a column's cells, normalised and sorted (bag), and their distinct
// values (set).
type columnValues struct{ bag, set []string }

func valuesOf(rows [][]qeval.Value, col int, norm func(qeval.Value) string) columnValues {
	bag := make([]string, 0, len(rows))
	for _, r := range rows {
		v := qeval.Null
		if col < len(r) {
			v = r[col]
		}
		bag = append(bag, norm(v))
	}
	slices.Sort(bag)
	return columnValues{bag: bag, set: slices.Compact(slices.Clone(bag))}
}

// pickColumn is the first unused generated column holding the same bag of values, else
// the same set; -1 when none does. An empty expected column lines up with nothing.
func pickColumn(want columnValues, cols []columnValues, used []bool) int {
	if len(want.bag) == 0 {
		return -1
	}
	for _, same := range []func(columnValues) bool{
		func(c columnValues) bool { return slices.Equal(c.bag, want.bag) },
		func(c columnValues) bool { return slices.Equal(c.set, want.set) },
	} {
		for j, c := range cols {
			if !used[j] && same(c) {
				return j
			}
		}
	}
	return -1
}
