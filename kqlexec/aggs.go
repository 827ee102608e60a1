package kqlexec

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
)

// aggImpl is one running Go aggregate.
type aggImpl interface {
	step(a []any)
	done() any
}

// aggFactories build the Go aggregates by name. Their arguments arrive decoded, as
// for scalar functions.
var aggFactories = map[string]func() aggImpl{
	"make_list":            func() aggImpl { return &listAgg{} },
	"make_list_if":         func() aggImpl { return &listAgg{cond: true} },
	"make_set_if":          func() aggImpl { return &listAgg{cond: true, set: true, seen: map[string]bool{}} },
	"make_bag_if":          func() aggImpl { return &bagAgg{cond: true, m: map[string]any{}} },
	"take_anyif":           func() aggImpl { return &anyAgg{cond: true} },
	"make_list_with_nulls": func() aggImpl { return &listAgg{nulls: true} },
	"make_set":             func() aggImpl { return &listAgg{set: true, seen: map[string]bool{}} },
	"make_bag":             func() aggImpl { return &bagAgg{m: map[string]any{}} },
	"merge_lists":          func() aggImpl { return &listAgg{flatten: true} },
	"weighted_list":        func() aggImpl { return &listAgg{weighted: true} },
	"series_build":         func() aggImpl { return &seriesAgg{} },
	"take_any":             func() aggImpl { return &anyAgg{} },
	"first":                func() aggImpl { return &firstAgg{} },
	"arg_max":              func() aggImpl { return &argAgg{sign: 1} },
	"arg_min":              func() aggImpl { return &argAgg{sign: -1} },
	"percentile":           func() aggImpl { return &pctAgg{} },
	"percentilew":          func() aggImpl { return &pctAgg{weighted: true} },
	"percentiles_array":    func() aggImpl { return &pctAgg{array: true} },
	"percentilesw_array":   func() aggImpl { return &pctAgg{array: true, weighted: true} },
	"stdev":                func() aggImpl { return &momentAgg{kind: "stdev"} },
	"stdevp":               func() aggImpl { return &momentAgg{kind: "stdevp"} },
	"variance":             func() aggImpl { return &momentAgg{kind: "variance"} },
	"variancep":            func() aggImpl { return &momentAgg{kind: "variancep"} },
	"covariance":           func() aggImpl { return &covAgg{kind: "covariance"} },
	"covariancep":          func() aggImpl { return &covAgg{kind: "covariancep"} },
	"corr":                 func() aggImpl { return &covAgg{kind: "corr"} },
	"binary_all_and":       func() aggImpl { return &bitAgg{op: "and"} },
	"binary_all_or":        func() aggImpl { return &bitAgg{op: "or"} },
	"binary_all_xor":       func() aggImpl { return &bitAgg{op: "xor"} },
	"buildschema":          func() aggImpl { return &schemaAgg{} },
	"reduce":               func() aggImpl { return &reduceAgg{} },
}

// goAgg is the SQLite aggregate ka(name, signature, args...).
type goAgg struct {
	impl  aggImpl
	types []Type
	err   error
}

func newGoAgg() *goAgg { return &goAgg{} }

func (g *goAgg) Step(args ...any) {
	if g.err != nil || len(args) < 2 {
		return
	}
	defer func() {
		if r := recover(); r != nil {
			g.err = fmt.Errorf("%v: internal error: %v", args[0], r)
		}
	}()
	if g.impl == nil {
		name, _ := args[0].(string)
		f, ok := aggFactories[name]
		if !ok {
			g.err = fmt.Errorf("unknown aggregate %s", name)
			return
		}
		sig, _ := args[1].(string)
		types, err := signature(sig)
		if err != nil || len(types) != len(args)-1 {
			g.err = fmt.Errorf("%s: bad signature %q", name, sig)
			return
		}
		g.impl, g.types = f(), types
	}
	vals := make([]any, len(args)-2)
	for i := range vals {
		vals[i] = decode(args[i+2], g.types[i])
	}
	g.impl.step(vals)
}

