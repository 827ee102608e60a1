package kql

// Inspect walks the tree rooted at n in source order, calling f for each node; when f
// returns false the node's children are skipped. Nil children are not visited.
func Inspect(n Node, f func(Node) bool) {
	w := walker(f)
	w.node(n)
}

type walker func(Node) bool

func (w walker) exprs(list []Expr) {
	for _, e := range list {
		w.node(e)
	}
}

func (w walker) params(list []*OpParam) {
	for _, p := range list {
		w.node(p)
	}
}

func (w walker) decls(list []*ColumnDecl) {
	for _, c := range list {
		w.node(c)
	}
}

func (w walker) terms(list []*SortTerm) {
	for _, t := range list {
		w.node(t)
	}
}

func (w walker) node(n Node) {
	if isNil(n) || !w(n) {
		return
	}
	switch n := n.(type) {
	case *Script:
		for _, s := range n.Stmts {
			w.node(s)
		}
	case *LetStmt:
		w.node(n.Name)
		w.node(n.Value)
	case *QueryStmt:
		w.node(n.Query)
	case *SetStmt:
		w.node(n.Value)
	case *DeclareStmt:
		for _, p := range n.Params {
			w.node(p)
		}
	case *PatternStmt:
		w.node(n.Name)
		for _, p := range n.Params {
			w.node(p)
		}
		for _, p := range n.PathParams {
			w.node(p)
		}
		for _, r := range n.Rules {
			w.exprs(r.Args)
			w.exprs(r.Path)
			w.node(r.Body)
		}
	case *AliasStmt:
		w.node(n.Name)
		w.node(n.Value)
	case *RestrictStmt:
		w.exprs(n.Entities)
	case *DynamicLit:
		w.node(n.Value)
	case *ArrayLit:
		w.exprs(n.Elems)
	case *ObjectLit:
		w.exprs(n.Values)
	case *Paren:
		w.node(n.X)
	case *Unary:
		w.node(n.X)
	case *Binary:
		w.node(n.Left)
		w.node(n.Right)
	case *InExpr:
		w.node(n.Left)
		w.exprs(n.List)
	case *BetweenExpr:
		w.node(n.Left)
		w.node(n.Low)
		w.node(n.High)
	case *Call:
		w.node(n.Func)
		w.exprs(n.Args)
	case *Member:
		w.node(n.X)
		w.node(n.Name)
	case *Index:
		w.node(n.X)
		w.node(n.Index)
	case *NamedExpr:
		for _, id := range n.Names {
			w.node(id)
		}
		w.node(n.Value)
	case *PipeExpr:
		w.node(n.Source)
		for _, op := range n.Ops {
			w.node(op)
		}
	case *FuncDef:
		for _, p := range n.Params {
			w.node(p)
		}
		w.node(n.Body)
	case *Block:
		for _, s := range n.Stmts {
			w.node(s)
		}
	case *Param:
		w.node(n.Name)
		w.node(n.Type)
		w.node(n.Default)
	case *TypeRef:
		w.decls(n.Columns)
	case *ColumnDecl:
		w.node(n.Name)
		w.node(n.Type)
	case *TypeOf:
		w.node(n.Type)
	case *ListExpr:
		w.exprs(n.Elems)
	case *OpParam:
		w.node(n.Value)
	case *SortTerm:
		w.node(n.X)
	case *DatatableExpr:
		w.decls(n.Columns)
		w.exprs(n.Values)
	case *ExternalDataExpr:
		w.decls(n.Columns)
		w.exprs(n.URIs)
		w.params(n.With)
	case *EntityGroup:
		w.exprs(n.Items)
	case Operator:
		w.op(n)
	}
}

