package kqlexec

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/qeval/qeval/kql"
)

// reduce translates reduce [kind=source] by Expr [with threshold=T, characters=C]
// (the reduce-operator page). The strings are clustered as in the paper the page
// names (Vaarandi's SLCT), computed by the Go aggregate reduce over all rows:
//
//   - a string is split into terms at the separator characters (characters=, else
//     every character that is not an ASCII letter or digit); a separator belongs to
//     the term after it, so a term keeps its place in the text;
//   - a word is a term at its position; it is frequent when more than threshold
//     (default 0.1) of the rows have it;
//   - rows with the same frequent words form a candidate, and a candidate of more
//     than threshold of the rows is a group: its Pattern is its first row with every
//     run of infrequent terms written *, its Count its rows, its Representative its
//     first row;
//   - the other rows are one group, Pattern "others", with an empty Representative.
//
// kind=source keeps the rows and adds their Pattern. The groups come in the order of
// their first row, then others.
func (t *translator) reduce(in *rel, o *kql.ReduceOp, e *env) (*rel, error) {
	sc := inScope(in, e)
	by, err := t.expr(o.By, sc)
	if err != nil {
		return nil, err
	}
	by = coerce(by, TString)
	threshold, chars, custom := 0.1, "", false
	for _, p := range o.With {
		switch strings.ToLower(p.Name) {
		case "threshold":
			x, err := t.expr(p.Value, &scope{env: e})
			if err != nil {
				return nil, err
			}
			f, ok := toReal(x.lit)
			if !x.isLit || !ok || f < 0 || f > 1 {
				return nil, t.errAt(p, "reduce: threshold must be a constant between 0 and 1")
			}
			threshold = f
		case "characters":
			x, err := t.expr(p.Value, &scope{env: e})
			if err != nil {
				return nil, err
			}
			s, ok := x.lit.(string)
			if !x.isLit || !ok {
				return nil, t.errAt(p, "reduce: characters must be a constant string")
			}
			chars, custom = s, true
		default:
			return nil, t.errAt(p, "reduce: unknown parameter %q (known: characters, threshold)", p.Name)
		}
	}
	kind := ""
	if k, ok := o.Param("kind").(*kql.Ident); ok {
		kind = strings.ToLower(k.Name)
		if kind != "source" {
			return nil, t.errAt(k, "reduce: kind is source, not %q", k.Name)
		}
	}
	mode := "groups"
	if kind == "source" {
		mode = "source"
	}
	model := t.stage([]column{{"model", TDynamic}}, "SELECT "+aggCall("reduce", TDynamic, by, lit(threshold, TReal), lit(chars, TString), lit(custom, TBool), lit(mode, TString)).sql+", 0 FROM "+in.from+" t")
	t.materialize(model)
	if kind == "source" {
		cols := append(append([]column(nil), in.cols...), column{"Pattern", TString})
		pat := call("reduce_pattern", TString, expr{sql: "m.c0", t: TDynamic}, by)
		sel := "SELECT " + strings.Join(append(selectCols(in), pat.sql, "t._o"), ", ") + " FROM " + in.from + " t, " + model.from + " m"
		return t.stage(cols, sel), nil
	}
	cols := []column{{"Pattern", TString}, {"Count", TLong}, {"Representative", TString}}
	sel := "SELECT json_extract(j.value, '$[0]'), json_extract(j.value, '$[1]'), json_extract(j.value, '$[2]'), j.key FROM " + model.from + " m, json_each(m.c0) j"
	return t.stage(cols, sel), nil
}

// reduceAgg collects the strings reduce clusters.
type reduceAgg struct {
	vals   []string
	thr    float64
	chars  string
	custom bool
	mode   string
}

func (r *reduceAgg) step(a []any) {
	s, _ := a[0].(string)
	r.vals = append(r.vals, s)
	r.thr, _ = toReal(a[1])
	r.chars, _ = a[2].(string)
	r.custom, _ = a[3].(bool)
	r.mode, _ = a[4].(string)
}