func (g *goAgg) Done() (any, error) {
	if g.err != nil {
		return nil, g.err
	}
	if g.impl == nil {
		return nil, nil
	}
	return encode(g.impl.done(), g.types[len(g.types)-1]), nil
}

type listAgg struct {
	nulls, set, flatten, cond, weighted bool
	seen                                map[string]bool
	out                                 []any
	max                                 int64
}

func (l *listAgg) step(a []any) {
	if l.weighted {
		w, _ := toLong(a[1])
		if a[0] == nil {
			return
		}
		for i := int64(0); i < w && len(l.out) < 1<<20; i++ {
			l.out = append(l.out, toJSONValue(a[0]))
		}
		return
	}
	mi := 1
	if l.cond {
		if b, _ := a[1].(bool); !b {
			return
		}
		mi = 2
	}
	if len(a) > mi {
		if m, ok := a[mi].(int64); ok {
			l.max = m
		}
	}
	if l.max > 0 && int64(len(l.out)) >= l.max {
		return
	}
	v := a[0]
	if l.flatten {
		if d, ok := v.(Dyn); ok {
			if arr, ok := d.V.([]any); ok {
				l.out = append(l.out, arr...)
			}
		}
		return
	}
	if v == nil && !l.nulls {
		return
	}
	j := toJSONValue(v)
	if l.set {
		if d, ok := v.(Dyn); ok {
			if arr, ok := d.V.([]any); ok {
				for _, e := range arr {
					l.addSet(e)
				}
				return
			}
		}
		l.addSet(j)
		return
	}
	if d, ok := v.(Dyn); ok && !l.nulls {
		// an array value adds its elements, as in Kusto
		if arr, ok := d.V.([]any); ok {
			l.out = append(l.out, arr...)
			return
		}
	}
	l.out = append(l.out, j)
}

func (l *listAgg) addSet(j any) {
	k := jsonText(j)
	if l.seen[k] {
		return
	}
	l.seen[k] = true
	l.out = append(l.out, j)
}

func (l *listAgg) done() any {
	if l.out == nil {
		return Dyn{[]any{}}
	}
	return Dyn{l.out}
}

type bagAgg struct {
	m    map[string]any
	cond bool
}

func (b *bagAgg) step(a []any) {
	if b.cond {
		if ok, _ := a[1].(bool); !ok {
			return
		}
	}
	d, ok := a[0].(Dyn)
	if !ok {
		return
	}
	m, ok := d.V.(map[string]any)
	if !ok {
		return
	}
	for k, v := range m {
		if _, dup := b.m[k]; !dup {
			b.m[k] = v
		}
	}
}

func (b *bagAgg) done() any { return Dyn{b.m} }

type anyAgg struct {
	v         any
	set, cond bool
}

func (x *anyAgg) step(a []any) {
	if x.cond {
		if ok, _ := a[1].(bool); !ok {
			return
		}
	}
	if !x.set && a[0] != nil {
		if d, ok := a[0].(Dyn); ok && d.V == nil {
			return
		}
		if s, ok := a[0].(string); ok && s == "" {
			return
		}
		x.v, x.set = a[0], true
	}
}

func (x *anyAgg) done() any { return x.v }

// argAgg keeps the value that goes with the largest (sign 1) or smallest key; with no
// non-null key it keeps the first row's value, as Kusto does.
type argAgg struct {
	sign  int
	key   any
	v     any
	first bool
}

func (x *argAgg) step(a []any) {
	k, v := a[0], a[1]
	if !x.first {
		x.first = true
		x.key, x.v = k, v
		return
	}
	if k == nil {
		return
	}
	if x.key == nil {
		x.key, x.v = k, v
		return
	}
	if c, ok := compareVals(k, x.key); ok && c*x.sign > 0 {
		x.key, x.v = k, v
	}
}

func (x *argAgg) done() any { return x.v }

type pctAgg struct {
	weighted, array bool
	vals            []any
	weights         []int64
	ps              []float64
}