func (w walker) op(o Operator) {
	w.params(o.(interface{ base() *OpBase }).base().Params)
	switch o := o.(type) {
	case *WhereOp:
		w.node(o.Pred)
	case *ProjectOp:
		w.exprs(o.Items)
	case *ProjectAwayOp:
		w.exprs(o.Columns)
	case *ProjectRenameOp:
		for _, it := range o.Items {
			w.node(it)
		}
	case *ProjectReorderOp:
		w.terms(o.Items)
	case *ExtendOp:
		w.exprs(o.Items)
	case *SummarizeOp:
		w.exprs(o.Aggs)
		w.exprs(o.By)
	case *DistinctOp:
		w.exprs(o.Items)
	case *SortOp:
		w.terms(o.Terms)
	case *TopOp:
		w.node(o.Count)
		w.terms(o.Terms)
	case *TakeOp:
		w.node(o.Count)
	case *SampleOp:
		w.node(o.Count)
	case *SampleDistinctOp:
		w.node(o.Count)
		w.node(o.Of)
	case *TopHittersOp:
		w.node(o.Count)
		w.node(o.Of)
		w.node(o.By)
	case *TopNestedOp:
		for _, lv := range o.Levels {
			w.node(lv.Count)
			w.node(lv.Of)
			w.node(lv.Others)
			w.node(lv.By)
		}
	case *JoinOp:
		w.node(o.Right)
		w.exprs(o.On)
	case *LookupOp:
		w.node(o.Right)
		w.exprs(o.On)
	case *UnionOp:
		w.exprs(o.Tables)
	case *MvExpandOp:
		for _, it := range o.Items {
			w.node(it.X)
			w.node(it.To)
		}
		w.node(o.Limit)
	case *MvApplyOp:
		for _, it := range o.Items {
			w.node(it.X)
			w.node(it.To)
		}
		w.node(o.Limit)
		w.node(o.ContextID)
		w.node(o.Body)
	case *ParseOp:
		w.node(o.X)
		w.exprs(o.Pattern)
	case *ParseKvOp:
		w.node(o.X)
		w.decls(o.Columns)
		w.params(o.With)
	case *MakeSeriesOp:
		for _, a := range o.Aggs {
			w.node(a.X)
			w.node(a.Default)
		}
		w.node(o.On)
		w.node(o.From)
		w.node(o.To)
		w.node(o.Step)
		w.exprs(o.By)
	case *RenderOp:
		w.params(o.With)
	case *CountOp:
		w.node(o.As)
	case *AssertSchemaOp:
		w.node(o.Schema)
	case *AsOp:
		w.node(o.Name)
	case *SerializeOp:
		w.exprs(o.Items)
	case *EvaluateOp:
		w.node(o.Plugin)
		w.node(o.Schema)
	case *InvokeOp:
		w.node(o.Call)
	case *SearchOp:
		w.exprs(o.Tables)
		w.node(o.Pred)
	case *FindOp:
		w.exprs(o.Tables)
		w.node(o.Pred)
		w.exprs(o.Project)
	case *PrintOp:
		w.exprs(o.Items)
	case *RangeOp:
		w.node(o.Column)
		w.node(o.From)
		w.node(o.To)
		w.node(o.Step)
	case *ForkOp:
		for _, br := range o.Branches {
			w.node(br.Name)
			w.node(br.Body)
		}
	case *FacetOp:
		w.exprs(o.By)
		w.node(o.With)
	case *PartitionOp:
		w.node(o.By)
		w.node(o.Body)
	case *ReduceOp:
		w.node(o.By)
		w.params(o.With)
	case *ScanOp:
		w.terms(o.OrderBy)
		w.exprs(o.PartitionBy)
		for _, p := range o.Declare {
			w.node(p)
		}
		for _, st := range o.Steps {
			w.node(st.Name)
			w.params(st.Params)
			w.node(st.Cond)
			for _, a := range st.Assigns {
				w.node(a)
			}
		}
	case *MakeGraphOp:
		w.node(o.Source)
		w.node(o.Target)
		for _, n := range o.Nodes {
			w.node(n.Table)
			w.node(n.Key)
		}
		w.node(o.PartitionBy)
		w.node(o.PartitionOps)
	case *GraphMatchOp:
		for _, p := range o.Patterns {
			for _, e := range p.Elems {
				w.node(e.Name)
				w.node(e.Min)
				w.node(e.Max)
			}
		}
		w.node(o.Where)
		w.exprs(o.Project)
	case *GraphToTableOp:
		for _, it := range o.Items {
			w.node(it.As)
			w.params(it.Params)
		}
	case *MacroExpandOp:
		w.node(o.Group)
		w.node(o.As)
		w.node(o.Body)
	}
}

// isNil reports whether n is nil or a typed nil pointer.
func isNil(n Node) bool {
	switch v := n.(type) {
	case nil:
		return true
	case *Ident:
		return v == nil
	case *TypeRef:
		return v == nil
	case *Block:
		return v == nil
	case *PipeExpr:
		return v == nil
	case *Call:
		return v == nil
	case *NamedExpr:
		return v == nil
	case *Literal:
		return v == nil
	case *ColumnDecl:
		return v == nil
	case *Param:
		return v == nil
	case *TypeOf:
		return v == nil
	case *Member:
		return v == nil
	}
	return false
}
