package kql_test

import (
	"fmt"
	"testing"

	"github.com/qeval/qeval/kql"
)

// MustParse parses src or fails the test.
func MustParse(tb testing.TB, src string) *kql.Script {
	tb.Helper()
	s, err := kql.Parse(src)
	if err != nil {
		tb.Fatalf("Parse(%q): %v", src, err)
	}
	return s
}

// lastOp returns the last operator of the script's last query statement.
func lastOp(tb testing.TB, s *kql.Script) kql.Node {
	tb.Helper()
	q, ok := s.Stmts[len(s.Stmts)-1].(*kql.QueryStmt)
	if !ok {
		tb.Fatalf("last statement is %T, want *kql.QueryStmt", s.Stmts[len(s.Stmts)-1])
	}
	if pe, ok := q.Query.(*kql.PipeExpr); ok {
		return pe.Ops[len(pe.Ops)-1]
	}
	return q.Query
}

// TestOperators parses one query per tabular operator, checks the node type of the
// last operator and the canonical text, which shows every operand was kept.
func TestOperators(t *testing.T) {
	tests := []struct {
		src    string
		typ    string
		format string
	}{
		{`T | where x > 1 and y has "a"`, "*kql.WhereOp", `T | where x > 1 and y has "a"`},
		{`T | filter x == 1`, "*kql.WhereOp", `T | filter x == 1`},
		{`T | where IsBillable = true`, "*kql.WhereOp", `T | where IsBillable == true`},
		{`T | project a, b = c * 2, ['d e']`, "*kql.ProjectOp", `T | project a, b = c * 2, ["d e"]`},
		{`T | project-away a, b*, *c`, "*kql.ProjectAwayOp", `T | project-away a, b*, *c`},
		{`T | project-keep a*`, "*kql.ProjectAwayOp", `T | project-keep a*`},
		{`T | project-rename n = a, m = b`, "*kql.ProjectRenameOp", `T | project-rename n = a, m = b`},
		{`T | project-reorder b, a* asc, c granny-desc`, "*kql.ProjectReorderOp", `T | project-reorder b, a* asc, c granny-desc`},
		{`T | extend (a, b) = f(x), c = 1`, "*kql.ExtendOp", `T | extend (a, b) = f(x), c = 1`},
		{`T | summarize hint.shufflekey=k n = count(), dcount(u) by bin(ts, 1h), k`, "*kql.SummarizeOp", `T | summarize hint.shufflekey=k n = count(), dcount(u) by bin(ts, 1h), k`},
		{`T | summarize by a`, "*kql.SummarizeOp", `T | summarize by a`},
		{`T | count`, "*kql.CountOp", `T | count`},
		{`T | count as N`, "*kql.CountOp", `T | count as N`},
		{`T | distinct a, b`, "*kql.DistinctOp", `T | distinct a, b`},
		{`T | distinct *`, "*kql.DistinctOp", `T | distinct *`},
		{`T | sort by a desc nulls last, b asc`, "*kql.SortOp", `T | sort by a desc nulls last, b asc`},
		{`T | order by a`, "*kql.SortOp", `T | order by a`},
		{`T | top 10 by x asc`, "*kql.TopOp", `T | top 10 by x asc`},
		{`T | take 5`, "*kql.TakeOp", `T | take 5`},
		{`T | limit 5`, "*kql.TakeOp", `T | limit 5`},
		{`T | sample 3`, "*kql.SampleOp", `T | sample 3`},
		{`T | sample-distinct 3 of a`, "*kql.SampleDistinctOp", `T | sample-distinct 3 of a`},
		{`T | top-hitters 5 of a by b`, "*kql.TopHittersOp", `T | top-hitters 5 of a by b`},
		{`T | top-nested 3 of a with others = "x" by c = count() desc, top-nested of b by max(1)`, "*kql.TopNestedOp", `T | top-nested 3 of a with others = "x" by c = count() desc, top-nested of b by max(1)`},
		{`T | join kind=leftouter hint.strategy=broadcast (U | where y) on $left.a == $right.b, c`, "*kql.JoinOp", `T | join kind=leftouter hint.strategy=broadcast (U | where y) on $left.a == $right.b, c`},
		{`T | join U on a`, "*kql.JoinOp", `T | join U on a`},
		{`T | lookup kind=inner (U) on a`, "*kql.LookupOp", `T | lookup kind=inner U on a`},
		{`T | union withsource=S isfuzzy=true U, (V | take 1), W*`, "*kql.UnionOp", `T | union withsource=S isfuzzy=true U, (V | take 1), W*`},
		{`union kind=outer T, database("d").U`, "*kql.UnionOp", `union kind=outer T, database("d").U`},
		{`T | mv-expand with_itemindex=i a, b = c to typeof(long) limit 10`, "*kql.MvExpandOp", `T | mv-expand with_itemindex=i a, b = c to typeof(long) limit 10`},
		{`T | mvexpand a`, "*kql.MvExpandOp", `T | mvexpand a`},
		{`T | mv-apply x = arr to typeof(real) on (top 1 by x | project x)`, "*kql.MvApplyOp", `T | mv-apply x = arr to typeof(real) on (top 1 by x | project x)`},
		{`T | parse kind=regex flags=Ui s with * "a=" a:long "," b *`, "*kql.ParseOp", `T | parse kind=regex flags=Ui s with * "a=" a:long "," b *`},
		{`T | parse-where s with "x" a`, "*kql.ParseOp", `T | parse-where s with "x" a`},
		{`T | parse-kv s as (a:long, b:string) with (pair_delimiter=",", kv_delimiter="=")`, "*kql.ParseKvOp", `T | parse-kv s as (a:long, b:string) with (pair_delimiter=",", kv_delimiter="=")`},
		{`T | make-series n = count() default = 0 on ts from ago(1d) to now() step 1h by k`, "*kql.MakeSeriesOp", `T | make-series n = count() default = 0 on ts from ago(1d) to now() step 1h by k`},
		{`T | make-series avg(x) on ts in range(datetime(2020-01-01), datetime(2020-01-02), 1h)`, "*kql.MakeSeriesOp", `T | make-series avg(x) on ts in range(datetime(2020-01-01T00:00:00Z), datetime(2020-01-02T00:00:00Z), 1h)`},
		{`T | render timechart with (title="t", ycolumns=a, b)`, "*kql.RenderOp", `T | render timechart with (title="t", ycolumns=a, b)`},
		{`T | render piechart by a, b kind=stacked`, "*kql.RenderOp", `T | render piechart by a, b kind=stacked`},
		{`T | as hint.materialized=true X`, "*kql.AsOp", `T | as hint.materialized=true X`},
		{`T | getschema`, "*kql.SimpleOp", `T | getschema`},
		{`T | consume decodeblocks=true`, "*kql.SimpleOp", `T | consume decodeblocks=true`},
		{`T | serialize rn = row_number()`, "*kql.SerializeOp", `T | serialize rn = row_number()`},
		{`T | evaluate bag_unpack(d, columnsConflict="keep")`, "*kql.EvaluateOp", `T | evaluate bag_unpack(d, columnsConflict = "keep")`},
		{`T | evaluate pivot(k) : (a:long, b:string)`, "*kql.EvaluateOp", `T | evaluate pivot(k) : (a:long, b:string)`},
		{`T | invoke f(1)`, "*kql.InvokeOp", `T | invoke f(1)`},
		{`search in (T, U*) "err" and Level:"x"`, "*kql.SearchOp", `search in (T, U*) "err" and Level : "x"`},
		{`T | search kind=case_sensitive * has "a"`, "*kql.SearchOp", `T | search kind=case_sensitive * has "a"`},
		{`find withsource=S in (T, U) where x == 1 project a, b:string`, "*kql.FindOp", `find withsource=S in (T, U) where x == 1 project a, b:string`},
		{`find "x" project-smart`, "*kql.FindOp", `find where "x" project-smart`},
		{`print a = 1, 2`, "*kql.PrintOp", `print a = 1, 2`},
		{`range x from 1 to 10 step 2`, "*kql.RangeOp", `range x from 1 to 10 step 2`},
		{`datatable(a:long, b:string) [1, "x", 2, "y",]`, "*kql.DatatableExpr", `datatable(a:long, b:string) [1, "x", 2, "y"]`},
		{`externaldata(a:string) [h@"https://x/y.csv"] with (format="csv")`, "*kql.ExternalDataExpr", `externaldata(a:string) ["https://x/y.csv"] with (format="csv")`},
		{`T | fork (where x) n = (take 1)`, "*kql.ForkOp", `T | fork (where x) n = (take 1)`},
		{`T | facet by a, b with (take 5)`, "*kql.FacetOp", `T | facet by a, b with (take 5)`},
		{`T | partition hint.strategy=native by k (top 1 by x)`, "*kql.PartitionOp", `T | partition hint.strategy=native by k (top 1 by x)`},
		{`T | partition by k { U | where x == k }`, "*kql.PartitionOp", `T | partition by k { U | where x == k }`},
		{`T | reduce by msg with threshold=0.5, characters="-"`, "*kql.ReduceOp", `T | reduce by msg with threshold=0.5, characters="-"`},
		{`T | scan with_match_id=m declare (s:long = 0) with (step a: x > 1 => s = a.s + 1; step b output=none: true;)`, "*kql.ScanOp", `T | scan with_match_id=m declare (s:long = 0) with ( step a: x > 1 => s = a.s + 1; step b output=none: true; )`},
		{`E | make-graph src --> dst with N on id`, "*kql.MakeGraphOp", `E | make-graph src --> dst with N on id`},
		{`E | make-graph s --> d with N on id partitioned-by t (graph-match (x)-[p*2..3]->(y) project x.id)`, "*kql.MakeGraphOp",
			`E | make-graph s --> d with N on id partitioned-by t (graph-match (x)-[p*2..3]->(y) project x.id)`},
		{`G | graph-match (a)-[e*1..3]->(b)<-[f]-(c) where a.x > 1 project a.id`, "*kql.GraphMatchOp", `G | graph-match (a)-[e*1..3]->(b)<-[f]-(c) where a.x > 1 project a.id`},
		{`G | graph-to-table nodes as N with_node_id=id, edges`, "*kql.GraphToTableOp", `G | graph-to-table nodes as N with_node_id=id, edges`},
		{`G | graph-mark-components with_component_id=c`, "*kql.SimpleOp", `G | graph-mark-components with_component_id=c`},
		{`T | assert-schema (a:long, b:string)`, "*kql.AssertSchemaOp", `T | assert-schema (a:long, b:string)`},
		{`macro-expand isfuzzy=true G as X (X.T | count)`, "*kql.MacroExpandOp", `macro-expand isfuzzy=true G as X (X.T | count)`},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			s := MustParse(t, tt.src)
			op := lastOp(t, s)
			if got := fmt.Sprintf("%T", op); got != tt.typ {
				t.Errorf("last operator is %s, want %s", got, tt.typ)
			}
			if got := kql.Format(s); got != tt.format {
				t.Errorf("Format = %s\nwant       %s", got, tt.format)
			}
		})
	}
}

