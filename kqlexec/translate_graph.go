package kqlexec

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/qeval/qeval/kql"
)

// graph is what make-graph builds: its edges (the input rows, source and target
// columns) and its nodes (a relation whose first column is the hidden node id, the
// others the node properties, in the order the nodes first appear). Only graph
// operators read it.
type graph struct {
	edges    *rel
	src, dst int
	nodes    *rel
}

// nodeIDCol is the hidden node id column of a graph's nodes.
const nodeIDCol = "\x00node"

// nodeKeyCol holds the key of a graph's node rows when two node tables give them.
const nodeKeyCol = "\x00nodekey"

// makeGraph translates Edges | make-graph Source --> Target [with_node_id=Name] [with
// Nodes on Key] [partitioned-by Column (GraphOperators)]. Without a node table the
// nodes are the distinct source and target values, each with the property Name
// (with_node_id) holding its id; with a node table, its rows (the first for an id
// named twice), and then the ids the edges name that the table does not have, with
// empty properties. partitioned-by builds one graph per value of Column (from the
// edges and node rows with that value), runs the graph operators on each and puts
// the results together.
func (t *translator) makeGraph(in *rel, o *kql.MakeGraphOp, e *env) (*rel, error) {
	src, ok1 := o.Source.(*kql.Ident)
	dst, ok2 := o.Target.(*kql.Ident)
	if !ok1 || !ok2 || in.index(src.Name) < 0 || in.index(dst.Name) < 0 {
		return nil, t.errAt(o, "make-graph's source and target must be columns of the edges")
	}
	nodeID := ""
	if id, ok := o.Param("with_node_id").(*kql.Ident); ok {
		nodeID = id.Name
	}
	var nt *rel
	ki := -1
	if len(o.Nodes) > 0 {
		if nodeID != "" {
			return nil, t.errAt(o, "make-graph takes with_node_id or node tables, not both")
		}
		var tables []*rel
		var keys []string
		for _, n := range o.Nodes {
			r, err := t.tabular(n.Table, e)
			if err != nil {
				return nil, err
			}
			key, ok := n.Key.(*kql.Ident)
			if !ok || r.index(key.Name) < 0 {
				return nil, t.errAt(n.Key, "make-graph's node key must be a column of the node table")
			}
			tables, keys = append(tables, r), append(keys, key.Name)
		}
		nt, ki = tables[0], tables[0].index(keys[0])
		if len(tables) > 1 {
			// the node tables' rows, by column name, keyed by each table's own key (a
			// hidden column; the first row of an id wins)
			both := e.child()
			both.binds["__nodes2"] = &binding{rel: tables[1]}
			u, err := t.viaKQL(o, tables[0], both, "union (__input | extend __nodekey = "+quoteName(keys[0])+"), (__nodes2 | extend __nodekey = "+quoteName(keys[1])+")")
			if err != nil {
				return nil, err
			}
			ki = u.index("__nodekey")
			cols := append([]column(nil), u.cols...)
			cols[ki].Name = nodeKeyCol
			nt = &rel{from: u.from, cols: cols}
		}
	}
	build := func(edges, nodes *rel) *rel {
		return &rel{graph: t.buildGraph(edges, edges.index(src.Name), edges.index(dst.Name), nodeID, nodes, ki)}
	}
	if o.PartitionBy == nil {
		return build(in, nt), nil
	}
	col, ok := o.PartitionBy.(*kql.Ident)
	if !ok || in.index(col.Name) < 0 || (nt != nil && nt.index(col.Name) < 0) {
		return nil, t.errAt(o.PartitionBy, "partitioned-by takes a column of the edges (and of the node table)")
	}
	body, ok := o.PartitionOps.(*kql.PipeExpr)
	if !ok || body.Source != nil || len(body.Ops) == 0 {
		return nil, t.errAt(o, "partitioned-by runs graph operators: partitioned-by Column (graph-match ...)")
	}
	if t.probe == nil {
		return nil, t.unsupported(o, "make-graph partitioned-by without an engine")
	}
	rows, err := t.probeKeys(o, in, col.Name, true, "partitioned-by")
	if err != nil {
		return nil, err
	}
	only := func(r *rel, col string, v string) *rel {
		return t.stage(r.cols, "SELECT "+strings.Join(append(selectCols(r), "t._o"), ", ")+" FROM "+r.from+" t WHERE t."+colName(r.index(col))+" = "+v)
	}
	parts := e.child()
	u := &kql.UnionOp{}
	for i, row := range rows {
		v := sqlValue(row[0])
		var nodes *rel
		if nt != nil {
			nodes = only(nt, col.Name, v)
		}
		r := build(only(in, col.Name, v), nodes)
		for _, op := range body.Ops {
			if r, err = t.op(r, op, e); err != nil {
				return nil, err
			}
		}
		name := "__graphpart" + strconv.Itoa(i)
		parts.binds[name] = &binding{rel: r}
		u.Tables = append(u.Tables, &kql.Ident{Name: name})
	}
	if len(u.Tables) == 0 {
		return nil, t.unsupported(o, "partitioned-by over edges without a value")
	}
	return t.union(nil, u, parts)
}

