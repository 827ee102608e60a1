package metric

import (
	"context"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/qeval/qeval"
)

// DefaultMaxRows is how many rows of each result the results match compares.
const DefaultMaxRows = 100

// ResultsMatch scores how many expected rows the generated rows contain: the share of
// the first maxRows expected rows (DefaultMaxRows when maxRows is 0, all when < 0) that
// are found among the first maxRows generated rows.
//
// Rows are compared as records, so neither row order nor field order matters. As the
// seed says, keys are lower-cased and values compared as their strings: text exactly
// as it is, an integer in decimal, a float in its shortest form (3.0 stays "3.0", so it
// differs from 3), NULL apart from every text (never the string "null"). The lenient
// variant (ResultsMatchLenient, a suite's `lenient_results: true`) also trims and
// lower-cases text, reads text that looks like a number as that number, writes 3.0 as
// "3" and rounds other floats to 6 decimals. An expected row is found in a
// generated row that has every one of its keys with the same value (extra generated
// fields are allowed). Each generated row matches at most one expected row; rows are
// matched greedily in order, which is exact when all expected rows have the same keys.
// No expected rows: 1 when there are no generated rows either, else 0.
//
// Details: expected_rows, generated_rows (compared counts), matched, missing_rows (up to
// 5 examples of expected rows not found), truncated (whether rows were cut).
func ResultsMatch(generated, expected []map[string]any, maxRows int) Result {
	return resultsMatchWith(generated, expected, maxRows, seedValue)
}

// ResultsMatchLenient is ResultsMatch with values normalised (see ResultsMatch).
func ResultsMatchLenient(generated, expected []map[string]any, maxRows int) Result {
	return resultsMatchWith(generated, expected, maxRows, normValue)
}

func resultsMatchWith(generated, expected []map[string]any, maxRows int, norm func(qeval.Value) string) Result {
	r := matchRecords(recordsOfMaps(head(generated, maxRows), norm), recordsOfMaps(head(expected, maxRows), norm),
		maxRows, len(generated), len(expected))
	r.Details["values"] = valuesRule(norm)
	return r
}

func valuesRule(norm func(qeval.Value) string) string {
	if reflect.ValueOf(norm).Pointer() == reflect.ValueOf(normValue).Pointer() {
		return "lenient"
	}
	return "exact strings"
}

// anyValue is a cell of a record given as JSON or by a Go caller, as a Value.
func anyValue(x any) qeval.Value {
	switch t := x.(type) {
	case qeval.Value:
		return t
	case int:
		return qeval.Int(int64(t))
	case int64:
		return qeval.Int(t)
	case int32:
		return qeval.Int(int64(t))
	case float32:
		return qeval.Float(float64(t))
	case []byte:
		return qeval.Bytes(t)
	case time.Time:
		return qeval.Time(t)
	}
	return qeval.FromJSON(x)
}

// nullString is NULL in the exact-strings rule: no text equals it.
const nullString = "\x00NULL"

// seedValue is a value as the seed compares it: its string, exactly.
func seedValue(v qeval.Value) string {
	switch v.Kind {
	case qeval.KindNull:
		return nullString
	case qeval.KindInt:
		return strconv.FormatInt(v.Int, 10)
	case qeval.KindFloat:
		s := strconv.FormatFloat(v.Float, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eEn") { // 3 → "3.0", as a float prints
			s += ".0"
		}
		return s
	case qeval.KindBool:
		if v.Int != 0 {
			return "true"
		}
		return "false"
	case qeval.KindTime:
		return v.AsTime().Format(time.RFC3339Nano)
	}
	return v.Str
}

func head[T any](rows []T, maxRows int) []T {
	if maxRows == 0 {
		maxRows = DefaultMaxRows
	}
	if maxRows > 0 && len(rows) > maxRows {
		return rows[:maxRows]
	}
	return rows
}

// ResultSetsMatch is ResultsMatch on result sets: a column is a key, its cells the values.
// Repeated column names get a "#2", "#3"... suffix.
func ResultSetsMatch(generated, expected *qeval.ResultSet, maxRows int) Result {
	return resultSetsMatchWith(generated, expected, maxRows, seedValue)
}

// ResultSetsMatchLenient is ResultSetsMatch with values normalised (see ResultsMatch).
func ResultSetsMatchLenient(generated, expected *qeval.ResultSet, maxRows int) Result {
	return resultSetsMatchWith(generated, expected, maxRows, normValue)
}

func resultSetsMatchWith(generated, expected *qeval.ResultSet, maxRows int, norm func(qeval.Value) string) Result {
	r := matchRecords(recordsOfSet(generated, maxRows, norm), recordsOfSet(expected, maxRows, norm), maxRows,
		generated.NumRows(), expected.NumRows())
	r.Details["values"] = valuesRule(norm)
	return r
}

// record is a row as sorted (key, value) pairs.
type record []kv

type kv struct{ k, v string }

func (r record) keyset() string {
	var b strings.Builder
	for _, f := range r {
		b.WriteString(f.k)
		b.WriteByte(0)
	}
	return b.String()
}