func (p *pctAgg) step(a []any) {
	i := 1
	var w int64 = 1
	if p.weighted {
		w, _ = toLong(a[1])
		i = 2
	}
	if p.ps == nil {
		for _, x := range a[i:] {
			if d, ok := x.(Dyn); ok {
				if arr, ok := d.V.([]any); ok {
					for _, e := range arr {
						if f, ok := toReal(Dyn{e}); ok {
							p.ps = append(p.ps, f)
						}
					}
				}
				continue
			}
			if f, ok := toReal(x); ok {
				p.ps = append(p.ps, f)
			}
		}
	}
	if a[0] == nil || w <= 0 {
		return
	}
	p.vals = append(p.vals, a[0])
	p.weights = append(p.weights, w)
}

// done uses the nearest-rank method: the smallest value whose cumulative weight
// reaches p percent of the total, which is what Kusto returns on small inputs.
func (p *pctAgg) done() any {
	if len(p.vals) == 0 {
		if p.array {
			return Dyn{[]any{}}
		}
		return nil
	}
	idx := make([]int, len(p.vals))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool {
		c, _ := compareVals(p.vals[idx[i]], p.vals[idx[j]])
		return c < 0
	})
	var total int64
	for _, w := range p.weights {
		total += w
	}
	pick := func(pc float64) any {
		need := int64(math.Ceil(pc / 100 * float64(total)))
		if need < 1 {
			need = 1
		}
		var cum int64
		for _, i := range idx {
			cum += p.weights[i]
			if cum >= need {
				return p.vals[i]
			}
		}
		return p.vals[idx[len(idx)-1]]
	}
	if !p.array {
		if len(p.ps) == 0 {
			return nil
		}
		return pick(p.ps[0])
	}
	out := make([]any, len(p.ps))
	for i, pc := range p.ps {
		out[i] = toJSONValue(pick(pc))
	}
	return Dyn{out}
}

type momentAgg struct {
	kind string
	xs   []float64
}

func (m *momentAgg) step(a []any) {
	if f, ok := toReal(a[0]); ok && a[0] != nil {
		m.xs = append(m.xs, f)
	}
}

func (m *momentAgg) done() any {
	n := float64(len(m.xs))
	if n == 0 {
		return nil
	}
	var mean float64
	for _, x := range m.xs {
		mean += x
	}
	mean /= n
	var ss float64
	for _, x := range m.xs {
		ss += (x - mean) * (x - mean)
	}
	switch m.kind {
	case "variance", "stdev":
		if n < 2 {
			return 0.0
		}
		v := ss / (n - 1)
		if m.kind == "stdev" {
			return math.Sqrt(v)
		}
		return v
	}
	v := ss / n
	if m.kind == "stdevp" {
		return math.Sqrt(v)
	}
	return v
}

type covAgg struct {
	kind   string
	xs, ys []float64
}

func (c *covAgg) step(a []any) {
	x, ok1 := toReal(a[0])
	y, ok2 := toReal(a[1])
	if a[0] == nil || a[1] == nil || !ok1 || !ok2 {
		return
	}
	c.xs = append(c.xs, x)
	c.ys = append(c.ys, y)
}