// buildGraph makes the graph of edges (src and dst their source and target columns):
// its nodes from the node table nt (key column ki) or, without one, from the ids the
// edges name (nodeID, when set, names the property holding the id).
func (t *translator) buildGraph(edges *rel, src, dst int, nodeID string, nt *rel, ki int) *graph {
	g := &graph{edges: edges, src: src, dst: dst}
	// every id the edges name, in the order they first appear (source before target)
	ends := "SELECT v, min(o) AS o FROM (SELECT t." + colName(src) + " AS v, t._o * 2 AS o FROM " + edges.from + " t UNION ALL SELECT t." +
		colName(dst) + ", t._o * 2 + 1 FROM " + edges.from + " t) WHERE v IS NOT NULL GROUP BY v"
	idType := edges.cols[src].Type
	if nt == nil {
		cols := []column{{nodeIDCol, idType}}
		sel := "SELECT n.v"
		if nodeID != "" {
			cols = append(cols, column{nodeID, idType})
			sel += ", n.v"
		}
		g.nodes = t.stage(cols, sel+", n.o FROM ("+ends+") n")
		return g
	}
	cols := append([]column{{nodeIDCol, nt.cols[ki].Type}}, nt.cols...)
	// a node only the edges name has its key and no other property (the
	// graph-to-table page lists such a node with its name)
	missing := make([]string, len(nt.cols))
	for i := range missing {
		missing[i] = "NULL"
	}
	if ki < len(nt.cols) && nt.cols[ki].Name != nodeKeyCol {
		missing[ki] = "n.v"
	}
	// the node table's rows first (one per id), then the ids only the edges name
	sel := "SELECT t." + colName(ki) + ", " + strings.Join(selectCols(nt), ", ") + ", t._o FROM " + nt.from + " t" +
		" WHERE t." + colName(ki) + " IS NOT NULL AND t._o = (SELECT min(u._o) FROM " + nt.from + " u WHERE u." + colName(ki) + " = t." + colName(ki) + ")" +
		" UNION ALL SELECT n.v, " + strings.Join(missing, ", ") + ", (SELECT count(*) FROM " + nt.from + ") + n.o FROM (" + ends + ") n" +
		" WHERE n.v NOT IN (SELECT u." + colName(ki) + " FROM " + nt.from + " u WHERE u." + colName(ki) + " IS NOT NULL)"
	g.nodes = t.stage(cols, sel)
	return g
}