// project returns the values of r for the sorted keys ks, joined, and whether r has them all.
func (r record) project(ks []string) (string, bool) {
	var b strings.Builder
	i := 0
	for _, k := range ks {
		for i < len(r) && r[i].k < k {
			i++
		}
		if i == len(r) || r[i].k != k {
			return "", false
		}
		b.WriteString(r[i].v)
		b.WriteByte(0)
	}
	return b.String(), true
}

func recordsOfMaps(rows []map[string]any, norm func(qeval.Value) string) []record {
	out := make([]record, len(rows))
	for i, row := range rows {
		r := make(record, 0, len(row))
		for k, v := range row {
			r = append(r, kv{strings.ToLower(strings.TrimSpace(k)), norm(anyValue(v))})
		}
		slices.SortFunc(r, func(a, b kv) int { return strings.Compare(a.k, b.k) })
		out[i] = r
	}
	return out
}

func recordsOfSet(rs *qeval.ResultSet, maxRows int, norm func(qeval.Value) string) []record {
	if rs == nil {
		return nil
	}
	rows := head(rs.Rows, maxRows)
	keys := make([]string, len(rs.Columns))
	seen := map[string]int{}
	for i, c := range rs.Columns {
		k := strings.ToLower(strings.TrimSpace(c.Name))
		seen[k]++
		if seen[k] > 1 {
			k += "#" + strconv.Itoa(seen[k])
		}
		keys[i] = k
	}
	order := make([]int, len(keys))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(keys[a], keys[b]) })
	out := make([]record, len(rows))
	for i, row := range rows {
		r := make(record, 0, len(order))
		for _, j := range order {
			v := qeval.Null
			if j < len(row) {
				v = row[j]
			}
			r = append(r, kv{keys[j], norm(v)})
		}
		out[i] = r
	}
	return out
}

func matchRecords(gen, exp []record, maxRows, genTotal, expTotal int) Result {
	gen, exp = head(gen, maxRows), head(exp, maxRows)
	d := map[string]any{
		"expected_rows":  len(exp),
		"generated_rows": len(gen),
		"truncated":      len(gen) < genTotal || len(exp) < expTotal,
	}
	if len(exp) == 0 {
		d["matched"] = 0
		d["missing_rows"] = []map[string]string{}
		if len(gen) == 0 {
			return Scored(1, d)
		}
		return Scored(0, d)
	}
	used := make([]bool, len(gen))
	// For each key set of the expected rows, index the unused generated rows by their
	// projection on those keys.
	index := map[string]map[string][]int{}
	matched := 0
	missing := []map[string]string{}
	for _, e := range exp {
		ks := e.keyset()
		idx, ok := index[ks]
		if !ok {
			keys := make([]string, len(e))
			for i, f := range e {
				keys[i] = f.k
			}
			idx = map[string][]int{}
			for gi, g := range gen {
				if p, ok := g.project(keys); ok {
					idx[p] = append(idx[p], gi)
				}
			}
			index[ks] = idx
		}
		var b strings.Builder
		for _, f := range e {
			b.WriteString(f.v)
			b.WriteByte(0)
		}
		p := b.String()
		found := false
		cands := idx[p]
		for len(cands) > 0 {
			gi := cands[0]
			cands = cands[1:]
			if !used[gi] {
				used[gi], found = true, true
				break
			}
		}
		idx[p] = cands
		if found {
			matched++
		} else if len(missing) < 5 {
			m := make(map[string]string, len(e))
			for _, f := range e {
				if f.v == nullString {
					f.v = "NULL"
				}
				m[f.k] = f.v
			}
			missing = append(missing, m)
		}
	}
	d["matched"] = matched
	d["missing_rows"] = missing
	return Scored(float64(matched)/float64(len(exp)), d)
}

func resultsMatch(_ context.Context, c *Case, o *Options) (Result, error) {
	norm := seedValue
	if o.LenientResults {
		norm = normValue
	}
	if c.ExpectedRows != nil && c.GeneratedRows != nil {
		return resultsMatchWith(c.GeneratedRows, c.ExpectedRows, o.MaxRows, norm), nil
	}
	gen, exp := c.results()
	if gen != nil && exp != nil {
		aligned, al := alignColumns(gen, exp, o.MaxRows, norm)
		r := resultSetsMatchWith(aligned, exp, o.MaxRows, norm)
		al.record(r.Details)
		return r, nil
	}
	if v := c.Execution; v != nil {
		why := string(v.Outcome)
		if v.Error != "" {
			why += ": " + v.Error
		}
		if exp == nil {
			return Skip("no expected result (" + why + ")"), nil
		}
		return Skip("no generated result (" + why + ")"), nil
	}
	if c.ExecutionSkipped != "" {
		return Skip("no results: " + c.ExecutionSkipped), nil
	}
	if exp == nil {
		return Skip("no expected result (the queries were not run on a database)"), nil
	}
	if gen == nil {
		return Skip("no generated result (the generated query was not run)"), nil
	}
	return resultSetsMatchWith(gen, exp, o.MaxRows, norm), nil
}

// results returns the result sets of the case: its own, else those of its execution verdict.
func (c *Case) results() (gen, exp *qeval.ResultSet) {
	gen, exp = c.GeneratedResult, c.ExpectedResult
	if c.Execution != nil {
		if gen == nil {
			gen = c.Execution.Pred
		}
		if exp == nil {
			exp = c.Execution.Gold
		}
	}
	return gen, exp
}