func (c *covAgg) done() any {
	n := float64(len(c.xs))
	if n == 0 {
		return nil
	}
	var mx, my float64
	for i := range c.xs {
		mx += c.xs[i]
		my += c.ys[i]
	}
	mx /= n
	my /= n
	var sxy, sxx, syy float64
	for i := range c.xs {
		dx, dy := c.xs[i]-mx, c.ys[i]-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	switch c.kind {
	case "covariance":
		if n < 2 {
			return 0.0
		}
		return sxy / (n - 1)
	case "covariancep":
		return sxy / n
	}
	if sxx == 0 || syy == 0 {
		return math.NaN()
	}
	return sxy / math.Sqrt(sxx*syy)
}

type bitAgg struct {
	op  string
	v   int64
	set bool
}

func (b *bitAgg) step(a []any) {
	x, ok := a[0].(int64)
	if !ok {
		return
	}
	if !b.set {
		b.v, b.set = x, true
		return
	}
	switch b.op {
	case "and":
		b.v &= x
	case "or":
		b.v |= x
	case "xor":
		b.v ^= x
	}
}

func (b *bitAgg) done() any {
	if !b.set {
		return nil
	}
	return b.v
}

// seriesAgg folds (bin, value) rows into an array of n bins holding the default
// where no row is.
type seriesAgg struct {
	vals map[int64]any
	n    int64
	def  any
}

func (s *seriesAgg) step(a []any) {
	if s.vals == nil {
		s.vals = map[int64]any{}
		s.n, _ = toLong(a[2])
		s.def = toDyn(a[3]).V
	}
	if k, ok := a[0].(int64); ok && k >= 0 && k < s.n {
		s.vals[k] = toJSONValue(a[1])
	}
}

func (s *seriesAgg) done() any {
	out := make([]any, max(s.n, 0))
	for i := range out {
		if v, ok := s.vals[int64(i)]; ok && v != nil {
			out[i] = v
		} else {
			out[i] = s.def
		}
	}
	return Dyn{out}
}

// firstAgg keeps the first row's value, null or not (take_any(*) reads one row).
type firstAgg struct {
	v   any
	set bool
}

func (f *firstAgg) step(a []any) {
	if !f.set {
		f.v, f.set = a[0], true
	}
}

func (f *firstAgg) done() any { return f.v }

// schemaAgg is buildschema(): the smallest schema that admits every value. A schema
// is the alternatives seen, in the order first seen: scalar type names (long, double,
// string, bool), one object (a schema per key) and one array (the schema of its items
// under "`indexer`"); one alternative stands alone, several make a list.
type schemaAgg struct{ s schemaNode }

type schemaNode struct {
	alts  []string // "t:long", "obj", "arr", in the order first seen
	keys  map[string]*schemaNode
	items *schemaNode
}

func (n *schemaNode) has(alt string) bool {
	for _, a := range n.alts {
		if a == alt {
			return true
		}
	}
	return false
}

func (n *schemaNode) add(v any) {
	alt := ""
	switch x := v.(type) {
	case nil:
		return
	case map[string]any:
		alt = "obj"
		if n.keys == nil {
			n.keys = map[string]*schemaNode{}
		}
		for k, e := range x {
			c := n.keys[k]
			if c == nil {
				c = &schemaNode{}
				n.keys[k] = c
			}
			c.add(e)
		}
	case []any:
		alt = "arr"
		if n.items == nil {
			n.items = &schemaNode{}
		}
		for _, e := range x {
			n.items.add(e)
		}
	case json.Number:
		alt = "t:double"
		if _, err := x.Int64(); err == nil && !strings.ContainsAny(string(x), ".eE") {
			alt = "t:long"
		}
	case float64:
		alt = "t:double"
	case int64:
		alt = "t:long"
	case bool:
		alt = "t:bool"
	default:
		alt = "t:string"
	}
	if !n.has(alt) {
		n.alts = append(n.alts, alt)
	}
}

func (n *schemaNode) value() any {
	var out []any
	for _, a := range n.alts {
		switch a {
		case "obj":
			m := make(map[string]any, len(n.keys))
			for k, c := range n.keys {
				m[k] = c.value()
			}
			out = append(out, m)
		case "arr":
			out = append(out, map[string]any{"`indexer`": n.items.value()})
		default:
			out = append(out, a[2:])
		}
	}
	switch len(out) {
	case 0:
		return nil
	case 1:
		return out[0]
	}
	return out
}

func (a *schemaAgg) step(v []any) {
	if d, ok := v[0].(Dyn); ok {
		a.s.add(d.V)
	}
}

func (a *schemaAgg) done() any {
	if len(a.s.alts) == 0 {
		return nil
	}
	return Dyn{a.s.value()}
}