// graphMarkComponents translates G | graph-mark-components [kind=weak|strong]
// [with_component_id=Name]: each node gets the number of its weakly connected
// component (edges read both ways) or strongly connected one (nodes that reach each
// other along the edges' direction), components numbered from 0 in the order of their
// first node.
func (t *translator) graphMarkComponents(in *rel, o *kql.SimpleOp) (*rel, error) {
	g := in.graph
	strong := false
	if k, ok := o.Param("kind").(*kql.Ident); ok {
		switch strings.ToLower(k.Name) {
		case "weak":
		case "strong":
			strong = true
		default:
			return nil, t.errAt(k, "graph-mark-components kind is weak or strong, not %s", k.Name)
		}
	}
	name := "ComponentId"
	if id, ok := o.Param("with_component_id").(*kql.Ident); ok {
		name = id.Name
	}
	// which nodes each node reaches, edges read both ways (UNION drops repeats, so
	// the recursion ends)
	reach := "r" + strconv.Itoa(t.n+1)
	t.n++
	nodes, edges := g.nodes.from, g.edges.from
	s, d := "e."+colName(g.src), "e."+colName(g.dst)
	backward := " UNION SELECT r.a, " + s + " FROM " + reach + " r JOIN " + edges + " e ON " + d + " = r.b"
	if strong {
		backward = "" // along the edges only; a component is what reaches back
	}
	t.ctes = append(t.ctes, reach+"(a, b) AS (SELECT n.c0, n.c0 FROM "+nodes+" n"+
		" UNION SELECT r.a, "+d+" FROM "+reach+" r JOIN "+edges+" e ON "+s+" = r.b"+backward+")")
	same := reach + " r"
	if strong {
		same = reach + " r JOIN " + reach + " q ON q.a = r.b AND q.b = r.a"
	}
	cols := append(append([]column(nil), g.nodes.cols...), column{name, TLong})
	sel := "SELECT " + strings.Join(append(selectCols(g.nodes), "dense_rank() OVER (ORDER BY c.root) - 1", "t._o"), ", ") +
		" FROM " + nodes + " t JOIN (SELECT r.a, min(m._o) AS root FROM " + same + " JOIN " + nodes + " m ON m.c0 = r.b GROUP BY r.a) c ON c.a = t.c0"
	marked := t.stage(cols, sel)
	return &rel{graph: &graph{edges: g.edges, src: g.src, dst: g.dst, nodes: marked}}, nil
}

// graphToTable translates G | graph-to-table nodes or edges: the nodes with their
// properties, or the edges with theirs. with_node_id, with_source_id and
// with_target_id put id columns first: Kusto's node id is hash() of the node's key
// (xxhash64; the reference's graph-to-table example gives these ids for its five
// people). An item's as Name binds the table to Name for the statements after it (the
// page's form with both tables, nodes as N, edges as E, then N and E); the operator's
// own result is its first item's table.
func (t *translator) graphToTable(in *rel, o *kql.GraphToTableOp, e *env) (*rel, error) {
	var first *rel
	for _, it := range o.Items {
		r, err := t.graphToTableItem(in, it)
		if err != nil {
			return nil, err
		}
		if it.As != nil {
			r = r.named(it.As.Name)
			e.binds[it.As.Name] = &binding{rel: r}
		}
		if first == nil {
			first = r
		}
	}
	if first == nil {
		return nil, t.errAt(o, "graph-to-table exports nodes or edges: name one")
	}
	return first, nil
}

// graphToTableItem is one table of graph-to-table: the nodes or the edges.
func (t *translator) graphToTableItem(in *rel, it *kql.GraphToTableItem) (*rel, error) {
	kind := strings.ToLower(it.Kind)
	known := map[string][]string{"nodes": {"with_node_id"}, "edges": {"with_source_id", "with_target_id"}}
	ids := map[string]string{}
	for _, p := range it.Params {
		name := strings.ToLower(p.Name)
		if !slices.Contains(known[kind], name) {
			return nil, t.errAt(p, "graph-to-table %s takes %s, not %s", kind, strings.Join(known[kind], " and "), p.Name)
		}
		id, ok := p.Value.(*kql.Ident)
		if !ok {
			return nil, t.errAt(p, "%s names the id column", p.Name)
		}
		ids[name] = id.Name
	}
	// nodeID is the id column of the node whose key is the SQL expression key.
	nodeID := func(key string, keyType Type) string { return call("hash", TLong, expr{sql: key, t: keyType}).sql }
	switch kind {
	case "nodes":
		n := in.graph.nodes
		var cols []column
		var sels []string
		if name, ok := ids["with_node_id"]; ok {
			cols, sels = append(cols, column{name, TLong}), append(sels, nodeID("t.c0", n.cols[0].Type))
		}
		for i, c := range n.cols[1:] {
			if strings.HasPrefix(c.Name, "\x00") {
				continue // the graph's own columns
			}
			cols, sels = append(cols, c), append(sels, "t."+colName(i+1))
		}
		return t.stage(cols, "SELECT "+strings.Join(append(sels, "t._o"), ", ")+" FROM "+n.from+" t"), nil
	case "edges":
		g := in.graph
		if len(ids) == 0 {
			return g.edges, nil
		}
		var cols []column
		var sels []string
		for _, side := range []struct {
			param string
			col   int
		}{{"with_source_id", g.src}, {"with_target_id", g.dst}} {
			if name, ok := ids[side.param]; ok {
				cols = append(cols, column{name, TLong})
				sels = append(sels, nodeID("t."+colName(side.col), g.edges.cols[side.col].Type))
			}
		}
		cols = append(cols, g.edges.cols...)
		sels = append(sels, selectCols(g.edges)...)
		return t.stage(cols, "SELECT "+strings.Join(append(sels, "t._o"), ", ")+" FROM "+g.edges.from+" t"), nil
	}
	return nil, t.errAt(it, "graph-to-table exports nodes or edges, not %s", it.Kind)
}

