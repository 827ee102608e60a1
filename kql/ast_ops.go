package kql

// Operator is a tabular operator of a pipeline (the part after a "|"). Name returns its
// name as written, e.g. "where", "filter", "project-away", "mv-expand", "order".
type Operator interface {
	Node
	OpName() string
	opNode()
}

// OpBase holds what every operator has: its name as written and its parameters
// (kind=inner, hint.strategy=shuffle, withsource=T, with_itemindex=i, ...).
type OpBase struct {
	Span
	Name   string
	Params []*OpParam
}

// OpName returns the operator name as written.
func (o *OpBase) OpName() string { return o.Name }

// Param returns the value of the named parameter (case-sensitive), or nil.
func (o *OpBase) Param(name string) Expr {
	for _, p := range o.Params {
		if p.Name == name {
			return p.Value
		}
	}
	return nil
}

func (*OpBase) opNode() {}

// OpParam is Name = Value: an operator parameter (kind=inner, hint.shufflekey=x) or a
// property in a with (...) list. Value is a *ListExpr when several values follow the
// equals sign (render ... with (ycolumns=a, b)).
type OpParam struct {
	Span
	Name  string
	Value Expr
}

// ListExpr is a comma-separated list of values where the grammar allows one.
type ListExpr struct {
	Span
	Elems []Expr
}

// SortTerm is Expr [asc|desc] [nulls first|last]. Order and Nulls are "" when not
// written; Kusto's default order for sort and top is descending.
type SortTerm struct {
	Span
	X     Expr
	Order string
	Nulls string
}

// WhereOp is where/filter Pred; graph-where-nodes and graph-where-edges share it.
// "where a = b", which Kusto accepts, is stored as a == b.
type WhereOp struct {
	OpBase
	Pred Expr
}

// ProjectOp is project (also project-smart, project-by-names) Items; an item is an
// Expr or *NamedExpr.
type ProjectOp struct {
	OpBase
	Items []Expr
}

// ProjectAwayOp is project-away or project-keep: Columns are *Ident, with '*'
// wildcards kept in the name (Col*), or other column expressions.
type ProjectAwayOp struct {
	OpBase
	Columns []Expr
}

// ProjectRenameOp is project-rename New = Old, ...
type ProjectRenameOp struct {
	OpBase
	Items []*NamedExpr
}

// ProjectReorderOp is project-reorder Col [asc|desc|granny-asc|granny-desc], ...
type ProjectReorderOp struct {
	OpBase
	Items []*SortTerm
}

// ExtendOp is extend Items.
type ExtendOp struct {
	OpBase
	Items []Expr
}

// SummarizeOp is summarize Aggs by By. Both lists hold Expr or *NamedExpr items.
type SummarizeOp struct {
	OpBase
	Aggs []Expr
	By   []Expr
}

// CountOp is the count operator; As is the result column name of "count as Name".
type CountOp struct {
	OpBase
	As *Ident
}

// DistinctOp is distinct Items (or distinct *).
type DistinctOp struct {
	OpBase
	Items []Expr
}

// SortOp is sort by / order by Terms.
type SortOp struct {
	OpBase
	Terms []*SortTerm
}

// TopOp is top Count by Terms.
type TopOp struct {
	OpBase
	Count Expr
	Terms []*SortTerm
}

// TakeOp is take/limit Count.
type TakeOp struct {
	OpBase
	Count Expr
}

// SampleOp is sample Count.
type SampleOp struct {
	OpBase
	Count Expr
}

// SampleDistinctOp is sample-distinct Count of Of.
type SampleDistinctOp struct {
	OpBase
	Count Expr
	Of    Expr
}

// TopHittersOp is top-hitters Count of Of [by By].
type TopHittersOp struct {
	OpBase
	Count Expr
	Of    Expr
	By    Expr
}

// TopNestedOp is one or more comma-separated top-nested levels.
type TopNestedOp struct {
	OpBase
	Levels []*TopNestedLevel
}

// TopNestedLevel is top-nested [Count] of Of [with others = Others] by By [asc|desc].
type TopNestedLevel struct {
	Span
	Count  Expr
	Of     Expr
	Others Expr
	By     Expr
	Order  string
}

// JoinOp is join [kind=...] [hints] Right on On. An On item is a column (*Ident) or an
// equality of $left.X and $right.Y (*Binary), possibly combined with "and".
type JoinOp struct {
	OpBase
	Right Expr
	On    []Expr
}