// TestPrecedence checks the tree shape of operator precedence, which follows
// Kusto.Language: string operators bind tighter than arithmetic, comparisons do not
// chain, and/or are left-associative.
func TestPrecedence(t *testing.T) {
	tests := []struct{ src, want string }{
		{`a or b and c`, `(or a (and b c))`},
		{`a and b or c and d`, `(or (and a b) (and c d))`},
		{`a + b * c`, `(+ a (* b c))`},
		{`a - b - c`, `(- (- a b) c)`},
		{`a + b has "x"`, `(+ a (has b "x"))`},
		{`a == b + 1`, `(== a (+ b 1))`},
		{`a < b == true`, `(== (< a b) true)`},
		{`-a * b`, `(* (- a) b)`},
		{`x in ("a", "b") and y !between (1 .. 2)`, `(and (in x "a" "b") (!between y 1 2))`},
		{`f(a).b[0] =~ "x"`, `(=~ (index (. (call f a) b) 0) "x")`},
		{`* has "x"`, `(has * "x")`},
		{`a matches regex "x" or not(b)`, `(or (matches regex a "x") (call not b))`},
	}
	for _, tt := range tests {
		s := MustParse(t, "print "+tt.src)
		e := s.Stmts[0].(*kql.QueryStmt).Query.(*kql.PrintOp).Items[0]
		if got := sexpr(e); got != tt.want {
			t.Errorf("Parse(%s) = %s, want %s", tt.src, got, tt.want)
		}
	}
}