// graphScope is what a graph-match's where and project read besides the variables'
// properties: the node variables' aliases, for node_degree_in/out.
type graphScope struct {
	g     *graph
	nodes map[string]string // node variable → SQL alias of its node row
	// paths are the variable-length edge variables → SQL alias of their path row
	// (columns eds and nds: JSON arrays of the edges' row numbers and of the ids of
	// the nodes inside the path)
	paths map[string]string
	// edges are the fixed-length edge variables → SQL alias of their edge row
	edges map[string]string
	// current is the alias of the node (or edge) that all(), any() and map() are at
	// ("" elsewhere): node_degree_in() without an argument reads it
	current string
}

// graphMatch translates G | graph-match [cycles=unique_edges|all] Pattern [, ...]
// [where Cond] project Items for patterns of fixed length: each node variable is a
// node row, each edge variable an edge row, joined as the pattern's directions say
// (-->, <--, or either way for --); a variable named twice is one node (or edge);
// with cycles=unique_edges (the default) no edge row is matched twice. Where and
// project read Variable.Property. Variable-length edges (-[e*1..3]->) and
// graph-shortest-paths are not translated.
func (t *translator) graphMatch(in *rel, o *kql.GraphMatchOp, e *env) (*rel, error) {
	shortest := o.Name == "graph-shortest-paths"
	output := "any"
	if shortest {
		if p, ok := o.Param("output").(*kql.Ident); ok {
			output = strings.ToLower(p.Name)
		}
		if output != "any" && output != "all" {
			return nil, t.errAt(o, "graph-shortest-paths' output is any or all, not %s", output)
		}
		if len(o.Patterns) != 1 {
			return nil, t.errAt(o, "graph-shortest-paths takes one pattern")
		}
	}
	cycles := "unique_edges"
	if c, ok := o.Param("cycles").(*kql.Ident); ok {
		cycles = strings.ToLower(c.Name)
	}
	if cycles != "unique_edges" && cycles != "all" && cycles != "none" {
		return nil, t.errAt(o, "graph-match's cycles is all, none or unique_edges, not %s", cycles)
	}
	if len(o.Project) == 0 {
		return nil, t.errAt(o, "graph-match needs a project clause")
	}
	g := in.graph
	nodeAlias := map[string]string{}
	edgeAlias := map[string]string{}
	pathAlias := map[string]string{}
	var from, conds, edgeOrder, pathOrder, seq []string // seq: the aliases in the pattern's order
	elemAlias := map[*kql.GraphElem]string{}
	node := func(el *kql.GraphElem) string {
		name := ""
		if el.Name != nil {
			name = el.Name.Name
		}
		if a, ok := nodeAlias[name]; ok && name != "" {
			elemAlias[el] = a
			return a
		}
		a := "gn" + strconv.Itoa(len(from))
		from = append(from, g.nodes.from+" "+a)
		if name != "" {
			nodeAlias[name] = a
		}
		elemAlias[el] = a
		return a
	}
	for _, p := range o.Patterns {
		if len(p.Elems) == 0 || p.Elems[0].Edge {
			return nil, t.errAt(p, "a graph pattern starts with a node: (n)")
		}
		left := node(p.Elems[0])
		start := len(seq)
		seq = appendNew(seq, left)
		for i := 1; i+1 < len(p.Elems); i += 2 {
			ed, nx := p.Elems[i], p.Elems[i+1]
			if !ed.Edge || nx.Edge {
				return nil, t.errAt(ed, "a graph pattern alternates nodes and edges")
			}
			right := node(nx)
			name := ""
			if ed.Name != nil {
				name = ed.Name.Name
			}
			if ed.Min != nil || ed.Max != nil {
				if _, dup := edgeAlias[name]; dup || pathAlias[name] != "" {
					return nil, t.unsupported(ed, "graph-match naming a variable-length edge twice")
				}
				lo, hi, err := t.hops(ed, e)
				if err != nil {
					return nil, err
				}
				a := t.pathCTE(g, ed.Dir, hi, cycles)
				from = append(from, a.cte+" "+a.alias)
				conds = append(conds, a.alias+".start = "+left+".c0", a.alias+".cur = "+right+".c0",
					a.alias+".len BETWEEN "+strconv.FormatInt(lo, 10)+" AND "+strconv.FormatInt(hi, 10))
				if cycles == "none" {
					// the path's ends are not among its inner nodes, and differ
					conds = append(conds, a.alias+".start != "+a.alias+".cur")
				}
				pathOrder = append(pathOrder, a.alias)
				if name != "" {
					pathAlias[name] = a.alias
				}
				seq = appendNew(appendNew(seq, a.alias), right)
				left = right
				continue
			}
			a, seen := edgeAlias[name]
			if !seen || name == "" {
				a = "ge" + strconv.Itoa(len(from))
				from = append(from, g.edges.from+" "+a)
				edgeOrder = append(edgeOrder, a)
				if name != "" {
					edgeAlias[name] = a
				}
			}
			s, d := a+"."+colName(g.src), a+"."+colName(g.dst)
			l, r := left+".c0", right+".c0"
			switch ed.Dir {
			case "->":
				conds = append(conds, s+" = "+l+" AND "+d+" = "+r)
			case "<-":
				conds = append(conds, d+" = "+l+" AND "+s+" = "+r)
			default:
				conds = append(conds, "(("+s+" = "+l+" AND "+d+" = "+r+") OR ("+d+" = "+l+" AND "+s+" = "+r+"))")
			}
			seq = appendNew(appendNew(seq, a), right)
			left = right
		}
		// matches come in the order of the edges' direction: a pattern written against
		// it, (a)<-[e]-(b), is ordered as (b)-[e]->(a) (the reference's examples of
		// both directions agree)
		if len(p.Elems) > 1 && p.Elems[1].Dir == "<-" {
			slices.Reverse(seq[start:])
		}
	}
	if cycles != "all" {
		// no edge row twice in a match: fixed edges apart, and apart from the paths'
		for i := range edgeOrder {
			for j := i + 1; j < len(edgeOrder); j++ {
				conds = append(conds, edgeOrder[i]+"._o != "+edgeOrder[j]+"._o")
			}
			for _, p := range pathOrder {
				conds = append(conds, "NOT EXISTS (SELECT 1 FROM json_each("+p+".eds) j WHERE j.value = "+edgeOrder[i]+"._o)")
			}
		}
		for i := range pathOrder {
			for j := i + 1; j < len(pathOrder); j++ {
				conds = append(conds, "NOT EXISTS (SELECT 1 FROM json_each("+pathOrder[i]+".eds) j JOIN json_each("+pathOrder[j]+".eds) k ON j.value = k.value)")
			}
		}
	}
	if cycles == "none" {
		// no node twice: the node variables' rows apart, and not inside a path
		var ns []string
		for _, a := range nodeAlias {
			ns = append(ns, a)
		}
		sort.Strings(ns)
		for i := range ns {
			for j := i + 1; j < len(ns); j++ {
				conds = append(conds, ns[i]+".c0 != "+ns[j]+".c0")
			}
			for _, p := range pathOrder {
				conds = append(conds, "NOT EXISTS (SELECT 1 FROM json_each("+p+".nds) j WHERE j.value = "+ns[i]+".c0)")
			}
		}
	}
	// the variables' properties, as Variable.Property
	props := map[string]map[string]expr{}
	for name, a := range nodeAlias {
		m := map[string]expr{}
		for i, c := range g.nodes.cols[1:] {
			m[c.Name] = expr{sql: a + "." + colName(i+1), t: c.Type}
		}
		props[name] = m
	}
	for name, a := range edgeAlias {
		m := map[string]expr{}
		for i, c := range g.edges.cols {
			m[c.Name] = expr{sql: a + "." + colName(i), t: c.Type}
		}
		props[name] = m
	}
	// a variable-length edge's property is the list of its edges' values, in order;
	// the variable itself is the list of its edges, each a bag of its properties
	inner := e.child()
	for name, a := range pathAlias {
		m := map[string]expr{}
		rows := "json_each(" + a + ".eds) j JOIN " + g.edges.from + " " + a + "x ON " + a + "x._o = j.value"
		var kv []expr
		for i, c := range g.edges.cols {
			x := expr{sql: a + "x." + colName(i), t: c.Type}
			m[c.Name] = listOf(x, rows)
			kv = append(kv, lit(c.Name, TString), x)
		}
		props[name] = m
		edges := listOf(call("bag_pack", TDynamic, kv...), rows)
		inner.binds[name] = &binding{scalar: &edges}
	}
	sc := &scope{env: inner, steps: props, graph: &graphScope{g: g, nodes: nodeAlias, paths: pathAlias, edges: edgeAlias}}
	if o.Where != nil {
		w, err := t.boolExpr(o.Where, sc)
		if err != nil {
			return nil, err
		}
		conds = append(conds, w.sql)
	}
	var cols []column
	var sels []string
	for _, it := range o.Project {
		names, val := itemParts(it)
		x, err := t.expr(val, sc)
		if err != nil {
			return nil, err
		}
		name := autoName(val)
		if c, ok := val.(*kql.Call); ok && name == "" {
			name = c.Name() // node_degree_out(src) is node_degree_out
		}
		if len(names) == 1 {
			name = names[0]
		}
		if name == "" {
			name = "Column" + strconv.Itoa(len(cols)+1)
		}
		cols = append(cols, column{name, x.t})
		sels = append(sels, x.sql)
	}
	// matches in the order of their rows, in the pattern's order: its first node, its
	// first edge (a path by its length first), the next node, …
	order := make([]string, 0, len(seq))
	for _, a := range seq {
		if strings.HasPrefix(a, "gp") {
			order = append(order, a+".len", a+".eds")
			continue
		}
		order = append(order, a+"._o")
	}
	rowOrder := "row_number() OVER (ORDER BY " + strings.Join(order, ", ") + ")"
	where := ""
	if len(conds) > 0 {
		where = " WHERE " + strings.Join(conds, " AND ")
	}
	if !shortest {
		return t.stage(joinCols(nil, cols), "SELECT "+strings.Join(append(sels, rowOrder), ", ")+" FROM "+strings.Join(from, ", ")+where), nil
	}
	// graph-shortest-paths: per pair of the pattern's end nodes, the matches of least
	// length (the fixed edges and the paths' hops), one of them for output=any
	if len(pathOrder) == 0 {
		return nil, t.errAt(o, "graph-shortest-paths needs a variable-length edge in its pattern")
	}
	elems := o.Patterns[0].Elems
	first, last := elemAlias[elems[0]], elemAlias[elems[len(elems)-1]]
	length := strconv.Itoa(len(edgeOrder))
	for _, p := range pathOrder {
		length += " + " + p + ".len"
	}
	named := make([]string, len(sels))
	outer := make([]string, len(sels))
	for i, x := range sels {
		named[i] = x + " AS v" + strconv.Itoa(i)
		outer[i] = "m.v" + strconv.Itoa(i)
	}
	part := "PARTITION BY " + first + ".c0, " + last + ".c0"
	named = append(named, rowOrder+" AS o",
		"rank() OVER ("+part+" ORDER BY "+length+") AS rk",
		"row_number() OVER ("+part+" ORDER BY "+length+", "+strings.Join(order, ", ")+") AS rn")
	keep := "m.rk = 1"
	if output == "any" {
		keep = "m.rn = 1"
	}
	sel := "SELECT " + strings.Join(append(outer, "m.o"), ", ") + " FROM (SELECT " + strings.Join(named, ", ") + " FROM " + strings.Join(from, ", ") + where + ") m WHERE " + keep
	return t.stage(joinCols(nil, cols), sel), nil
}

