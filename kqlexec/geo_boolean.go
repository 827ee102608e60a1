package kqlexec

import (
	"sort"

	"github.com/golang/geo/s1"
	"github.com/golang/geo/s2"
)

// The union and intersection of polygon sets on the sphere, as S2's boolean
// operation draws them: each boundary edge of one set is cut where the other set's
// boundary crosses or touches it, and each piece is kept by where it lies (outside
// the other set for a union, inside for an intersection; a piece both boundaries
// share is kept once when both sets lie on its same side, and dropped when they lie on
// either side of it). The kept pieces, the first set's in its edge order and then the
// second's, are chained into loops, so a loop starts where the first kept piece
// starts, as S2's output does.

// maxEdgePairs bounds the edge pairs a geometry operation compares (each pair is a
// crossing test, and each piece it makes is tested against every edge; ~100 ns each):
// beyond it the call is refused as too large, where it would otherwise run for
// seconds inside one SQLite function call, past the query's deadline.
const maxEdgePairs = 4_000_000

// edgeCount is the number of edges of polygons' rings or of lines.
func edgeCount(polys [][][]lonLat, lines [][]lonLat) int {
	n := 0
	for _, p := range polys {
		for _, r := range p {
			n += len(r)
		}
	}
	for _, l := range lines {
		n += len(l)
	}
	return n
}

// pairsOK reports whether comparing a edges with b edges stays under maxEdgePairs.
func pairsOK(a, b int) bool { return a == 0 || b <= maxEdgePairs/a }

// boundary is a polygon set's directed edges (interior on the left) and its polygons
// (for containment).
type boundary struct {
	edges [][2]s2.Point
	polys []*s2.Polygon
}

func boundaryOf(polys [][][]lonLat) boundary {
	var b boundary
	for _, p := range polys {
		poly := polygonOf(p)
		b.polys = append(b.polys, poly)
		for _, l := range poly.Loops() {
			v := append([]s2.Point(nil), l.Vertices()...)
			if l.IsHole() {
				for i, j := 0, len(v)-1; i < j; i, j = i+1, j-1 {
					v[i], v[j] = v[j], v[i]
				}
			}
			for i := range v {
				b.edges = append(b.edges, [2]s2.Point{v[i], v[(i+1)%len(v)]})
			}
		}
	}
	return b
}

func (b boundary) contains(p s2.Point) bool {
	for _, q := range b.polys {
		if q.ContainsPoint(p) {
			return true
		}
	}
	return false
}

// onBoundary returns the direction of b's edge that p lies on (zero when none).
func (b boundary) onBoundary(p s2.Point) (s2.Point, bool) {
	for _, e := range b.edges {
		if s2.DistanceFromSegment(p, e[0], e[1]) <= s1.Angle(onEdge) {
			return s2.Point{Vector: e[1].Sub(e[0].Vector)}, true
		}
	}
	return s2.Point{}, false
}

type piece struct{ from, to s2.Point }

// cutPieces cuts each edge of x where the edges of y cross or touch it; a crossing
// is computed once for both edges (shared, keyed by the pair in a fixed order), so the
// pieces of both meet exactly.
func cutPieces(x boundary, y [][2]s2.Point, shared map[[4]s2.Point]s2.Point) []piece {
	var out []piece
	for _, e := range x.edges {
		cuts := []s2.Point{e[0], e[1]}
		for _, f := range y {
			switch s2.CrossingSign(e[0], e[1], f[0], f[1]) {
			case s2.Cross:
				k := [4]s2.Point{e[0], e[1], f[0], f[1]}
				if pointLess(f[0], e[0]) || f[0] == e[0] && pointLess(f[1], e[1]) {
					k = [4]s2.Point{f[0], f[1], e[0], e[1]}
				}
				p, ok := shared[k]
				if !ok {
					p = s2.Intersection(k[0], k[1], k[2], k[3])
					shared[k] = p
				}
				cuts = append(cuts, p)
			default:
				for _, v := range f {
					if v != e[0] && v != e[1] && s2.DistanceFromSegment(v, e[0], e[1]) <= s1.Angle(onEdge) {
						cuts = append(cuts, v)
					}
				}
			}
		}
		sort.SliceStable(cuts, func(i, j int) bool { return e[0].Distance(cuts[i]) < e[0].Distance(cuts[j]) })
		for i := 1; i < len(cuts); i++ {
			if cuts[i] != cuts[i-1] {
				out = append(out, piece{cuts[i-1], cuts[i]})
			}
		}
	}
	return out
}

func pointLess(a, b s2.Point) bool {
	if a.X != b.X {
		return a.X < b.X
	}
	if a.Y != b.Y {
		return a.Y < b.Y
	}
	return a.Z < b.Z
}