// Kind returns the join kind parameter as written, or "" for the default (innerunique).
func (j *JoinOp) Kind() string { return paramText(j.Param("kind")) }

// LookupOp is lookup [kind=...] Right on On.
type LookupOp struct {
	OpBase
	Right Expr
	On    []Expr
}

// UnionOp is union [params] Tables; it is also a pipeline source.
type UnionOp struct {
	OpBase
	Tables []Expr
}

// ExpandItem is one column of mv-expand or mv-apply: X [to typeof(To)]; X may be a
// *NamedExpr.
type ExpandItem struct {
	Span
	X  Expr
	To *TypeRef
}

// MvExpandOp is mv-expand [params] Items [limit Limit].
type MvExpandOp struct {
	OpBase
	Items []*ExpandItem
	Limit Expr
}

// MvApplyOp is mv-apply [params] Items [limit Limit] on (Body); Body is an
// operator-only pipeline.
type MvApplyOp struct {
	OpBase
	Items     []*ExpandItem
	Limit     Expr
	ContextID Expr // the id clause, rarely used
	Body      *PipeExpr
}

// ParseOp is parse or parse-where [kind=...] X with Pattern. Pattern elements are
// string *Literal, *Star and *ColumnDecl.
type ParseOp struct {
	OpBase
	X       Expr
	Pattern []Expr
}

// ParseKvOp is parse-kv X as (Columns) [with (With)].
type ParseKvOp struct {
	OpBase
	X       Expr
	Columns []*ColumnDecl
	With    []*OpParam
}

// MakeSeriesOp is make-series Aggs on On [from From] [to To] step Step [by By], or with
// in range(From, To, Step) (InRange set).
type MakeSeriesOp struct {
	OpBase
	Aggs    []*SeriesAgg
	On      Expr
	From    Expr
	To      Expr
	Step    Expr
	InRange bool
	By      []Expr
}

// SeriesAgg is one make-series aggregate: X [default = Default]; X may be a *NamedExpr.
type SeriesAgg struct {
	Span
	X       Expr
	Default Expr
}

// RenderOp is render Chart [with (With)]. The legacy properties written after the
// chart type (kind=..., title=..., accumulate=..., by Col, ..., with "...") are in Params,
// "by" with a *ListExpr value.
type RenderOp struct {
	OpBase
	Chart string
	With  []*OpParam
}

// AsOp is as [hint.materialized=true] Name.
type AsOp struct {
	OpBase
	Name *Ident
}

// SimpleOp is an operator with no operands beyond its parameters: getschema, consume,
// graph-mark-components, __executeAndCache.
type SimpleOp struct{ OpBase }

// SerializeOp is serialize [Items].
type SerializeOp struct {
	OpBase
	Items []Expr
}

// EvaluateOp is evaluate [hints] Plugin(args); it is also a pipeline source.
type EvaluateOp struct {
	OpBase
	Plugin *Call
	Schema *TypeRef // the declared output schema after ": (...)", or nil
}

// InvokeOp is invoke Func(args).
type InvokeOp struct {
	OpBase
	Call Expr
}

// SearchOp is search [kind=...] [in (Tables)] Pred; it is also a pipeline source.
type SearchOp struct {
	OpBase
	Tables []Expr
	Pred   Expr
}

// FindOp is find [withsource=...] [in (Tables)] where Pred [project Project |
// project-smart]; it is also a pipeline source.
type FindOp struct {
	OpBase
	Tables       []Expr
	Pred         Expr
	Project      []Expr
	ProjectSmart bool
}

// PrintOp is print Items; a pipeline source.
type PrintOp struct {
	OpBase
	Items []Expr
}

// RangeOp is range Column from From to To step Step; a pipeline source.
type RangeOp struct {
	OpBase
	Column *Ident
	From   Expr
	To     Expr
	Step   Expr
}

// DatatableExpr is datatable (Columns) [Values...]; Values are listed row by row.
type DatatableExpr struct {
	Span
	Columns []*ColumnDecl
	Values  []Expr
}

// ExternalDataExpr is externaldata (Columns) [URIs] [with (With)].
type ExternalDataExpr struct {
	Span
	Name    string // "externaldata" or "external_data"
	Columns []*ColumnDecl
	URIs    []Expr
	With    []*OpParam
}