// spNodeDegree is node_degree_in(n) or node_degree_out(n) in a graph-match: the number
// of edges into (out of) the node variable n's node.
func spNodeDegree(in bool) specialFunc {
	return func(t *translator, c *kql.Call, sc *scope) (expr, error) {
		if sc.graph == nil {
			return expr{}, t.errAt(c, "%s() is read in graph-match's where and project", c.Name())
		}
		id, ok := singleIdent(c)
		a := ""
		if ok {
			a = sc.graph.nodes[id]
		} else if len(c.Args) == 0 {
			a = sc.graph.current // the node all(), any() or map() is at
		}
		if a == "" {
			return expr{}, t.errAt(c, "%s() takes a node variable of the pattern", c.Name())
		}
		g := sc.graph.g
		end := g.src
		if in {
			end = g.dst
		}
		return expr{sql: "(SELECT count(*) FROM " + g.edges.from + " x WHERE x." + colName(end) + " = " + a + ".c0)", t: TLong}, nil
	}
}

// spNodeID is node_id(n) in a graph-match: the node variable n's id as make-graph set
// it (its key), as a string; node_id() inside all(), any() and map() is the node they are at.
func spNodeID(t *translator, c *kql.Call, sc *scope) (expr, error) {
	if sc.graph == nil {
		return expr{}, t.errAt(c, "node_id() is read in graph-match's where and project")
	}
	id, ok := singleIdent(c)
	a := ""
	if ok {
		a = sc.graph.nodes[id]
	} else if len(c.Args) == 0 {
		a = sc.graph.current
	}
	if a == "" {
		return expr{}, t.errAt(c, "node_id() takes a node variable of the pattern")
	}
	return coerce(expr{sql: a + ".c0", t: sc.graph.g.nodes.cols[0].Type}, TString), nil
}