// polygonBoolean is the union (of every set) or intersection (of two sets): its
// polygons (shell first, then holes), and where an intersection's sets only touch,
// the points and stretches they share.
func polygonBoolean(sets [][][][]lonLat, union bool) (polys [][][]lonLat, points []lonLat, lines [][]lonLat) {
	bs := make([]boundary, len(sets))
	for i, s := range sets {
		bs[i] = boundaryOf(s)
	}
	shared := map[[4]s2.Point]s2.Point{}
	var kept []piece
	for i, x := range bs {
		var others [][2]s2.Point
		for j, y := range bs {
			if j != i {
				others = append(others, y.edges...)
			}
		}
		for _, p := range cutPieces(x, others, shared) {
			mid := s2.Interpolate(0.5, p.from, p.to)
			keep := true
			for j, y := range bs {
				if j == i || !keep {
					continue
				}
				if dir, on := y.onBoundary(mid); on {
					same := dir.Dot(p.to.Sub(p.from.Vector)) > 0
					switch {
					case same:
						keep = j > i // both sets on its left: kept once, by the first
					case !union && i == 0:
						// the sets lie on either side: an intersection without area
						lines = append(lines, []lonLat{pointFromS2(p.from), pointFromS2(p.to)})
						keep = false
					default:
						keep = false
					}
					continue
				}
				if y.contains(mid) == union {
					keep = false
				}
			}
			if keep {
				kept = append(kept, p)
			}
		}
	}
	ba, bb := bs[0], bs[len(bs)-1]
	// chain the pieces into loops, each from the first piece not yet used, going on
	// with the first unused piece that starts where the last one ends
	used := make([]bool, len(kept))
	starts := map[s2.Point][]int{}
	for i, k := range kept {
		starts[k.from] = append(starts[k.from], i)
	}
	var loops [][]s2.Point
	for i := range kept {
		if used[i] {
			continue
		}
		var l []s2.Point
		cur := i
		for cur >= 0 && !used[cur] {
			used[cur] = true
			l = append(l, kept[cur].from)
			next := -1
			for _, j := range starts[kept[cur].to] {
				if !used[j] {
					next = j
					break
				}
			}
			cur = next
		}
		if len(l) >= 3 {
			loops = append(loops, l)
		}
	}
	// shells (left turn around a small area) and the holes inside them
	type shell struct {
		loop  *s2.Loop
		rings [][]lonLat
	}
	var shells []*shell
	var holes [][]s2.Point
	for _, l := range loops {
		sl := s2.LoopFromPoints(l)
		if sl.Area() <= 2*3.141592653589793 {
			shells = append(shells, &shell{loop: sl, rings: [][]lonLat{ringOf(l)}})
		} else {
			holes = append(holes, l)
		}
	}
	for _, h := range holes {
		for _, s := range shells {
			if s.loop.ContainsPoint(h[0]) {
				s.rings = append(s.rings, ringOf(h))
				break
			}
		}
	}
	for _, s := range shells {
		polys = append(polys, s.rings)
	}
	if !union {
		// where the sets only touch: a vertex of one on the other's boundary, or a
		// crossing, that no kept piece or shared stretch passes through
		onKept := func(p s2.Point) bool {
			for _, k := range kept {
				if s2.DistanceFromSegment(p, k.from, k.to) <= s1.Angle(onEdge) {
					return true
				}
			}
			for _, l := range lines {
				if s2.DistanceFromSegment(p, l[0].s2(), l[1].s2()) <= s1.Angle(onEdge) {
					return true
				}
			}
			return false
		}
		seen := map[lonLat]bool{}
		add := func(p s2.Point) {
			if q := pointFromS2(p); !seen[q] && !onKept(p) {
				seen[q] = true
				points = append(points, q)
			}
		}
		for _, pair := range []struct{ x, y boundary }{{ba, bb}, {bb, ba}} {
			for _, e := range pair.x.edges {
				if _, on := pair.y.onBoundary(e[0]); on {
					add(e[0])
				}
			}
		}
		for _, p := range shared {
			add(p)
		}
	}
	return polys, points, lines
}

// ringOf closes a loop's vertices into a GeoJSON ring.
func ringOf(l []s2.Point) []lonLat {
	r := make([]lonLat, 0, len(l)+1)
	for _, p := range l {
		r = append(r, pointFromS2(p))
	}
	return append(r, r[0])
}

// geometryOf writes polygons, points and lines as one GeoJSON geometry: a single kind
// alone, several in a GeometryCollection (points, lines, then polygons), none as an
// empty collection.
func geometryOf(polys [][][]lonLat, points []lonLat, lines [][]lonLat) any {
	if len(polys) == 0 && len(points) == 0 && len(lines) > 1 {
		return linesJSON(lines)
	}
	var geoms []any
	for _, p := range points {
		geoms = append(geoms, geoObj("Point", []any{toJSONValue(p[0]), toJSONValue(p[1])}))
	}
	for _, l := range lines {
		geoms = append(geoms, geoObj("LineString", coordsJSON(l)))
	}
	if len(polys) > 0 {
		geoms = append(geoms, polygonsJSON(polys).(Dyn).V)
	}
	switch len(geoms) {
	case 0:
		return Dyn{geoObj("GeometryCollection", []any{})}
	case 1:
		return Dyn{geoms[0]}
	}
	return Dyn{geoObj("GeometryCollection", geoms)}
}

