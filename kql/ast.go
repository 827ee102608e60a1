package kql

// Node is any node of the syntax tree. Pos is the offset of its first byte in the
// source, End the offset just past its last byte.
type Node interface {
	Pos() Pos
	End() Pos
}

// Span is the source range of a node; every node embeds one.
type Span struct {
	From Pos
	To   Pos
}

// Pos returns the offset of the node's first byte.
func (s Span) Pos() Pos { return s.From }

// End returns the offset just past the node's last byte.
func (s Span) End() Pos { return s.To }

// Script is a parsed query text: statements separated by semicolons. Src is the text
// it was parsed from; positions index into it.
type Script struct {
	Span
	Stmts []Stmt
	Src   string
	lines []int // offsets of line starts, built on first use
}

// Stmt is a statement: *LetStmt, *QueryStmt, *SetStmt, *DeclareStmt, *PatternStmt,
// *AliasStmt, *RestrictStmt or *DirectiveStmt.
type Stmt interface {
	Node
	stmtNode()
}

// LetStmt binds a name: let Name = Value. Value is a scalar or tabular expression, or a
// *FuncDef for a user function (let f = (x:long) { ... }) or a view.
type LetStmt struct {
	Span
	Name  *Ident
	Value Expr
}

// QueryStmt is a tabular (or scalar) expression statement whose result is returned.
type QueryStmt struct {
	Span
	Query Expr
}

// SetStmt is a request property: set Name [= Value].
type SetStmt struct {
	Span
	Name  string
	Value Expr // nil when absent
}

// DeclareStmt is declare query_parameters(Params).
type DeclareStmt struct {
	Span
	Kind   string // "query_parameters"
	Params []*Param
}

// AliasStmt is alias database Name = Value.
type AliasStmt struct {
	Span
	Kind  string // "database"
	Name  *Ident
	Value Expr
}

// PatternStmt is declare pattern Name [= (Params)[PathParams] { Rules }].
type PatternStmt struct {
	Span
	Name       *Ident
	Params     []*Param
	PathParams []*Param
	Rules      []*PatternRule
}

// PatternRule is one rule of a pattern: (Args).[Path] = { Body }.
type PatternRule struct {
	Span
	Args []Expr
	Path []Expr
	Body *Block
}

// DirectiveStmt is a client directive line such as #connect cluster('x'); Text is the
// whole line.
type DirectiveStmt struct {
	Span
	Text string
}

// RestrictStmt is restrict access to (Entities).
type RestrictStmt struct {
	Span
	Entities []Expr
}

func (*LetStmt) stmtNode()       {}
func (*QueryStmt) stmtNode()     {}
func (*SetStmt) stmtNode()       {}
func (*DeclareStmt) stmtNode()   {}
func (*AliasStmt) stmtNode()     {}
func (*RestrictStmt) stmtNode()  {}
func (*PatternStmt) stmtNode()   {}
func (*DirectiveStmt) stmtNode() {}

// Position returns the 1-based line and column (in characters) of p.
func (s *Script) Position(p Pos) (line, col int) {
	if s.lines == nil {
		s.lines = lineStarts(s.Src)
	}
	return position(s.Src, s.lines, p)
}

// Expr is an expression. Scalar and tabular expressions share the interface, as they
// share a grammar: a name may be a column, a let-bound scalar or a table.
type Expr interface {
	Node
	exprNode()
}

// Ident is a name. Bracketed is set for ['name'] and ["name"]; Name is then the decoded
// text. $left and $right are idents with Name "$left"/"$right". In name patterns
// (project-away Col*, union Table*) Name may contain '*'.
type Ident struct {
	Span
	Name      string
	Bracketed bool
}

// LitKind is the type of a literal.
type LitKind uint8

// Literal kinds.
const (
	LitString   LitKind = iota + 1
	LitLong             // 42, 0x2A, long(42)
	LitInt              // int(42)
	LitReal             // 1.5, 1e3, real(1.5), double(...)
	LitDecimal          // decimal(1.5)
	LitBool             // true, false, bool(true)
	LitDatetime         // datetime(2017-01-01)
	LitTimespan         // 1h, time(1d), timespan(0.12:34:56)
	LitGuid             // guid(...)
	LitNull             // null (dynamic null)
)

var litKindNames = [...]string{"", "string", "long", "int", "real", "decimal", "bool", "datetime", "timespan", "guid", "null"}

func (k LitKind) String() string {
	if int(k) < len(litKindNames) {
		return litKindNames[k]
	}
	return "?"
}

// Literal is a constant. Raw is the source text. Value is the decoded value: a string's
// characters; a number as written; "true"/"false"; for typed literals the text between
// the parentheses with surrounding quotes removed (datetime(2017-01-01) has Value
// "2017-01-01"); for a timespan with unit suffix the text as written ("1h"). Null is set
// for typed nulls such as int(null) and datetime(null).
type Literal struct {
	Span
	Kind  LitKind
	Value string
	Raw   string
	Null  bool
}

