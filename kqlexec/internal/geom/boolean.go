package geom

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
// second's, are chained into loops, and each loop is turned to end with its piece
// that came last, as S2's builder orders an output loop (the input's last edge stays
// last); the loops go in the order of their first pieces. Vertices of different sets
// a rounding apart are first merged into one, as S2 snaps them.

// MaxEdgePairs bounds the edge pairs a geometry operation compares (each pair is a
// crossing test, and each piece it makes is tested against every edge; ~100 ns each):
// beyond it the call is refused as too large, where it would otherwise run for
// seconds inside one SQLite function call, past the query's deadline.
const MaxEdgePairs = 4_000_000

// EdgeCount is the number of edges of polygons' rings or of lines.
func EdgeCount(polys [][][]LonLat, lines [][]LonLat) int {
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

// PairsOK reports whether comparing a edges with b edges stays under maxEdgePairs.
func PairsOK(a, b int) bool { return a == 0 || b <= MaxEdgePairs/a }

// Boundary is a polygon set's directed edges (interior on the left) and its polygons
// (for containment).
type Boundary struct {
	edges [][2]s2.Point
	polys []*s2.Polygon
}

// BoundaryOf is the boundary of polygons (each a shell, then holes).
func BoundaryOf(polys [][][]LonLat) Boundary {
	var b Boundary
	for _, p := range polys {
		poly := PolygonOf(p)
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

func (b Boundary) contains(p s2.Point) bool {
	for _, q := range b.polys {
		if q.ContainsPoint(p) {
			return true
		}
	}
	return false
}

// onBoundary returns the direction of b's edge that p lies on (zero when none).
func (b Boundary) onBoundary(p s2.Point) (s2.Point, bool) {
	for _, e := range b.edges {
		if s2.DistanceFromSegment(p, e[0], e[1]) <= s1.Angle(OnEdge) {
			return s2.Point{Vector: e[1].Sub(e[0].Vector)}, true
		}
	}
	return s2.Point{}, false
}

type piece struct{ from, to s2.Point }

// cutPieces cuts each edge of x where the edges of y cross or touch it; a crossing
// is computed once for both edges (shared, keyed by the pair in a fixed order), so the
// pieces of both meet exactly.
func cutPieces(x Boundary, y [][2]s2.Point, shared map[[4]s2.Point]s2.Point) []piece {
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
					if v != e[0] && v != e[1] && s2.DistanceFromSegment(v, e[0], e[1]) <= s1.Angle(OnEdge) {
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

// PolygonBoolean is the union (of every set) or intersection (of two sets): its
// polygons (shell first, then holes), and where an intersection's sets only touch,
// the points and stretches they share.
func PolygonBoolean(sets [][][][]LonLat, union bool) (polys [][][]LonLat, points []LonLat, lines [][]LonLat) {
	sets = mergeVertices(sets)
	bs := make([]Boundary, len(sets))
	for i, s := range sets {
		bs[i] = BoundaryOf(s)
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
						lines = append(lines, []LonLat{PointFromS2(p.from), PointFromS2(p.to)})
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
	// with the first unused piece that starts where the last one ends; then, as S2's
	// builder does (S2Builder::Graph::CanonicalizeLoopOrder), each loop is turned to
	// end with its piece that came last in the input (sets, then edges, then pieces
	// along an edge), and the loops are ordered by their first piece
	used := make([]bool, len(kept))
	starts := map[s2.Point][]int{}
	for i, k := range kept {
		starts[k.from] = append(starts[k.from], i)
	}
	var chains [][]int
	for i := range kept {
		if used[i] {
			continue
		}
		var c []int
		cur := i
		for cur >= 0 && !used[cur] {
			used[cur] = true
			c = append(c, cur)
			next := -1
			for _, j := range starts[kept[cur].to] {
				if !used[j] {
					next = j
					break
				}
			}
			cur = next
		}
		if len(c) >= 3 {
			last := 0
			for k := range c {
				if c[k] > c[last] {
					last = k
				}
			}
			turned := append(append(make([]int, 0, len(c)), c[last+1:]...), c[:last+1]...)
			chains = append(chains, turned)
		}
	}
	sort.SliceStable(chains, func(i, j int) bool { return chains[i][0] < chains[j][0] })
	loops := make([][]s2.Point, len(chains))
	for i, c := range chains {
		for _, k := range c {
			loops[i] = append(loops[i], kept[k].from)
		}
	}
	// shells (left turn around a small area) and the holes inside them
	type shell struct {
		loop  *s2.Loop
		rings [][]LonLat
	}
	var shells []*shell
	var holes [][]s2.Point
	for _, l := range loops {
		sl := s2.LoopFromPoints(l)
		if sl.Area() <= 2*3.141592653589793 {
			shells = append(shells, &shell{loop: sl, rings: [][]LonLat{ringOf(l)}})
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
				if s2.DistanceFromSegment(p, k.from, k.to) <= s1.Angle(OnEdge) {
					return true
				}
			}
			for _, l := range lines {
				if s2.DistanceFromSegment(p, l[0].S2(), l[1].S2()) <= s1.Angle(OnEdge) {
					return true
				}
			}
			return false
		}
		seen := map[LonLat]bool{}
		add := func(p s2.Point) {
			if q := PointFromS2(p); !seen[q] && !onKept(p) {
				seen[q] = true
				points = append(points, q)
			}
		}
		for _, pair := range []struct{ x, y Boundary }{{ba, bb}, {bb, ba}} {
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

// mergeVertices gives the vertices of the sets that lie within OnEdge of one another
// one position, the first one's (as S2's builder snaps them): a ring read back from
// S2 points (an earlier union's) lands a rounding away from the same vertex of
// another set, and the pieces that meet there must meet exactly. The sets are copied
// where a vertex moves.
func mergeVertices(sets [][][][]LonLat) [][][][]LonLat {
	const level = 20 // cells of about 10 m: a vertex's twin is in its cell or a neighbor
	seen := map[s2.CellID][]LonLat{}
	out := make([][][][]LonLat, len(sets))
	for i, set := range sets {
		out[i] = set
		copied := false
		for j, poly := range set {
			for k, ring := range poly {
				for m, v := range ring {
					p := v.S2()
					id := s2.CellIDFromLatLng(s2.LatLngFromPoint(p)).Parent(level)
					found, at := false, v
					for _, c := range append([]s2.CellID{id}, id.AllNeighbors(level)...) {
						for _, w := range seen[c] {
							if w == v || p.Distance(w.S2()) <= s1.Angle(OnEdge) {
								found, at = true, w
								break
							}
						}
						if found {
							break
						}
					}
					if !found {
						seen[id] = append(seen[id], v)
						continue
					}
					if at == v {
						continue
					}
					if !copied {
						out[i] = copyPolys(set)
						copied = true
					}
					out[i][j][k][m] = at
				}
			}
		}
	}
	return out
}

func copyPolys(set [][][]LonLat) [][][]LonLat {
	c := make([][][]LonLat, len(set))
	for j, poly := range set {
		c[j] = make([][]LonLat, len(poly))
		for k, ring := range poly {
			c[j][k] = append([]LonLat(nil), ring...)
		}
	}
	return c
}

// ringOf closes a loop's vertices into a GeoJSON ring.
func ringOf(l []s2.Point) []LonLat {
	r := make([]LonLat, 0, len(l)+1)
	for _, p := range l {
		r = append(r, PointFromS2(p))
	}
	return append(r, r[0])
}

// LineInPolygons is the part of lines inside (or on the boundary of) polygons: the
// stretches, in the lines' order and direction, and the points where a line only
// touches them.
func LineInPolygons(lines [][]LonLat, b Boundary) (points []LonLat, out [][]LonLat) {
	shared := map[[4]s2.Point]s2.Point{}
	var touches []s2.Point
	for _, l := range lines {
		var x Boundary
		for i := 1; i < len(l); i++ {
			x.edges = append(x.edges, [2]s2.Point{l[i-1].S2(), l[i].S2()})
		}
		var cur []s2.Point
		flush := func() {
			if len(cur) > 1 {
				l := make([]LonLat, len(cur))
				for i, p := range cur {
					l[i] = PointFromS2(p)
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
	seen := map[LonLat]bool{}
	for _, t := range touches {
		q := PointFromS2(t)
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

// UnionEdges is the number of edges of polygon sets, all rings together.
func UnionEdges(sets [][][][]LonLat) int {
	n := 0
	for _, s := range sets {
		n += EdgeCount(s, nil)
	}
	return n
}

// UnionPolygons is the union of a multipolygon's polygons, drawn.
func UnionPolygons(polys [][][]LonLat) [][][]LonLat {
	sets := make([][][][]LonLat, len(polys))
	for i, p := range polys {
		sets[i] = [][][]LonLat{p}
	}
	u, _, _ := PolygonBoolean(sets, true)
	return u
}