// appendNew appends s to list unless list holds it.
func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// spLabels is labels(e) in a graph-match: a graph made by make-graph has no labels
// (only persisted graph models do), and the reference says labels() then returns an
// empty array for every node and edge.
func spLabels(t *translator, c *kql.Call, sc *scope) (expr, error) {
	if sc.graph == nil {
		return expr{}, t.errAt(c, "labels() is read in graph-match's where and project")
	}
	id, ok := singleIdent(c)
	switch {
	case ok && (sc.graph.nodes[id] != "" || sc.graph.edges[id] != "" || sc.graph.paths[id] != ""):
	case len(c.Args) == 0 && sc.graph.current != "":
	default:
		return expr{}, t.errAt(c, "labels() takes a node or edge variable of the pattern")
	}
	return expr{sql: "'[]'", t: TDynamic}, nil
}

// singleIdent returns the name of a call's one argument when it is a name.
func singleIdent(c *kql.Call) (string, bool) {
	if len(c.Args) != 1 {
		return "", false
	}
	id, ok := c.Args[0].(*kql.Ident)
	if !ok {
		return "", false
	}
	return id.Name, true
}

// pathRel names a recursive stage of paths and the alias a match reads it by.
type pathRel struct{ cte, alias string }

// hops reads a variable-length edge's range: *n..m, *n (exactly n) or *..m (from 1).
func (t *translator) hops(ed *kql.GraphElem, e *env) (int64, int64, error) {
	lo, hi := int64(1), int64(0)
	var err error
	if ed.Min != nil {
		if lo, err = t.constLong(ed.Min, e, "a variable-length edge's least hops"); err != nil {
			return 0, 0, err
		}
	}
	hi = lo
	if ed.Max != nil {
		if hi, err = t.constLong(ed.Max, e, "a variable-length edge's most hops"); err != nil {
			return 0, 0, err
		}
	}
	if lo < 1 || hi < lo || hi > maxHops {
		return 0, 0, t.errAt(ed, "a variable-length edge takes 1 to %d hops, least first", maxHops)
	}
	return lo, hi, nil
}

