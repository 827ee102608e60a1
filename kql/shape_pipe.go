package kql

import (
	"github.com/qeval/qeval"
)

// source walks an expression in table position and returns the base table it reads
// first ("" when it is not a known table).
func (x *shaper) source(e Expr, ctx *pipeCtx) string {
	if isNil(e) {
		return ""
	}
	switch e := e.(type) {
	case *Ident:
		if b, ok := x.scope.lookup(e.Name); ok {
			return b.table
		}
		if e.Name == "" || e.Name[0] == '$' {
			return ""
		}
		x.addTable(e.Name)
		ctx.table = e.Name
		return e.Name
	case *Paren:
		return x.source(e.X, ctx)
	case *PipeExpr:
		return x.pipe(e, ctx)
	case *Member:
		if t := x.tableRef(e); t != "" {
			x.addTable(t)
			ctx.table = t
			return t
		}
		x.scalar(e, ctx)
		return ""
	case *Call:
		switch e.Name() {
		case "table", "external_table", "materialized_view":
			if len(e.Args) > 0 {
				if l, ok := e.Args[0].(*Literal); ok && l.Kind == LitString {
					x.addTable(l.Value)
					ctx.table = l.Value
					return l.Value
				}
			}
		case "materialize", "view":
			if len(e.Args) > 0 {
				return x.source(e.Args[0], ctx)
			}
		}
		x.scalar(e, ctx)
		return ""
	case *DatatableExpr:
		x.scalar(e, ctx)
		x.setOut(ctx, declNames(e.Columns))
		x.deriveAll(ctx, ctx.out)
		return ""
	case *ExternalDataExpr:
		x.scalar(e, ctx)
		x.setOut(ctx, declNames(e.Columns))
		x.deriveAll(ctx, ctx.out)
		return ""
	case Operator:
		x.operator(e, ctx)
		return ctx.table
	}
	x.scalar(e, ctx)
	return ""
}

func declNames(cols []*ColumnDecl) []string {
	out := make([]string, 0, len(cols))
	for _, c := range cols {
		out = append(out, c.Name.Name)
	}
	return out
}

// pipe walks Source | ops. A pipeline without a source (mv-apply, fork, partition
// bodies) continues the context it is given.
func (x *shaper) pipe(pe *PipeExpr, ctx *pipeCtx) string {
	base := ""
	if pe.Source != nil {
		base = x.source(pe.Source, ctx)
	}
	for _, op := range pe.Ops {
		x.operator(op, ctx)
	}
	return base
}

// sub returns a fresh context for a nested pipeline (join right side, subquery).
func sub() *pipeCtx { return &pipeCtx{} }

// inner returns a context for an operator-only body that reads the current rows.
func inner(ctx *pipeCtx) *pipeCtx { return &pipeCtx{table: ctx.table, derived: ctx.derived} }

func (x *shaper) params(ps []*OpParam, ctx *pipeCtx) {
	for _, p := range ps {
		if p.Name == "hint.shufflekey" {
			x.scalar(p.Value, ctx)
		}
	}
}