// DynamicLit is dynamic(Value). Value is a *Literal, *ArrayLit or *ObjectLit.
type DynamicLit struct {
	Span
	Value Expr
}

// ArrayLit is a JSON-like array inside dynamic(...).
type ArrayLit struct {
	Span
	Elems []Expr
}

// ObjectLit is a JSON-like property bag inside dynamic(...).
type ObjectLit struct {
	Span
	Keys   []string
	Values []Expr
}

// Star is * (all columns, or a wildcard predicate in where * has "x").
type Star struct{ Span }

// Paren is a parenthesized expression; X may be a tabular (pipe) expression.
type Paren struct {
	Span
	X Expr
}

// Unary is a prefix operator: "-" or "+".
type Unary struct {
	Span
	Op string
	X  Expr
}

// Binary is an infix operator. Op is as written: "and", "or", "==", "!=", "<>", "<",
// "<=", ">", ">=", "=~", "!~", "+", "-", "*", "/", "%", the string operators ("has",
// "!has", "contains_cs", "startswith", ..., "matches regex") and ":" (search terms).
type Binary struct {
	Span
	Op    string
	Left  Expr
	Right Expr
}

// InExpr is a set operator: Left Op (List). Op is "in", "!in", "in~", "!in~",
// "has_any" or "has_all". A list element may be a tabular subquery or a dynamic array.
type InExpr struct {
	Span
	Op    string
	Left  Expr
	List  []Expr
	Paren bool // the list was written in parentheses
}

// BetweenExpr is Left between (Low .. High); Not for !between.
type BetweenExpr struct {
	Span
	Not  bool
	Left Expr
	Low  Expr
	High Expr
}

// Call is a function call. Func is an *Ident, or a *Member for a dotted name such as
// cluster("c").database("d"). Arguments may be *NamedExpr (name = value), *Star, or
// tabular expressions (materialize(T | ...), toscalar(...)).
type Call struct {
	Span
	Func Expr
	Args []Expr
}

// Name returns the function name (the last part of a dotted name).
func (c *Call) Name() string {
	switch f := c.Func.(type) {
	case *Ident:
		return f.Name
	case *Member:
		return f.Name.Name
	}
	return ""
}

// Member is X.Name (a dynamic property, $left.Col, or database("d").Table).
type Member struct {
	Span
	X    Expr
	Name *Ident
}

// Index is X[Index].
type Index struct {
	Span
	X     Expr
	Index Expr
}

// NamedExpr is an assignment in a list: Name = Value, or (A, B) = Value when Names has
// several entries. It appears in project, extend, summarize, print, call arguments...
type NamedExpr struct {
	Span
	Names []*Ident
	Value Expr
}

// PipeExpr is a tabular pipeline: Source | Ops[0] | Ops[1] .... Source is nil for the
// operator-only pipelines inside mv-apply, partition, fork and facet.
type PipeExpr struct {
	Span
	Source Expr
	Ops    []Operator
}

// FuncDef is a user function or view: (Params) { Body }. Body's last statement is the
// result.
type FuncDef struct {
	Span
	View   bool
	Params []*Param
	Body   *Block
}

// Block is a sequence of statements in braces.
type Block struct {
	Span
	Stmts []Stmt
}

// Param is a function parameter, a declare'd query parameter or a scan variable:
// Name: Type [= Default].
type Param struct {
	Span
	Name    *Ident
	Type    *TypeRef
	Default Expr
}

// TypeRef is a type: a scalar type name (Name), or a tabular schema (Tabular set):
// (*), (Col:type, ...), (*, Col:type).
type TypeRef struct {
	Span
	Name    string
	Tabular bool
	Star    bool
	Columns []*ColumnDecl
}

// ColumnDecl is Name:Type in a schema, datatable, externaldata, parse or parse-kv.
// Type is nil when no type is written (parse patterns).
type ColumnDecl struct {
	Span
	Name *Ident
	Type *TypeRef
}

// TypeOf is typeof(type) or typeof(schema), as in mv-expand ... to typeof(long).
type TypeOf struct {
	Span
	Type *TypeRef
}

// BadExpr stands for an expression that could not be parsed.
type BadExpr struct{ Span }

func (*Ident) exprNode()       {}
func (*Literal) exprNode()     {}
func (*DynamicLit) exprNode()  {}
func (*ArrayLit) exprNode()    {}
func (*ObjectLit) exprNode()   {}
func (*Star) exprNode()        {}
func (*Paren) exprNode()       {}
func (*Unary) exprNode()       {}
func (*Binary) exprNode()      {}
func (*InExpr) exprNode()      {}
func (*BetweenExpr) exprNode() {}
func (*Call) exprNode()        {}
func (*Member) exprNode()      {}
func (*Index) exprNode()       {}
func (*NamedExpr) exprNode()   {}
func (*PipeExpr) exprNode()    {}
func (*FuncDef) exprNode()     {}
func (*TypeOf) exprNode()      {}
func (*BadExpr) exprNode()     {}
func (*Block) exprNode()       {}