// sexpr prints an expression tree as an s-expression, to show its structure.
func sexpr(e kql.Expr) string {
	switch e := e.(type) {
	case *kql.Binary:
		return "(" + e.Op + " " + sexpr(e.Left) + " " + sexpr(e.Right) + ")"
	case *kql.Unary:
		return "(" + e.Op + " " + sexpr(e.X) + ")"
	case *kql.Paren:
		return sexpr(e.X)
	case *kql.InExpr:
		s := "(" + e.Op + " " + sexpr(e.Left)
		for _, x := range e.List {
			s += " " + sexpr(x)
		}
		return s + ")"
	case *kql.BetweenExpr:
		op := "between"
		if e.Not {
			op = "!between"
		}
		return "(" + op + " " + sexpr(e.Left) + " " + sexpr(e.Low) + " " + sexpr(e.High) + ")"
	case *kql.Call:
		s := "(call " + sexpr(e.Func)
		for _, a := range e.Args {
			s += " " + sexpr(a)
		}
		return s + ")"
	case *kql.Member:
		return "(. " + sexpr(e.X) + " " + e.Name.Name + ")"
	case *kql.Index:
		return "(index " + sexpr(e.X) + " " + sexpr(e.Index) + ")"
	}
	return kql.Format(e)
}

// TestStatements covers the statement forms and the expressions that only appear in
// them.
func TestStatements(t *testing.T) {
	tests := []struct{ src, want string }{
		{"let n = 5;\nlet t = 1h;\nT | where x > n", "let n = 5;\nlet t = 1h;\nT | where x > n"},
		{"let T2 = T | where a; T2 | count", "let T2 = T | where a;\nT2 | count"},
		{"let f = (a:string, b:long = 5, T:(x:int)) { T | where x > b };\nf('a')", "let f = (a:string, b:long = 5, T:(x:int)) { T | where x > b };\nf(\"a\")"},
		{"let g = () { now() }; print g()", "let g = () { now() };\nprint g()"},
		{"let v = view () { T | take 1 }; v", "let v = view () { T | take 1 };\nv"},
		{"let m = materialize(T | summarize count() by a); m | join m on a", "let m = materialize(T | summarize count() by a);\nm | join m on a"},
		{"let s = toscalar(T | count); print s", "let s = toscalar(T | count);\nprint s"},
		{"set notruncation; set query_take_max_records = 10; T", "set notruncation;\nset query_take_max_records = 10;\nT"},
		{"declare query_parameters(p:string = 'x'); T | where a == p", "declare query_parameters (p:string = \"x\");\nT | where a == p"},
		{"alias database db = cluster('c').database('d'); T", "alias database db = cluster(\"c\").database(\"d\");\nT"},
		{"restrict access to (T, U*); T", "restrict access to (T, U*);\nT"},
		{"cluster('c').database('d').T | take 1", "cluster(\"c\").database(\"d\").T | take 1"},
		{"T | take 1; U | take 2;", "T | take 1;\nU | take 2"},
		{"(T | where x) | count", "(T | where x) | count"},
		{"T | where x in ((U | project y))", "T | where x in ((U | project y))"},
		{"print ['a'] = 1", "print a = 1"},
	}
	for _, tt := range tests {
		s := MustParse(t, tt.src)
		if got := kql.Format(s); got != tt.want {
			t.Errorf("Format(Parse(%q)) =\n%s\nwant\n%s", tt.src, got, tt.want)
		}
	}
}