func (x *shaper) operator(op Operator, ctx *pipeCtx) {
	x.sh.Operators = append(x.sh.Operators, op.OpName())
	x.params(op.(interface{ base() *OpBase }).base().Params, ctx)
	switch o := op.(type) {
	case *WhereOp:
		if o.Name == "where" || o.Name == "filter" {
			x.filters(o.Pred, false)
		}
		x.scalar(o.Pred, ctx)
	case *ProjectOp:
		x.items(o.Items, ctx)
		x.setOut(ctx, x.itemNames(o.Items, ctx, "Column"))
	case *ProjectAwayOp:
		x.exprs(o.Columns, ctx)
		if ctx.outOK {
			ctx.out = keepNames(ctx.out, o.Columns, o.Name == "project-keep")
		}
	case *ProjectRenameOp:
		for _, it := range o.Items {
			x.scalar(it.Value, ctx)
			for _, n := range it.Names {
				ctx.derive(n.Name)
			}
			if ctx.outOK {
				if old, ok := it.Value.(*Ident); ok && len(it.Names) == 1 {
					ctx.out = renameName(ctx.out, old.Name, it.Names[0].Name)
				}
			}
		}
	case *ProjectReorderOp:
		var pats []Expr
		for _, t := range o.Items {
			x.scalar(t.X, ctx)
			pats = append(pats, t.X)
		}
		if ctx.outOK {
			ctx.out = reorderNames(ctx.out, pats)
		}
	case *ExtendOp:
		x.items(o.Items, ctx)
		if ctx.outOK {
			x.setOut(ctx, mergeNames(ctx.out, x.itemNames(o.Items, ctx, "Column")))
		}
	case *SummarizeOp:
		x.summarize(o, ctx)
	case *CountOp:
		x.sh.Aggregates = append(x.sh.Aggregates, qeval.Aggregate{Func: "count", Arg: "*"})
		name := "Count"
		if o.As != nil {
			name = o.As.Name
		}
		x.setOut(ctx, []string{name})
		ctx.table = ""
	case *DistinctOp:
		x.items(o.Items, ctx)
		if !(len(o.Items) == 1 && isStar(o.Items[0])) {
			x.setOut(ctx, x.itemNames(o.Items, ctx, "Column"))
		}
	case *SortOp:
		x.order(o.Terms, ctx)
	case *TopOp:
		x.scalar(o.Count, ctx)
		x.order(o.Terms, ctx)
		x.limit(o.Count, ctx)
	case *TakeOp:
		x.scalar(o.Count, ctx)
		x.limit(o.Count, ctx)
	case *SampleOp:
		x.scalar(o.Count, ctx)
	case *SampleDistinctOp:
		x.scalar(o.Count, ctx)
		x.scalar(o.Of, ctx)
		x.setOut(ctx, x.itemNames([]Expr{o.Of}, ctx, "Column"))
	case *TopHittersOp:
		x.exprs([]Expr{o.Count, o.Of, o.By}, ctx)
		ctx.outOK = false
	case *TopNestedOp:
		for _, lv := range o.Levels {
			x.exprs([]Expr{lv.Count, lv.Of, lv.Others}, ctx)
			x.sh.GroupBy = append(x.sh.GroupBy, Format(valueOf(lv.Of)))
			x.aggregates([]Expr{lv.By}, ctx)
		}
		ctx.outOK = false
	case *JoinOp:
		x.source(o.Right, sub())
		x.onList(o.On, ctx)
		ctx.table, ctx.outOK = "", false
	case *LookupOp:
		x.source(o.Right, sub())
		x.onList(o.On, ctx)
		ctx.table, ctx.outOK = "", false
	case *UnionOp:
		for _, t := range o.Tables {
			x.source(t, sub())
		}
		ctx.table, ctx.outOK = "", false
		if len(o.Tables) == 1 && o.Pos() == o.Tables[0].Pos() {
			ctx.table = ""
		}
	case *MvExpandOp:
		for _, it := range o.Items {
			x.scalar(it.X, ctx)
		}
		x.scalar(o.Limit, ctx)
		if ctx.outOK {
			var named []Expr
			for _, it := range o.Items {
				named = append(named, it.X)
			}
			ctx.out, ctx.outOK = mergeNamesOK(ctx.out, x.itemNames(named, ctx, "Column"))
		}
	case *MvApplyOp:
		for _, it := range o.Items {
			x.scalar(it.X, ctx)
		}
		x.scalar(o.Limit, ctx)
		if o.Body != nil {
			x.pipe(o.Body, inner(ctx))
		}
		ctx.outOK = false
	case *ParseOp:
		x.scalar(o.X, ctx)
		var names []string
		for _, p := range o.Pattern {
			if c, ok := p.(*ColumnDecl); ok {
				ctx.derive(c.Name.Name)
				names = append(names, c.Name.Name)
			}
		}
		if ctx.outOK {
			ctx.out, ctx.outOK = mergeNamesOK(ctx.out, names)
		}
	case *ParseKvOp:
		x.scalar(o.X, ctx)
		for _, c := range o.Columns {
			ctx.derive(c.Name.Name)
		}
		if ctx.outOK {
			ctx.out, ctx.outOK = mergeNamesOK(ctx.out, declNames(o.Columns))
		}
	case *MakeSeriesOp:
		for _, a := range o.Aggs {
			x.aggregates([]Expr{a.X}, ctx)
			x.scalar(a.Default, ctx)
		}
		x.exprs([]Expr{o.On, o.From, o.To, o.Step}, ctx)
		for _, b := range o.By {
			x.scalar(b, ctx)
			x.sh.GroupBy = append(x.sh.GroupBy, Format(valueOf(b)))
		}
		ctx.outOK = false
	case *AsOp:
		x.scope.bind(o.Name.Name, binding{kind: bindTabular, table: ctx.table})
	case *SerializeOp:
		x.items(o.Items, ctx)
		if ctx.outOK {
			ctx.out, ctx.outOK = mergeNamesOK(ctx.out, x.itemNames(o.Items, ctx, "Column"))
		}
	case *EvaluateOp:
		x.scalar(o.Plugin, ctx)
		ctx.table, ctx.outOK = "", false
		if o.Schema != nil && !o.Schema.Star {
			ctx.out, ctx.outOK = declNames(o.Schema.Columns), true
		}
	case *InvokeOp:
		if c, ok := o.Call.(*Call); ok {
			x.call(c, ctx, 1) // the piped table is the function's first argument
		} else {
			x.scalar(o.Call, ctx)
		}
		ctx.table, ctx.outOK = "", false
	case *SearchOp:
		for _, t := range o.Tables {
			x.source(t, sub())
		}
		x.scalar(o.Pred, ctx)
		ctx.table, ctx.outOK = "", false
	case *FindOp:
		for _, t := range o.Tables {
			x.source(t, sub())
		}
		x.scalar(o.Pred, ctx)
		x.exprs(o.Project, ctx)
		ctx.table, ctx.outOK = "", false
	case *PrintOp:
		x.items(o.Items, ctx)
		x.setOut(ctx, x.itemNames(o.Items, ctx, "print_"))
		x.deriveAll(ctx, ctx.out)
	case *RangeOp:
		x.exprs([]Expr{o.From, o.To, o.Step}, ctx)
		x.setOut(ctx, []string{o.Column.Name})
		ctx.derive(o.Column.Name)
	case *ForkOp:
		for _, br := range o.Branches {
			if br.Body != nil {
				x.pipe(br.Body, inner(ctx))
			}
		}
		ctx.outOK = false
	case *FacetOp:
		x.exprs(o.By, ctx)
		if o.With != nil {
			x.pipe(o.With, inner(ctx))
		}
		ctx.outOK = false
	case *PartitionOp:
		x.scalar(o.By, ctx)
		switch b := o.Body.(type) {
		case *PipeExpr:
			x.pipe(b, inner(ctx))
		case *Block:
			x.block(b, nil)
		}
		ctx.outOK = false
	case *ReduceOp:
		x.scalar(o.By, ctx)
		ctx.outOK = false
	case *ScanOp:
		for _, t := range o.OrderBy {
			x.scalar(t.X, ctx)
		}
		x.exprs(o.PartitionBy, ctx)
		for _, p := range o.Declare {
			ctx.derive(p.Name.Name)
			x.scalar(p.Default, ctx)
		}
		x.push()
		for _, st := range o.Steps {
			x.scope.bind(st.Name.Name, binding{kind: bindScalar})
		}
		for _, st := range o.Steps {
			x.scalar(st.Cond, ctx)
			for _, a := range st.Assigns {
				x.scalar(a.Value, ctx)
			}
		}
		x.pop()
		ctx.outOK = false
	case *MakeGraphOp:
		x.exprs([]Expr{o.Source, o.Target, o.PartitionBy}, ctx)
		for _, n := range o.Nodes {
			x.source(n.Table, sub())
		}
		ctx.table, ctx.outOK = "", false
	case *GraphMatchOp:
		x.push()
		for _, p := range o.Patterns {
			for _, e := range p.Elems {
				if e.Name != nil {
					x.scope.bind(e.Name.Name, binding{kind: bindScalar})
				}
			}
		}
		x.scalar(o.Where, ctx)
		x.items(o.Project, ctx)
		x.pop()
		ctx.table = ""
		x.setOut(ctx, x.itemNames(o.Project, ctx, "Column"))
	case *AssertSchemaOp:
	case *GraphToTableOp:
		ctx.table, ctx.outOK = "", false
	case *MacroExpandOp:
		x.scalar(o.Group, ctx)
		x.push()
		if o.As != nil {
			x.scope.bind(o.As.Name, binding{kind: bindEntity})
		}
		x.source(o.Body, sub())
		x.pop()
		ctx.table, ctx.outOK = "", false
	}
}