// maxHops bounds a variable-length edge, so that the paths stay countable.
const maxHops = 10

// pathCTE adds the paths of up to hi hops from every node, one edge at a time in the
// direction dir ("->", "<-", or either for "--"): each path row has its start, its
// current end, its length, the row numbers of its edges (eds) and the ids of its
// inner nodes (nds). With cycles other than all no edge is taken twice; with none no
// node is visited twice.
func (t *translator) pathCTE(g *graph, dir string, hi int64, cycles string) pathRel {
	t.n++
	name := "gp" + strconv.Itoa(t.n)
	s, d := "x."+colName(g.src), "x."+colName(g.dst)
	var join, next string
	switch dir {
	case "->":
		join, next = s+" = p.cur", d
	case "<-":
		join, next = d+" = p.cur", s
	default:
		join, next = "("+s+" = p.cur OR "+d+" = p.cur)", "(CASE WHEN "+s+" = p.cur THEN "+d+" ELSE "+s+" END)"
	}
	where := "p.len < " + strconv.FormatInt(hi, 10)
	if cycles != "all" {
		where += " AND NOT EXISTS (SELECT 1 FROM json_each(p.eds) j WHERE j.value = x._o)"
	}
	if cycles == "none" {
		where += " AND " + next + " != p.start AND NOT EXISTS (SELECT 1 FROM json_each(p.nds) j WHERE j.value = " + next + ")"
	}
	t.ctes = append(t.ctes, name+"(start, cur, len, eds, nds) AS (SELECT n.c0, n.c0, 0, json('[]'), json('[]') FROM "+g.nodes.from+" n"+
		" UNION ALL SELECT p.start, "+next+", p.len + 1, json_insert(p.eds, '$[#]', x._o),"+
		" CASE WHEN p.len > 0 THEN json_insert(p.nds, '$[#]', p.cur) ELSE p.nds END"+
		" FROM "+name+" p JOIN "+g.edges.from+" x ON "+join+" WHERE "+where+")")
	return pathRel{cte: name, alias: "gp" + strconv.Itoa(t.n) + "a"}
}