func TestFuncDef(t *testing.T) {
	s := MustParse(t, "let f = (T:(x:long, *), n:int = 3) { let k = n * 2; T | take k };\nf(U)")
	let := s.Stmts[0].(*kql.LetStmt)
	fd, ok := let.Value.(*kql.FuncDef)
	if !ok {
		t.Fatalf("let value is %T, want *kql.FuncDef", let.Value)
	}
	if len(fd.Params) != 2 || !fd.Params[0].Type.Tabular || !fd.Params[0].Type.Star || len(fd.Params[0].Type.Columns) != 1 {
		t.Errorf("params = %+v, want a tabular (x:long, *) and n:int", fd.Params)
	}
	if fd.Params[1].Type.Name != "int" || kql.Format(fd.Params[1].Default) != "3" {
		t.Errorf("param n = %+v", fd.Params[1])
	}
	if len(fd.Body.Stmts) != 2 {
		t.Errorf("body has %d statements, want 2", len(fd.Body.Stmts))
	}
}

func TestJoinConditions(t *testing.T) {
	s := MustParse(t, "T | join kind=inner (U) on $left.a == $right.b and $left.c == $right.d, e")
	j := lastOp(t, s).(*kql.JoinOp)
	if j.Kind() != "inner" {
		t.Errorf("Kind() = %q, want inner", j.Kind())
	}
	if len(j.On) != 2 {
		t.Fatalf("On has %d items, want 2", len(j.On))
	}
	and, ok := j.On[0].(*kql.Binary)
	if !ok || and.Op != "and" {
		t.Fatalf("On[0] = %s, want an and of two equalities", sexpr(j.On[0]))
	}
	if _, ok := j.Right.(*kql.Ident); !ok {
		t.Errorf("Right = %T, want *kql.Ident", j.Right)
	}
}

