package sqlparse

// The tree below is what every dialect's parser output is converted to, so that one
// extractor (extract.go) and one hardness counter (hardness.go) serve all dialects.
// It keeps only what those two read, the way sqlc turns each engine's tree into one
// shared tree.

// statement is one parsed statement.
type statement struct {
	kind  string // "select", "insert", ...: the Shape's Kind
	line  int    // where the statement starts, 1-based; 0 when unknown
	col   int
	query *query // the query read: the SELECT itself, or the one inside INSERT, CREATE ... AS, EXPLAIN
	// target is the table an INSERT, UPDATE, DELETE, CREATE, DROP or ALTER names.
	target *source
	// from, where and sets are the read parts of UPDATE and DELETE.
	from  *source
	where *expr
	sets  []*expr
	// exprs are other expressions the statement holds (PRAGMA arguments, VALUES rows).
	exprs []*expr
}

// query is a SELECT with its WITH clause; a compound SELECT has several cores joined by
// ops, and its ORDER BY and LIMIT belong to the whole.
type query struct {
	with      []*cte
	recursive bool
	cores     []*core
	ops       []string // len(cores)-1 entries: "union", "union all", "intersect", "except"
	order     []*orderTerm
	limit     *expr
	offset    *expr
}

type cte struct {
	name string
	cols []string
	q    *query
}

// core is one SELECT ... FROM ... WHERE ... GROUP BY ... HAVING, or one VALUES list.
type core struct {
	distinct bool
	cols     []*resultCol
	from     *source
	where    *expr
	group    []*expr
	having   *expr
	values   [][]*expr
}

type resultCol struct {
	star      bool   // *
	tableStar string // t.*
	e         *expr
	alias     string
}

type orderTerm struct {
	e    *expr
	desc bool
}

type sourceKind uint8

const (
	srcTable sourceKind = iota // a named table (or CTE, or view)
	srcQuery                   // a subquery
	srcJoin                    // left JOIN right ON/USING
	srcFunc                    // a table-valued function
)

type source struct {
	kind    sourceKind
	schema  string // srcTable: the schema written before the dot
	name    string // srcTable, srcFunc
	alias   string
	q       *query   // srcQuery
	left    *source  // srcJoin
	right   *source  // srcJoin
	on      *expr    // srcJoin
	using   []string // srcJoin
	natural bool     // srcJoin
	outer   string   // srcJoin: "left", "right" or "full" for an outer join, "" for an inner one
	args    []*expr  // srcFunc
	line    int
	col     int
}

type exprKind uint8

const (
	exprOther    exprKind = iota // anything else; its parts are in args
	exprColumn                   // [schema.][table.]name
	exprLiteral                  // a number, string, NULL, TRUE/FALSE or blob
	exprParam                    // ?, $1, :name
	exprCall                     // fn(args), with distinct and star
	exprBinary                   // x op y; op in lower case ("=", "!=", "and", "or", "like", "+", ...)
	exprUnary                    // op x; op "not", "-", "+", "~"
	exprBetween                  // x [not] between args[0] and args[1]
	exprIn                       // x [not] in (args) or x [not] in (q)
	exprIsNull                   // x is [not] null
	exprExists                   // [not] exists (q)
	exprSubquery                 // (q)
	exprList                     // (a, b, ...)
	exprStar                     // * inside an expression (rare)
)

type expr struct {
	kind exprKind
	op   string
	not  bool
	// exprColumn; quoted marks a "double-quoted" name, which SQLite reads as a string
	// when no column has that name
	schema, table, name string
	quoted              bool
	// exprLiteral: the value without quotes; str says it was a quoted string
	text string
	str  bool
	// exprCall
	fn       string
	distinct bool
	star     bool
	over     bool // a window call
	x, y     *expr
	args     []*expr
	q        *query
	line     int
	col      int
}

// children calls fn for each direct sub-expression of e (not the subqueries).
func (e *expr) children(fn func(*expr)) {
	if e == nil {
		return
	}
	if e.x != nil {
		fn(e.x)
	}
	if e.y != nil {
		fn(e.y)
	}
	for _, a := range e.args {
		if a != nil {
			fn(a)
		}
	}
}

// aggregates are the function names treated as aggregate calls (in lower case). min and
// max count only with one argument: with more they are SQLite's scalar functions.
var aggregates = map[string]bool{
	"count": true, "sum": true, "avg": true, "min": true, "max": true, "total": true,
	"group_concat": true, "string_agg": true, "array_agg": true, "json_group_array": true,
	"json_group_object": true, "json_agg": true, "jsonb_agg": true, "json_object_agg": true,
	"stddev": true, "stddev_pop": true, "stddev_samp": true, "variance": true,
	"var_pop": true, "var_samp": true, "bool_and": true, "bool_or": true, "every": true,
	"bit_and": true, "bit_or": true, "bit_xor": true, "median": true,
}

func (e *expr) isAggregate() bool {
	if e == nil || e.kind != exprCall || !aggregates[e.fn] {
		return false
	}
	if (e.fn == "min" || e.fn == "max") && len(e.args) > 1 {
		return false
	}
	return true
}