func (r *reduceAgg) done() any {
	groups, of := slct(r.vals, r.thr, r.separator())
	if r.mode == "source" {
		m := map[string]any{}
		for i, v := range r.vals {
			p := "others"
			if of[i] >= 0 {
				p = groups[of[i]].pattern
			}
			m[v] = p
		}
		return Dyn{m}
	}
	out := []any{}
	others := 0
	for _, g := range groups {
		out = append(out, []any{g.pattern, json.Number(strconv.Itoa(g.count)), g.rep})
	}
	for _, k := range of {
		if k < 0 {
			others++
		}
	}
	if others > 0 {
		out = append(out, []any{"others", json.Number(strconv.Itoa(others)), ""})
	}
	return Dyn{out}
}

// separator reports whether a character separates terms.
func (r *reduceAgg) separator() func(rune) bool {
	if r.custom {
		return func(c rune) bool { return strings.ContainsRune(r.chars, c) }
	}
	return func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9')
	}
}

// reduceGroup is one group of reduce.
type reduceGroup struct {
	pattern string
	count   int
	rep     string
}

// reduceTerms splits s into terms, each with the separators before it.
func reduceTerms(s string, sep func(rune) bool) []string {
	var out []string
	start, inTerm := 0, false
	for i, c := range s {
		if sep(c) {
			if inTerm {
				out = append(out, s[start:i])
				start, inTerm = i, false
			}
			continue
		}
		inTerm = true
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// slct clusters vals (see reduce); of[i] is the group of vals[i], -1 for others.
func slct(vals []string, thr float64, sep func(rune) bool) ([]reduceGroup, []int) {
	support := thr * float64(len(vals))
	terms := make([][]string, len(vals))
	freq := map[string]int{}
	word := func(pos int, term string) string { return strconv.Itoa(pos) + "\x00" + term }
	for i, v := range vals {
		terms[i] = reduceTerms(v, sep)
		for p, w := range terms[i] {
			freq[word(p, w)]++
		}
	}
	keys := make([]string, len(vals))
	cands := map[string]int{}
	for i := range vals {
		var b strings.Builder
		for p, w := range terms[i] {
			if float64(freq[word(p, w)]) > support {
				b.WriteString(word(p, w))
				b.WriteByte('\x01')
			}
		}
		keys[i] = b.String()
		if keys[i] != "" {
			cands[keys[i]]++
		}
	}
	var groups []reduceGroup
	index := map[string]int{}
	of := make([]int, len(vals))
	for i, k := range keys {
		of[i] = -1
		if k == "" || float64(cands[k]) <= support {
			continue
		}
		g, ok := index[k]
		if !ok {
			g = len(groups)
			index[k] = g
			groups = append(groups, reduceGroup{pattern: reducePattern(terms[i], freq, support, word), rep: vals[i]})
		}
		groups[g].count++
		of[i] = g
	}
	return groups, of
}

// reducePattern writes a group's first row with each run of infrequent terms as *.
func reducePattern(terms []string, freq map[string]int, support float64, word func(int, string) string) string {
	var b strings.Builder
	star := false
	for p, w := range terms {
		if float64(freq[word(p, w)]) > support {
			b.WriteString(w)
			star = false
			continue
		}
		if !star {
			b.WriteByte('*')
			star = true
		}
	}
	return b.String()
}

func reduceFuncs(def func(string, *fnDef)) {
	// reduce_pattern(model, value) is the Pattern of value in reduce kind=source's
	// model (a bag from each value to its pattern)
	def("reduce_pattern", fixed(TString, func(a []any) any {
		m, _ := a[0].(Dyn)
		bag, _ := m.V.(map[string]any)
		p, _ := bag[a[1].(string)].(string)
		return p
	}, TDynamic, TString))
}
