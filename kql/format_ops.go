package kql

// op writes a tabular operator: name, parameters, operands.
func (f *formatter) op(o Operator) {
	f.str(o.OpName())
	b := o.(interface{ base() *OpBase }).base()
	if _, render := o.(*RenderOp); !render {
		for _, p := range b.Params {
			f.str(" ")
			f.opParam(p)
		}
	}
	switch o := o.(type) {
	case *WhereOp:
		f.str(" ")
		f.expr(o.Pred)
	case *ProjectOp:
		f.list(o.Items)
	case *ProjectAwayOp:
		f.list(o.Columns)
	case *ProjectRenameOp:
		for i, it := range o.Items {
			if i > 0 {
				f.str(",")
			}
			f.str(" ")
			f.expr(it)
		}
	case *ProjectReorderOp:
		f.str(" ")
		f.sortTerms(o.Items)
	case *ExtendOp:
		f.list(o.Items)
	case *SummarizeOp:
		f.list(o.Aggs)
		if o.By != nil {
			f.str(" by")
			f.list(o.By)
		}
	case *CountOp:
		if o.As != nil {
			f.str(" as ")
			f.ident(o.As)
		}
	case *AssertSchemaOp:
		f.str(" ")
		f.typeRef(o.Schema)
	case *SimpleOp:
	case *DistinctOp:
		f.list(o.Items)
	case *SortOp:
		f.str(" by ")
		f.sortTerms(o.Terms)
	case *TopOp:
		f.str(" ")
		f.expr(o.Count)
		f.str(" by ")
		f.sortTerms(o.Terms)
	case *TakeOp:
		f.str(" ")
		f.expr(o.Count)
	case *SampleOp:
		f.str(" ")
		f.expr(o.Count)
	case *SampleDistinctOp:
		f.str(" ")
		f.expr(o.Count)
		f.str(" of ")
		f.expr(o.Of)
	case *TopHittersOp:
		f.str(" ")
		f.expr(o.Count)
		f.str(" of ")
		f.expr(o.Of)
		if o.By != nil {
			f.str(" by ")
			f.expr(o.By)
		}
	case *TopNestedOp:
		f.topNested(o)
	case *JoinOp:
		f.str(" ")
		f.tableArg(o.Right)
		f.str(" on ")
		f.exprs(o.On)
	case *LookupOp:
		f.str(" ")
		f.tableArg(o.Right)
		f.str(" on ")
		f.exprs(o.On)
	case *UnionOp:
		for i, t := range o.Tables {
			if i > 0 {
				f.str(",")
			}
			f.str(" ")
			f.tableArg(t)
		}
	case *MvExpandOp:
		f.str(" ")
		f.expandItems(o.Items)
		if o.Limit != nil {
			f.str(" limit ")
			f.expr(o.Limit)
		}
	case *MvApplyOp:
		f.str(" ")
		f.expandItems(o.Items)
		if o.Limit != nil {
			f.str(" limit ")
			f.expr(o.Limit)
		}
		if o.ContextID != nil {
			f.str(" id ")
			f.expr(o.ContextID)
		}
		f.str(" on (")
		f.expr(o.Body)
		f.str(")")
	case *ParseOp:
		f.str(" ")
		f.expr(o.X)
		f.str(" with")
		for _, p := range o.Pattern {
			f.str(" ")
			f.expr(p)
		}
	case *ParseKvOp:
		f.str(" ")
		f.expr(o.X)
		f.str(" as (")
		for i, c := range o.Columns {
			if i > 0 {
				f.str(", ")
			}
			f.columnDecl(c)
		}
		f.str(")")
		f.with(o.With)
	case *MakeSeriesOp:
		f.makeSeries(o)
	case *RenderOp:
		f.str(" " + o.Chart)
		for _, p := range o.Params {
			switch p.Name {
			case "by", "with":
				f.str(" " + p.Name + " ")
				f.expr(p.Value)
			default:
				f.str(" ")
				f.opParam(p)
			}
		}
		f.with(o.With)
	case *AsOp:
		f.str(" ")
		f.ident(o.Name)
	case *SerializeOp:
		f.list(o.Items)
	case *EvaluateOp:
		f.str(" ")
		f.expr(o.Plugin)
		if o.Schema != nil {
			f.str(" : ")
			f.typeRef(o.Schema)
		}
	case *InvokeOp:
		f.str(" ")
		f.expr(o.Call)
	case *SearchOp:
		if o.Tables != nil {
			f.str(" in (")
			f.exprs(o.Tables)
			f.str(")")
		}
		f.str(" ")
		f.expr(o.Pred)
	case *FindOp:
		if o.Tables != nil {
			f.str(" in (")
			f.exprs(o.Tables)
			f.str(")")
		}
		f.str(" where ")
		f.expr(o.Pred)
		if o.ProjectSmart {
			f.str(" project-smart")
		} else if o.Project != nil {
			f.str(" project")
			f.list(o.Project)
		}
	case *PrintOp:
		f.list(o.Items)
	case *RangeOp:
		f.str(" ")
		f.ident(o.Column)
		f.str(" from ")
		f.expr(o.From)
		f.str(" to ")
		f.expr(o.To)
		f.str(" step ")
		f.expr(o.Step)
	case *ForkOp:
		for _, br := range o.Branches {
			f.str(" ")
			if br.Name != nil {
				f.ident(br.Name)
				f.str(" = ")
			}
			f.str("(")
			f.expr(br.Body)
			f.str(")")
		}
	case *FacetOp:
		f.str(" by ")
		f.exprs(o.By)
		if o.With != nil {
			f.str(" with (")
			f.expr(o.With)
			f.str(")")
		}
	case *PartitionOp:
		f.str(" by ")
		f.expr(o.By)
		if blk, ok := o.Body.(*Block); ok {
			f.str(" ")
			f.block(blk)
		} else {
			f.str(" (")
			f.expr(o.Body)
			f.str(")")
		}
	case *ReduceOp:
		f.str(" by ")
		f.expr(o.By)
		if o.With != nil {
			f.str(" with ")
			for i, p := range o.With {
				if i > 0 {
					f.str(", ")
				}
				f.opParam(p)
			}
		}
	case *ScanOp:
		f.scan(o)
	case *MakeGraphOp:
		f.str(" ")
		f.expr(o.Source)
		f.str(" --> ")
		f.expr(o.Target)
		for i, n := range o.Nodes {
			if i == 0 {
				f.str(" with ")
			} else {
				f.str(", ")
			}
			f.tableArg(n.Table)
			f.str(" on ")
			f.expr(n.Key)
		}
		if o.PartitionBy != nil {
			f.str(" partitioned-by ")
			f.expr(o.PartitionBy)
			if o.PartitionOps != nil {
				f.str(" (")
				f.expr(o.PartitionOps)
				f.str(")")
			}
		}
	case *GraphMatchOp:
		for i, p := range o.Patterns {
			if i > 0 {
				f.str(",")
			}
			f.str(" ")
			f.graphPattern(p)
		}
		if o.Where != nil {
			f.str(" where ")
			f.expr(o.Where)
		}
		if o.Project != nil {
			f.str(" project")
			f.list(o.Project)
		}
	case *GraphToTableOp:
		for i, it := range o.Items {
			if i > 0 {
				f.str(",")
			}
			f.str(" " + it.Kind)
			if it.As != nil {
				f.str(" as ")
				f.ident(it.As)
			}
			for _, p := range it.Params {
				f.str(" ")
				f.opParam(p)
			}
		}
	case *MacroExpandOp:
		f.str(" ")
		f.expr(o.Group)
		f.str(" as ")
		f.ident(o.As)
		f.str(" (")
		f.expr(o.Body)
		f.str(")")
	}
}