// ForkOp is fork followed by parenthesized operator-only pipelines, each optionally
// named (Name = (...)).
type ForkOp struct {
	OpBase
	Branches []*ForkBranch
}

// ForkBranch is one branch of fork.
type ForkBranch struct {
	Span
	Name *Ident
	Body *PipeExpr
}

// FacetOp is facet by By [with (With)].
type FacetOp struct {
	OpBase
	By   []Expr
	With *PipeExpr
}

// PartitionOp is partition [hints] by By (Body) or { Body }. Body is an operator-only
// *PipeExpr for the parenthesized form and a *Block for the braced form.
type PartitionOp struct {
	OpBase
	By   Expr
	Body Expr
}

// ReduceOp is reduce [kind=...] by By [with With].
type ReduceOp struct {
	OpBase
	By   Expr
	With []*OpParam
}

// ScanOp is scan [with_match_id=...] [declare (Declare)] with (Steps).
type ScanOp struct {
	OpBase
	OrderBy     []*SortTerm
	PartitionBy []Expr
	Declare     []*Param
	Steps       []*ScanStep
}

// ScanStep is step Name [output=...]: Cond [=> Assigns].
type ScanStep struct {
	Span
	Name    *Ident
	Params  []*OpParam
	Cond    Expr
	Assigns []*NamedExpr
}

// MakeGraphOp is make-graph Source --> Target [params] [with Nodes...].
type MakeGraphOp struct {
	OpBase
	Source      Expr
	Target      Expr
	Nodes       []*GraphNodes
	PartitionBy Expr
	// PartitionOps are the graph operators partitioned-by Column (...) runs on each
	// partition's graph: a pipeline without a source.
	PartitionOps Expr
}

// GraphNodes is Table on Key in make-graph's with clause.
type GraphNodes struct {
	Span
	Table Expr
	Key   Expr
}

// GraphMatchOp is graph-match or graph-shortest-paths: Patterns [where Where]
// [project Project].
type GraphMatchOp struct {
	OpBase
	Patterns []*GraphPattern
	Where    Expr
	Project  []Expr
}

// GraphPattern is a path pattern such as (a)-[e*1..3]->(b).
type GraphPattern struct {
	Span
	Elems []*GraphElem
}

// GraphElem is a node (n) or an edge -[e]-> of a graph pattern. Dir is "->", "<-" or
// "--" for edges. Min and Max are the hop range of a variable-length edge.
type GraphElem struct {
	Span
	Edge bool
	Name *Ident
	Dir  string
	Min  Expr
	Max  Expr
}

// GraphToTableOp is graph-to-table nodes|edges [as Name] [params], ...
type GraphToTableOp struct {
	OpBase
	Items []*GraphToTableItem
}

// GraphToTableItem is one output of graph-to-table.
type GraphToTableItem struct {
	Span
	Kind   string
	As     *Ident
	Params []*OpParam
}

func (*ListExpr) exprNode()         {}
func (*UnionOp) exprNode()          {}
func (*EvaluateOp) exprNode()       {}
func (*SearchOp) exprNode()         {}
func (*FindOp) exprNode()           {}
func (*PrintOp) exprNode()          {}
func (*RangeOp) exprNode()          {}
func (*DatatableExpr) exprNode()    {}
func (*ExternalDataExpr) exprNode() {}
func (*ColumnDecl) exprNode()       {}

// paramText returns the text of a simple parameter value (an identifier or a literal).
func paramText(e Expr) string {
	switch v := e.(type) {
	case *Ident:
		return v.Name
	case *Literal:
		return v.Value
	}
	return ""
}

// MacroExpandOp is macro-expand [kind=...] Group as Name (Body); a pipeline source.
// Group is an *EntityGroup or a name bound to one.
type MacroExpandOp struct {
	OpBase
	Group Expr
	As    *Ident
	Body  Expr
}

// EntityGroup is entity_group [Items], a list of cluster/database references.
type EntityGroup struct {
	Span
	Items []Expr
}

// Placeholder is {Name}: a client-side parameter (Azure Monitor workbooks) that Kusto's
// parser also accepts in expression position.
type Placeholder struct {
	Span
	Name string
}

func (*MacroExpandOp) exprNode() {}
func (*EntityGroup) exprNode()   {}
func (*Placeholder) exprNode()   {}

// AssertSchemaOp is assert-schema (Schema).
type AssertSchemaOp struct {
	OpBase
	Schema *TypeRef
}
