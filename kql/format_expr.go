package kql

func (f *formatter) expr(e Expr) {
	if isNil(e) {
		return
	}
	switch e := e.(type) {
	case *Ident:
		if f.subst != nil {
			if v := f.subst(e); v != "" {
				f.str(v)
				return
			}
		}
		f.ident(e)
	case *Literal:
		f.literal(e)
	case *DynamicLit:
		f.str("dynamic(")
		f.expr(e.Value)
		f.str(")")
	case *ArrayLit:
		f.str("[")
		f.exprs(e.Elems)
		f.str("]")
	case *ObjectLit:
		f.str("{")
		for i, k := range e.Keys {
			if i > 0 {
				f.str(", ")
			}
			f.str(quote(k))
			f.str(": ")
			if i < len(e.Values) {
				f.expr(e.Values[i])
			}
		}
		f.str("}")
	case *Star:
		f.str("*")
	case *Paren:
		if f.fold {
			if t, ok := f.foldTimespan(e.X); ok {
				f.str(formatTicks(t))
				return
			}
		}
		f.str("(")
		f.expr(e.X)
		f.str(")")
	case *Unary:
		f.str(e.Op)
		f.expr(e.X)
	case *Binary:
		if f.fold {
			if t, ok := f.foldTimespan(e); ok {
				f.str(formatTicks(t))
				return
			}
		}
		f.expr(e.Left)
		f.str(" " + e.Op + " ")
		f.expr(e.Right)
	case *InExpr:
		f.expr(e.Left)
		f.str(" " + e.Op + " ")
		if e.Paren {
			f.str("(")
			f.exprs(e.List)
			f.str(")")
		} else {
			f.exprs(e.List)
		}
	case *BetweenExpr:
		f.expr(e.Left)
		if e.Not {
			f.str(" !between (")
		} else {
			f.str(" between (")
		}
		f.expr(e.Low)
		f.str(" .. ")
		f.expr(e.High)
		f.str(")")
	case *Call:
		f.expr(e.Func)
		f.str("(")
		f.exprs(e.Args)
		f.str(")")
	case *Member:
		if l, ok := e.X.(*Literal); ok && typedName(l.Raw) == "" && l.Kind != LitString {
			f.str("(") // 0.x would read as a number
			f.expr(e.X)
			f.str(")")
		} else {
			f.expr(e.X)
		}
		f.str(".")
		f.ident(e.Name)
	case *Index:
		f.expr(e.X)
		f.str("[")
		f.expr(e.Index)
		f.str("]")
	case *NamedExpr:
		if len(e.Names) == 1 {
			f.ident(e.Names[0])
		} else {
			f.str("(")
			for i, n := range e.Names {
				if i > 0 {
					f.str(", ")
				}
				f.ident(n)
			}
			f.str(")")
		}
		f.str(" = ")
		f.expr(e.Value)
	case *PipeExpr:
		f.pipe(e)
	case *FuncDef:
		if e.View {
			f.str("view ")
		}
		f.str("(")
		f.params(e.Params)
		f.str(") ")
		f.block(e.Body)
	case *Block:
		f.block(e)
	case *TypeOf:
		f.str("typeof(")
		if e.Type != nil && e.Type.Tabular {
			f.schema(e.Type)
		} else {
			f.typeRef(e.Type)
		}
		f.str(")")
	case *ListExpr:
		f.exprs(e.Elems)
	case *DatatableExpr:
		f.str("datatable(")
		for i, c := range e.Columns {
			if i > 0 {
				f.str(", ")
			}
			f.columnDecl(c)
		}
		f.str(") [")
		f.exprs(e.Values)
		f.str("]")
	case *ExternalDataExpr:
		f.str(e.Name + "(")
		for i, c := range e.Columns {
			if i > 0 {
				f.str(", ")
			}
			f.columnDecl(c)
		}
		f.str(") [")
		f.exprs(e.URIs)
		f.str("]")
		f.with(e.With)
	case *ColumnDecl:
		f.columnDecl(e)
	case *EntityGroup:
		f.str("entity_group [")
		f.exprs(e.Items)
		f.str("]")
	case *Placeholder:
		f.str("{" + e.Name + "}")
	case *BadExpr:
		f.str("?")
	case Operator:
		f.op(e)
	default:
		f.str("?")
	}
}

// pipe writes Source | op | op.
func (f *formatter) pipe(e *PipeExpr) {
	if e.Source != nil {
		f.expr(e.Source)
	}
	for i, op := range e.Ops {
		if i > 0 || e.Source != nil {
			f.str(" | ")
		}
		f.op(op)
	}
}

// with writes " with (name=value, ...)" when there are properties.
func (f *formatter) with(props []*OpParam) {
	if props == nil {
		return
	}
	f.str(" with (")
	for i, p := range props {
		if i > 0 {
			f.str(", ")
		}
		f.opParam(p)
	}
	f.str(")")
}

func (f *formatter) opParam(p *OpParam) {
	f.str(p.Name)
	f.str("=")
	f.expr(p.Value)
}

func (f *formatter) sortTerm(t *SortTerm) {
	f.expr(t.X)
	if t.Order != "" {
		f.str(" " + t.Order)
	}
	if t.Nulls != "" {
		f.str(" nulls " + t.Nulls)
	}
}

func (f *formatter) sortTerms(ts []*SortTerm) {
	for i, t := range ts {
		if i > 0 {
			f.str(", ")
		}
		f.sortTerm(t)
	}
}

// tableArg writes a join/union operand: a name or call as is, anything else in
// parentheses.
func (f *formatter) tableArg(e Expr) {
	if startsWithName(e) {
		f.expr(e)
		return
	}
	f.str("(")
	f.expr(e)
	f.str(")")
}

func (f *formatter) expandItems(items []*ExpandItem) {
	for i, it := range items {
		if i > 0 {
			f.str(", ")
		}
		f.expr(it.X)
		if it.To != nil {
			f.str(" to typeof(")
			if it.To.Tabular {
				f.schema(it.To)
			} else {
				f.typeRef(it.To)
			}
			f.str(")")
		}
	}
}

// startsWithName reports whether e is a name, or a call or member chain that starts
// with one (database("d").T), so it can be written without parentheses.
func startsWithName(e Expr) bool {
	for {
		switch v := e.(type) {
		case *Ident:
			return true
		case *Member:
			e = v.X
		case *Call:
			e = v.Func
		default:
			return false
		}
	}
}
