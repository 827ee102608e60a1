package kqlexec

import (
	"math"
	"sort"

	"github.com/golang/geo/s1"
	"github.com/golang/geo/s2"
	"github.com/uber/h3-go/v4"
)

// Simplifying lines and polygons on the sphere, and covering polygons with S2 cells.
//
// Kusto simplifies with S2's builder: no two vertices of the result are closer than the
// tolerance, and a chain of short edges that stays within the tolerance of one long
// edge becomes that edge. Here a chain is simplified by Douglas–Peucker on geodesic
// edges (a vertex is kept while it strays more than the tolerance from the edge
// between the kept ones), then vertices closer than the tolerance to the previous kept
// one are merged; a line or ring that collapses disappears, and a shape of which
// nothing is left is null (the reference's "high tolerance may cause small lines to
// disappear").

// maxS2Cells and maxH3Cells are the most cells geo_polygon_to_s2cells and
// geo_polygon_to_h3cells return (Kusto's limits).
const (
	maxS2Cells = 65536
	maxH3Cells = 61680
)

// geoSimplifyFuncs defines this file's functions (see library in funcs.go).
func geoSimplifyFuncs(def func(string, *fnDef)) {
	tolerance := func(a []any, i int) (float64, bool) {
		if i >= len(a) || a[i] == nil {
			return 10, true
		}
		t, ok := toReal(a[i])
		return t, ok && t >= 0 && t <= 7_800_000 && !math.IsNaN(t)
	}
	def("geo_line_simplify", &fnDef{min: 1, max: 2, args: []Type{TDynamic, TReal}, ret: TDynamic,
		fn: func(a []any) any {
			s, ok := parseShape(a[0])
			tol, tok := tolerance(a, 1)
			if !ok || !tok || (s.kind != "LineString" && s.kind != "MultiLineString") {
				return nil
			}
			src := s.lines
			if len(src) > 1 {
				// the lines' union is simplified (shared and chained edges once)
				if n := edgeCount(nil, src); !pairsOK(n, n) {
					return tooLargeError("geo_line_simplify() of lines with more edges than it compares")
				}
				src = unionLines(src)
			}
			var lines [][]lonLat
			for _, l := range src {
				if out := simplifyLine(l, tol); out != nil {
					lines = append(lines, viaS2(out))
				}
			}
			return linesJSON(lines)
		}})
	def("geo_polygon_simplify", &fnDef{min: 1, max: 2, args: []Type{TDynamic, TReal}, ret: TDynamic,
		partly: "a clockwise ring comes back reversed, as S2 holds it; the vertices kept may differ from S2's simplification", fn: func(a []any) any {
			s, ok := parseShape(a[0])
			tol, tok := tolerance(a, 1)
			if !ok || !tok || s.polys == nil {
				return nil
			}
			return simplifiedPolygons(s.polys, tol)
		}})
	def("geo_simplify_polygons_array", &fnDef{min: 1, max: 2, args: []Type{TDynamic, TReal}, ret: TDynamic,
		fn: func(a []any) any {
			tol, tok := tolerance(a, 1)
			xs, ok := arr(a[0])
			if !ok || !tok || len(xs) == 0 {
				return nil
			}
			var polys [][][]lonLat
			for _, x := range xs {
				s, ok := parseShape(Dyn{x})
				if !ok || s.polys == nil {
					return nil
				}
				polys = append(polys, s.polys...)
			}
			var kept [][][]lonLat
			for _, p := range polys {
				if q := simplifyPolygon(p, tol); q != nil {
					kept = append(kept, q)
				}
			}
			if overlapping(kept) {
				if n := edgeCount(kept, nil); !pairsOK(n, n) {
					return tooLargeError("geo_simplify_polygons_array() of overlapping polygons with more edges than it compares")
				}
				kept = unionPolygons(kept) // polygons that still overlap are returned as their union
			}
			return polygonsJSON(kept)
		}})
	def("geo_union_lines_array", &fnDef{min: 1, max: 1, args: []Type{TDynamic}, ret: TDynamic,
		fn: func(a []any) any {
			xs, ok := arr(a[0])
			if !ok || len(xs) == 0 {
				return nil
			}
			var lines [][]lonLat
			for _, x := range xs {
				s, ok := parseShape(Dyn{x})
				if !ok || (s.kind != "LineString" && s.kind != "MultiLineString") {
					return nil
				}
				lines = append(lines, s.lines...)
			}
			if n := edgeCount(nil, lines); !pairsOK(n, n) {
				return tooLargeError("geo_union_lines_array() of lines with more edges than it compares")
			}
			return linesJSON(unionLines(lines))
		}})
	// coverings: the shape, a level (resolution) with its default and its largest, a
	// radius (a buffer around the shape; cover refuses one it cannot draw)
	covering := func(name string, lines bool, def0, top int64, cover func(s *geoShape, level int, radius float64) any) *fnDef {
		d := &fnDef{min: 1, max: 3, args: []Type{TDynamic, TLong, TReal}, ret: TDynamic, fn: func(a []any) any {
			s, ok := parseShape(a[0])
			if !ok || (lines && s.kind != "LineString" && s.kind != "MultiLineString") || (!lines && s.polys == nil) {
				return nil
			}
			level := long(a, 1, def0)
			if level < 0 || level > top {
				return nil
			}
			r := 0.0
			if len(a) > 2 && a[2] != nil {
				r, ok = toReal(a[2])
				if !ok || r < 0 || math.IsNaN(r) || math.IsInf(r, 0) {
					return nil
				}
			}
			return cover(s, int(level), r)
		}}
		return d
	}
	def("geo_line_to_s2cells", covering("geo_line_to_s2cells", true, 11, 30, s2Covering))
	def("geo_polygon_to_h3cells", covering("geo_polygon_to_h3cells", false, 6, 15, func(s *geoShape, level int, radius float64) any {
		cells := h3Covering(s.polys, level)
		if radius == 0 {
			return cells
		}
		return h3Buffered(cells, s.polys, level, radius)
	}))
	def("geo_polygon_to_s2cells", covering("geo_polygon_to_s2cells", false, 11, 30, s2Covering))
}