func isStar(e Expr) bool {
	_, ok := e.(*Star)
	return ok
}

// valueOf returns the value of a named expression, or e itself.
func valueOf(e Expr) Expr {
	if n, ok := e.(*NamedExpr); ok {
		return n.Value
	}
	return e
}

func (x *shaper) exprs(list []Expr, ctx *pipeCtx) {
	for _, e := range list {
		x.scalar(e, ctx)
	}
}

// items walks project/extend items and records the names they define.
func (x *shaper) items(items []Expr, ctx *pipeCtx) {
	for _, it := range items {
		x.scalar(valueOf(it), ctx)
		if n, ok := it.(*NamedExpr); ok {
			for _, id := range n.Names {
				ctx.derive(id.Name)
			}
		}
	}
}

func (x *shaper) deriveAll(ctx *pipeCtx, names []string) {
	for _, n := range names {
		ctx.derive(n)
	}
}

func (x *shaper) setOut(ctx *pipeCtx, names []string) {
	ctx.out, ctx.outOK = names, names != nil && len(names) <= maxOutput
}

// onList walks join conditions; $left.X and $right.X are the columns X.
func (x *shaper) onList(on []Expr, ctx *pipeCtx) {
	c := &pipeCtx{derived: ctx.derived}
	for _, e := range on {
		x.scalar(e, c)
	}
}

func (x *shaper) order(terms []*SortTerm, ctx *pipeCtx) {
	for _, t := range terms {
		x.scalar(t.X, ctx)
	}
	if !ctx.main {
		return
	}
	x.sh.OrderBy = x.sh.OrderBy[:0]
	for _, t := range terms {
		x.sh.OrderBy = append(x.sh.OrderBy, qeval.OrderTerm{Expr: Format(t.X), Desc: t.Order != "asc"})
	}
}

func (x *shaper) limit(e Expr, ctx *pipeCtx) {
	if ctx.main && e != nil {
		x.sh.Limit = x.format(e)
	}
}