// geoBooleanFuncs defines the union and intersection of polygons, and the part of a
// line inside polygons.
func geoBooleanFuncs(def func(string, *fnDef)) {
	def("geo_intersection_line_with_polygon", fixed(TDynamic, func(a []any) any {
		lines, ok := lineShape(a[0])
		y, ok2 := parseShape(a[1])
		if !ok || !ok2 || y.polys == nil {
			return nil
		}
		if n, m := edgeCount(nil, lines), edgeCount(y.polys, nil); !pairsOK(n+m, m) {
			return tooLargeError("geo_intersection_line_with_polygon() of shapes with more edges than it compares")
		}
		points, stretches := lineInPolygons(lines, boundaryOf(y.polys))
		return geometryOf(nil, points, stretches)
	}, TDynamic, TDynamic))
	def("geo_intersection_2polygons", fixed(TDynamic, func(a []any) any {
		x, ok1 := parseShape(a[0])
		y, ok2 := parseShape(a[1])
		if !ok1 || !ok2 || x.polys == nil || y.polys == nil {
			return nil
		}
		if n, m := edgeCount(x.polys, nil), edgeCount(y.polys, nil); !pairsOK(n+m, n+m) {
			return tooLargeError("geo_intersection_2polygons() of polygons with more edges than it compares")
		}
		return geometryOf(polygonBoolean([][][][]lonLat{x.polys, y.polys}, false))
	}, TDynamic, TDynamic))
	def("geo_union_polygons_array", fixed(TDynamic, func(a []any) any {
		d, ok := a[0].(Dyn)
		if !ok {
			return nil
		}
		xs, ok := d.V.([]any)
		if !ok {
			return nil
		}
		var sets [][][][]lonLat
		for _, x := range xs {
			s, ok := parseShape(Dyn{x})
			if !ok || s.polys == nil {
				return nil
			}
			sets = append(sets, s.polys)
		}
		if len(sets) == 0 {
			return nil
		}
		if n := unionEdges(sets); !pairsOK(n, n) {
			return tooLargeError("geo_union_polygons_array() of polygons with more edges than it compares")
		}
		acc, _, _ := polygonBoolean(sets, true)
		if acc == nil {
			return nil
		}
		return polygonsJSON(acc)
	}, TDynamic))
}

// lineInPolygons is the part of lines inside (or on the boundary of) polygons: the
// stretches, in the lines' order and direction, and the points where a line only
// touches them.
func lineInPolygons(lines [][]lonLat, b boundary) (points []lonLat, out [][]lonLat) {
	shared := map[[4]s2.Point]s2.Point{}
	var touches []s2.Point
	for _, l := range lines {
		var x boundary
		for i := 1; i < len(l); i++ {
			x.edges = append(x.edges, [2]s2.Point{l[i-1].s2(), l[i].s2()})
		}
		var cur []s2.Point
		flush := func() {
			if len(cur) > 1 {
				l := make([]lonLat, len(cur))
				for i, p := range cur {
					l[i] = pointFromS2(p)
				}
				out = append(out, l)
			}
			cur = nil
		}
		for _, p := range cutPieces(x, b.edges, shared) {
			mid := s2.Interpolate(0.5, p.from, p.to)
			_, on := b.onBoundary(mid)
			if !on && !b.contains(mid) {
				flush()
				for _, q := range []s2.Point{p.from, p.to} {
					if _, at := b.onBoundary(q); at {
						touches = append(touches, q)
					}
				}
				continue
			}
			if len(cur) == 0 || cur[len(cur)-1] != p.from {
				flush()
				cur = []s2.Point{p.from}
			}
			cur = append(cur, p.to)
		}
		flush()
	}
	seen := map[lonLat]bool{}
	for _, t := range touches {
		q := pointFromS2(t)
		on := seen[q]
		for _, l := range out {
			on = on || l[0] == q || l[len(l)-1] == q
		}
		if !on {
			seen[q] = true
			points = append(points, q)
		}
	}
	return points, out
}

func unionEdges(sets [][][][]lonLat) int {
	n := 0
	for _, s := range sets {
		n += edgeCount(s, nil)
	}
	return n
}

// unionPolygons is the union of a multipolygon's polygons, drawn.
func unionPolygons(polys [][][]lonLat) [][][]lonLat {
	sets := make([][][][]lonLat, len(polys))
	for i, p := range polys {
		sets[i] = [][][]lonLat{p}
	}
	u, _, _ := polygonBoolean(sets, true)
	return u
}