// simplifyLine simplifies one line; nil when it collapses to a point.
func simplifyLine(l []lonLat, tol float64) []lonLat {
	keep := make([]bool, len(l))
	keep[0], keep[len(l)-1] = true, true
	douglasPeucker(l, 0, len(l)-1, tol, keep)
	var out []lonLat
	for i, p := range l {
		if !keep[i] {
			continue
		}
		switch {
		case len(out) == 0 || distance(out[len(out)-1], p) >= tol && p != out[len(out)-1]:
			out = append(out, p)
		case i == len(l)-1 && len(out) > 1:
			out[len(out)-1] = p // the line ends where it ends
		}
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

// simplifyRing simplifies a closed ring (its last position repeats the first); nil
// when fewer than three vertices are left.
func simplifyRing(r []lonLat, tol float64) []lonLat {
	n := len(r) - 1 // distinct positions
	if n < 3 {
		return nil
	}
	// split the ring at its first vertex and the vertex farthest from it
	far, best := 0, -1.0
	for i := 1; i < n; i++ {
		if d := distance(r[0], r[i]); d > best {
			far, best = i, d
		}
	}
	keep := make([]bool, n+1)
	keep[0], keep[far], keep[n] = true, true, true
	douglasPeucker(r, 0, far, tol, keep)
	douglasPeucker(r, far, n, tol, keep)
	var out []lonLat
	for i := 0; i < n; i++ {
		if keep[i] && (len(out) == 0 || distance(out[len(out)-1], r[i]) >= tol && r[i] != out[len(out)-1]) {
			out = append(out, r[i])
		}
	}
	for len(out) > 1 && (distance(out[len(out)-1], out[0]) < tol || out[len(out)-1] == out[0]) {
		out = out[:len(out)-1]
	}
	if len(out) < 3 {
		return nil
	}
	return append(out, out[0])
}

// simplifyPolygon simplifies a polygon's rings; nil when its shell collapses (a hole
// that collapses is dropped).
func simplifyPolygon(rings [][]lonLat, tol float64) [][]lonLat {
	shell := simplifyRing(s2Order(rings[0]), tol)
	if shell == nil {
		return nil
	}
	out := [][]lonLat{shell}
	for _, h := range rings[1:] {
		if q := simplifyRing(s2Order(h), tol); q != nil {
			out = append(out, q)
		}
	}
	return out
}

func simplifiedPolygons(polys [][][]lonLat, tol float64) any {
	var kept [][][]lonLat
	for _, p := range polys {
		if q := simplifyPolygon(p, tol); q != nil {
			for i, r := range q {
				q[i] = viaS2(r)
			}
			kept = append(kept, q)
		}
	}
	return polygonsJSON(kept)
}

// linesJSON is a LineString (one) or MultiLineString (several); null for none.
func linesJSON(lines [][]lonLat) any {
	items := make([]any, len(lines))
	for i, l := range lines {
		items[i] = coordsJSON(l)
	}
	return oneOrMany("LineString", "MultiLineString", items)
}

// polygonsJSON is a Polygon (one) or MultiPolygon (several); null for none.
func polygonsJSON(polys [][][]lonLat) any {
	items := make([]any, len(polys))
	for i, p := range polys {
		rings := make([]any, len(p))
		for j, r := range p {
			rings[j] = coordsJSON(r)
		}
		items[i] = rings
	}
	return oneOrMany("Polygon", "MultiPolygon", items)
}

// oneOrMany is the geometry of one item (its coordinates), the multi-geometry of
// several, or null for none.
func oneOrMany(one, many string, items []any) any {
	switch len(items) {
	case 0:
		return nil
	case 1:
		return Dyn{geoObj(one, items[0])}
	}
	return Dyn{geoObj(many, items)}
}

// douglasPeucker marks in keep the vertices of l[i..j] to keep: the one farthest from
// the geodesic l[i]–l[j], when farther than tol meters, and so on in both halves.
func douglasPeucker(l []lonLat, i, j int, tol float64, keep []bool) {
	for j > i+1 {
		a, b := l[i].s2(), l[j].s2()
		far, best := -1, -1.0
		for k := i + 1; k < j; k++ {
			d := float64(s2.DistanceFromSegment(l[k].s2(), a, b)) * earthRadius
			if d > best {
				far, best = k, d
			}
		}
		if best <= tol {
			return
		}
		keep[far] = true
		douglasPeucker(l, i, far, tol, keep)
		i = far
	}
}

// h3Covering is the H3 cells of one resolution whose centres lie in the polygons (edges
// straight in longitude and latitude, as Kusto and H3 take them), in H3's order; null
// past maxH3Cells. The count is bounded from the area first (H3 would allocate for
// the polygon's bounding box), and a polygon whose bounding box is far larger than its
// area at a fine resolution is refused rather than enumerated.
func h3Covering(polys [][][]lonLat, res int) any {
	cellKm2 := h3.HexagonAreaAvgKm2(res)
	var out []any
	seen := map[h3.Cell]bool{}
	for _, p := range polys {
		km2 := polygonOf(p).Area() * earthRadius * earthRadius / 1e6
		if km2/cellKm2 > 2*maxH3Cells {
			return nil
		}
		minLon, maxLon, minLat, maxLat := 180.0, -180.0, 90.0, -90.0
		for _, q := range p[0] {
			minLon, maxLon, minLat, maxLat = min(minLon, q[0]), max(maxLon, q[0]), min(minLat, q[1]), max(maxLat, q[1])
		}
		box := (maxLon - minLon) * (maxLat - minLat) * 111.32 * 111.32 // km², an overestimate away from the equator
		if box/cellKm2 > 64*maxH3Cells {
			return unsupportedError("geo_polygon_to_h3cells() of a polygon this thin at this resolution")
		}
		gp := h3.GeoPolygon{GeoLoop: h3Loop(p[0])}
		for _, h := range p[1:] {
			gp.Holes = append(gp.Holes, h3Loop(h))
		}
		for _, c := range h3.PolygonToCells(gp, res) {
			if !seen[c] {
				seen[c] = true
				out = append(out, c.String())
			}
		}
		if len(out) > maxH3Cells {
			return nil
		}
	}
	return Dyn{nonNil(out)}
}

// h3Loop is a ring as H3 takes it: its positions without the closing repeat.
func h3Loop(r []lonLat) h3.GeoLoop {
	out := make(h3.GeoLoop, 0, len(r)-1)
	for _, q := range r[:len(r)-1] {
		out = append(out, h3.NewLatLng(q[1], q[0]))
	}
	return out
}

// s2Covering is the tokens of the S2 cells of one level that cover the polygons, in
// cell order; null past maxS2Cells (Kusto's limit), decided from the area first so that
// a fine level over a large polygon is never enumerated.
func s2Covering(shape *geoShape, level int, radius float64) any {
	var regions []s2.Region
	var edges [][2]s2.Point
	var area float64
	for _, p := range shape.polys {
		poly := polygonOf(p)
		regions = append(regions, poly)
		area += poly.Area()
		for _, ring := range p {
			for i := 1; i < len(ring); i++ {
				edges = append(edges, [2]s2.Point{ring[i-1].s2(), ring[i].s2()})
			}
		}
	}
	if shape.polys == nil {
		for _, l := range shape.lines {
			pts := make(s2.Polyline, len(l))
			for i, q := range l {
				pts[i] = q.s2()
			}
			regions = append(regions, &pts)
			for i := 1; i < len(pts); i++ {
				edges = append(edges, [2]s2.Point{pts[i-1], pts[i]})
			}
		}
	}
	if area/s2.MaxAreaMetric.Value(level) > maxS2Cells {
		return nil
	}
	rc := &s2.RegionCoverer{MinLevel: level, MaxLevel: level, LevelMod: 1, MaxCells: maxS2Cells}
	var union s2.CellUnion
	for _, r := range regions {
		union = append(union, rc.Covering(r)...)
	}
	union.Normalize()
	union.Denormalize(level, 1)
	if radius > 0 {
		// the buffer: every cell within radius of the shape, reached from the cells
		// that touch it through neighbours that are themselves within radius
		limit := s1.ChordAngleFromAngle(s1.Angle(radius / earthRadius))
		checked := 0
		near := func(id s2.CellID) bool {
			checked += len(edges)
			c := s2.CellFromCellID(id)
			for _, e := range edges {
				if c.DistanceToEdge(e[0], e[1]) <= limit {
					return true
				}
			}
			return false
		}
		seen := map[s2.CellID]bool{}
		queue := append([]s2.CellID(nil), union...)
		for _, id := range queue {
			seen[id] = true
		}
		for len(queue) > 0 {
			id := queue[len(queue)-1]
			queue = queue[:len(queue)-1]
			for _, n := range id.AllNeighbors(level) {
				if seen[n] {
					continue
				}
				seen[n] = true
				if checked > maxEdgePairs {
					return tooLargeError("an S2 covering with a radius of a shape with this many edges at this level")
				}
				if near(n) {
					union = append(union, n)
					queue = append(queue, n)
					if len(union) > maxS2Cells {
						return nil
					}
				}
			}
		}
		union.Normalize()
		union.Denormalize(level, 1)
	}
	if len(union) > maxS2Cells {
		return nil
	}
	out := make([]any, len(union))
	for i, c := range union {
		out[i] = c.ToToken()
	}
	return Dyn{out}
}

// unionLines joins lines into the fewest chains: each edge once (an edge that two
// lines share, in the same direction, counts once), chained where one edge ends and
// only one starts; edges that cross away from their vertices are cut at the crossing,
// where chains then meet, as Kusto splits them.
func unionLines(lines [][]lonLat) (chains [][]lonLat) {
	type edge struct{ a, b lonLat }
	seen := map[edge]bool{}
	var raw []edge
	for _, l := range lines {
		for i := 1; i < len(l); i++ {
			e := edge{l[i-1], l[i]}
			if e.a == e.b || seen[e] {
				continue
			}
			seen[e] = true
			raw = append(raw, e)
		}
	}
	// edges that cross away from their vertices are cut at the crossing (one point for
	// both, so the pieces meet)
	cuts := make([][]lonLat, len(raw))
	for i := range raw {
		for j := i + 1; j < len(raw); j++ {
			a, b, c, d := raw[i].a.s2(), raw[i].b.s2(), raw[j].a.s2(), raw[j].b.s2()
			if s2.CrossingSign(a, b, c, d) == s2.Cross {
				p := pointFromS2(s2.Intersection(a, b, c, d))
				cuts[i] = append(cuts[i], p)
				cuts[j] = append(cuts[j], p)
			}
		}
	}
	var edges []edge
	out := map[lonLat][]int{}
	in := map[lonLat]int{}
	add := func(e edge) {
		if e.a == e.b {
			return
		}
		out[e.a] = append(out[e.a], len(edges))
		in[e.b]++
		edges = append(edges, e)
	}
	for i, e := range raw {
		ps := cuts[i]
		a := e.a.s2()
		sort.Slice(ps, func(x, y int) bool { return a.Distance(ps[x].s2()) < a.Distance(ps[y].s2()) })
		from := e.a
		for _, p := range ps {
			add(edge{from, p})
			from = p
		}
		add(edge{from, e.b})
	}
	used := make([]bool, len(edges))
	// a chain goes on through a vertex one edge enters and one leaves
	through := func(p lonLat) bool { return in[p] == 1 && len(out[p]) == 1 }
	walk := func(start int) []lonLat {
		chain := []lonLat{edges[start].a}
		for k := start; ; {
			used[k] = true
			p := edges[k].b
			chain = append(chain, p)
			if !through(p) || used[out[p][0]] {
				return chain
			}
			k = out[p][0]
		}
	}
	for i, e := range edges { // chains that start where no single chain passes through
		if !used[i] && !through(e.a) {
			chains = append(chains, walk(i))
		}
	}
	for i := range edges { // what is left are closed loops
		if !used[i] {
			chains = append(chains, walk(i))
		}
	}
	return chains
}

// s2Order is a ring in the order S2 holds it: a ring S2 inverts (clockwise around its
// smaller side) reversed.
func s2Order(r []lonLat) []lonLat {
	if loop(r).Vertex(0) != r[0].s2() {
		return reversedRing(r)
	}
	return r
}

// h3Buffered widens an H3 covering by a radius (meters), as Kusto converts the
// polygon enlarged by it: every cell whose center lies within the radius of the
// polygons, reached from the covering (or the cell of the first vertex) through
// neighbours that are themselves within it.
func h3Buffered(covering any, polys [][][]lonLat, res int, radius float64) any {
	d, ok := covering.(Dyn)
	if !ok {
		return covering // null or an error
	}
	ps, rings := polygonEdgesOf(polys)
	near := func(c h3.Cell) bool {
		ll := c.LatLng()
		_, dist := closestOnPolygons(lonLat{ll.Lng, ll.Lat}.s2(), ps, rings)
		return dist <= radius
	}
	seen := map[h3.Cell]bool{}
	var out []any
	var queue []h3.Cell
	for _, x := range d.V.([]any) {
		c, _ := h3Cell(x)
		seen[c] = true
		out = append(out, x)
		queue = append(queue, c)
	}
	if len(queue) == 0 {
		first := polys[0][0][0]
		c := h3.LatLngToCell(h3.NewLatLng(first[1], first[0]), res)
		seen[c] = true
		queue = append(queue, c)
		if near(c) {
			out = append(out, c.String())
		}
	}
	edges := edgeCount(polys, nil)
	for checked := 0; len(queue) > 0; {
		c := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		for _, n := range c.GridDisk(1) {
			if seen[n] {
				continue
			}
			seen[n] = true
			if checked += edges; checked > maxEdgePairs {
				return tooLargeError("an H3 covering with a radius of a polygon with this many edges at this resolution")
			}
			if near(n) {
				out = append(out, n.String())
				queue = append(queue, n)
				if len(out) > maxH3Cells {
					return nil
				}
			}
		}
	}
	return Dyn{out}
}