// list writes " a, b, c".
func (f *formatter) list(items []Expr) {
	for i, it := range items {
		if i > 0 {
			f.str(",")
		}
		f.str(" ")
		f.expr(it)
	}
}

func (f *formatter) topNested(o *TopNestedOp) {
	for i, lv := range o.Levels {
		if i > 0 {
			f.str(", top-nested")
		}
		if lv.Count != nil {
			f.str(" ")
			f.expr(lv.Count)
		}
		f.str(" of ")
		f.expr(lv.Of)
		if lv.Others != nil {
			f.str(" with others = ")
			f.expr(lv.Others)
		}
		f.str(" by ")
		f.expr(lv.By)
		if lv.Order != "" {
			f.str(" " + lv.Order)
		}
	}
}

func (f *formatter) makeSeries(o *MakeSeriesOp) {
	for i, a := range o.Aggs {
		if i > 0 {
			f.str(",")
		}
		f.str(" ")
		f.expr(a.X)
		if a.Default != nil {
			f.str(" default = ")
			f.expr(a.Default)
		}
	}
	f.str(" on ")
	f.expr(o.On)
	if o.InRange {
		f.str(" in range(")
		f.exprs([]Expr{o.From, o.To, o.Step})
		f.str(")")
	} else {
		if o.From != nil {
			f.str(" from ")
			f.expr(o.From)
		}
		if o.To != nil {
			f.str(" to ")
			f.expr(o.To)
		}
		if o.Step != nil {
			f.str(" step ")
			f.expr(o.Step)
		}
	}
	if o.By != nil {
		f.str(" by")
		f.list(o.By)
	}
}

func (f *formatter) scan(o *ScanOp) {
	if o.OrderBy != nil {
		f.str(" order by ")
		f.sortTerms(o.OrderBy)
	}
	if o.PartitionBy != nil {
		f.str(" partition by ")
		f.exprs(o.PartitionBy)
	}
	if o.Declare != nil {
		f.str(" declare (")
		f.params(o.Declare)
		f.str(")")
	}
	f.str(" with (")
	for _, st := range o.Steps {
		f.str(" step ")
		f.ident(st.Name)
		for _, p := range st.Params {
			f.str(" ")
			f.opParam(p)
		}
		f.str(": ")
		f.expr(st.Cond)
		if st.Assigns != nil {
			f.str(" =>")
			for i, a := range st.Assigns {
				if i > 0 {
					f.str(",")
				}
				f.str(" ")
				f.expr(a)
			}
		}
		f.str(";")
	}
	f.str(" )")
}

func (f *formatter) graphPattern(p *GraphPattern) {
	for _, e := range p.Elems {
		if !e.Edge {
			f.str("(")
			f.ident(e.Name)
			f.str(")")
			continue
		}
		if e.Dir == "<-" {
			f.str("<")
		}
		f.str("-")
		if e.Name != nil || e.Min != nil || e.Max != nil {
			f.str("[")
			f.ident(e.Name)
			if e.Min != nil || e.Max != nil {
				f.str("*")
				f.expr(e.Min)
				if e.Max != nil {
					f.str("..")
					f.expr(e.Max)
				}
			}
			f.str("]")
		}
		f.str("-")
		if e.Dir == "->" {
			f.str(">")
		}
	}
}