// graphCall translates the functions graph-match reads over a variable-length edge e
// (or its inner nodes, inner_nodes(e)): all(X, cond), any(X, cond), map(X, expr), where
// cond and expr read the properties of each edge (node) bare, in path order; and
// e.Property, which is map(e, Property). ok is false for other calls.
func (t *translator) graphCall(c *kql.Call, sc *scope) (expr, bool, error) {
	name := strings.ToLower(c.Name())
	if name != "all" && name != "any" && name != "map" && name != "inner_nodes" {
		return expr{}, false, nil
	}
	if name == "inner_nodes" {
		return expr{}, true, t.unsupported(c, "inner_nodes() outside all(), any() or map()")
	}
	if len(c.Args) != 2 {
		return expr{}, true, t.errAt(c, "%s() takes a variable-length edge (or inner_nodes of one) and an expression", name)
	}
	rows, cols, alias, err := t.pathRows(c.Args[0], sc)
	if err != nil {
		return expr{}, true, err
	}
	inner := &scope{env: sc.env, cols: cols, alias: alias, graph: &graphScope{g: sc.graph.g, nodes: sc.graph.nodes, paths: sc.graph.paths, edges: sc.graph.edges, current: alias}}
	x, err := t.expr(c.Args[1], inner)
	if err != nil {
		return expr{}, true, err
	}
	switch name {
	case "all":
		return expr{sql: "NOT EXISTS (SELECT 1 FROM " + rows + " WHERE NOT coalesce(" + coerce(x, TBool).sql + ", 0))", t: TBool}, true, nil
	case "any":
		return expr{sql: "EXISTS (SELECT 1 FROM " + rows + " WHERE coalesce(" + coerce(x, TBool).sql + ", 0))", t: TBool}, true, nil
	}
	return listOf(x, rows), true, nil
}

// listOf is the dynamic array of x over rows, in path order.
func listOf(x expr, rows string) expr {
	agg := aggCall("make_list_with_nulls", TDynamic, expr{sql: "v", t: x.t})
	return expr{sql: "(SELECT coalesce(" + agg.sql + ", '[]') FROM (SELECT " + x.sql + " AS v FROM " + rows + " ORDER BY j.key))", t: TDynamic}
}

// pathRows returns the FROM of a path's edges (e) or inner nodes (inner_nodes(e)), in
// order (by j.key), with the columns a per-row expression reads and their alias.
func (t *translator) pathRows(x kql.Expr, sc *scope) (string, []column, string, error) {
	g := sc.graph.g
	nodes := false
	if c, ok := x.(*kql.Call); ok && strings.EqualFold(c.Name(), "inner_nodes") && len(c.Args) == 1 {
		x, nodes = c.Args[0], true
	}
	id, ok := x.(*kql.Ident)
	p := ""
	if ok {
		p = sc.graph.paths[id.Name]
	}
	if p == "" {
		return "", nil, "", t.errAt(x, "expected a variable-length edge of the pattern (or inner_nodes of one)")
	}
	t.n++
	a := "gx" + strconv.Itoa(t.n)
	if nodes {
		return "json_each(" + p + ".nds) j JOIN " + g.nodes.from + " " + a + " ON " + a + ".c0 = j.value", g.nodes.cols, a, nil
	}
	return "json_each(" + p + ".eds) j JOIN " + g.edges.from + " " + a + " ON " + a + "._o = j.value", g.edges.cols, a, nil
}