func TestInspect(t *testing.T) {
	s := MustParse(t, "let x = 1; T | where a > x | join (U | where b) on c | summarize count() by d")
	var idents []string
	kql.Inspect(s, func(n kql.Node) bool {
		if id, ok := n.(*kql.Ident); ok {
			idents = append(idents, id.Name)
		}
		return true
	})
	want := "[x T a x U b c count d]"
	if got := fmt.Sprint(idents); got != want {
		t.Errorf("idents = %s, want %s", got, want)
	}
}

func TestPosition(t *testing.T) {
	src := "T\n| where é == 1\n| take 5"
	s := MustParse(t, src)
	pe := s.Stmts[0].(*kql.QueryStmt).Query.(*kql.PipeExpr)
	take := pe.Ops[1]
	if line, col := s.Position(take.Pos()); line != 3 || col != 3 {
		t.Errorf("take at %d:%d, want 3:3", line, col)
	}
	where := pe.Ops[0].(*kql.WhereOp)
	lit := where.Pred.(*kql.Binary).Right
	if line, col := s.Position(lit.Pos()); line != 2 || col != 14 {
		t.Errorf("literal at %d:%d, want 2:14 (columns count characters)", line, col)
	}
	if got := src[where.Pos():where.End()]; got != "where é == 1" {
		t.Errorf("where span = %q", got)
	}
}
