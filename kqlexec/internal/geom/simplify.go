package geom

import (
	"sort"

	"github.com/golang/geo/s2"
	"github.com/uber/h3-go/v4"
)

// Kusto simplifies with S2's builder: no two vertices of the result are closer than the
// tolerance, and a chain of short edges that stays within the tolerance of one long
// edge becomes that edge. Here a chain is simplified by Douglas–Peucker on geodesic
// edges (a vertex is kept while it strays more than the tolerance from the edge
// between the kept ones), then vertices closer than the tolerance to the previous kept
// one are merged; a line or ring that collapses disappears, and a shape of which
// nothing is left is null (the reference's "high tolerance may cause small lines to
// disappear").

// MaxS2Cells and MaxH3Cells are the most cells geo_polygon_to_s2cells and
// geo_polygon_to_h3cells return (Kusto's limits).
const (
	MaxS2Cells = 65536
	MaxH3Cells = 61680
)

// SimplifyLine simplifies one line; nil when it collapses to a point.
func SimplifyLine(l []LonLat, tol float64) []LonLat {
	keep := make([]bool, len(l))
	keep[0], keep[len(l)-1] = true, true
	douglasPeucker(l, 0, len(l)-1, tol, keep)
	var out []LonLat
	for i, p := range l {
		if !keep[i] {
			continue
		}
		switch {
		case len(out) == 0 || Distance(out[len(out)-1], p) >= tol && p != out[len(out)-1]:
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
func simplifyRing(r []LonLat, tol float64) []LonLat {
	n := len(r) - 1 // distinct positions
	if n < 3 {
		return nil
	}
	// split the ring at its first vertex and the vertex farthest from it
	far, best := 0, -1.0
	for i := 1; i < n; i++ {
		if d := Distance(r[0], r[i]); d > best {
			far, best = i, d
		}
	}
	keep := make([]bool, n+1)
	keep[0], keep[far], keep[n] = true, true, true
	douglasPeucker(r, 0, far, tol, keep)
	douglasPeucker(r, far, n, tol, keep)
	var out []LonLat
	for i := 0; i < n; i++ {
		if keep[i] && (len(out) == 0 || Distance(out[len(out)-1], r[i]) >= tol && r[i] != out[len(out)-1]) {
			out = append(out, r[i])
		}
	}
	for len(out) > 1 && (Distance(out[len(out)-1], out[0]) < tol || out[len(out)-1] == out[0]) {
		out = out[:len(out)-1]
	}
	if len(out) < 3 {
		return nil
	}
	return append(out, out[0])
}

// SimplifyPolygon simplifies a polygon's rings; nil when its shell collapses (a hole
// that collapses is dropped).
func SimplifyPolygon(rings [][]LonLat, tol float64) [][]LonLat {
	shell := simplifyRing(s2Order(rings[0]), tol)
	if shell == nil {
		return nil
	}
	out := [][]LonLat{shell}
	for _, h := range rings[1:] {
		if q := simplifyRing(s2Order(h), tol); q != nil {
			out = append(out, q)
		}
	}
	return out
}

// douglasPeucker marks in keep the vertices of l[i..j] to keep: the one farthest from
// the geodesic l[i]–l[j], when farther than tol meters, and so on in both halves.
func douglasPeucker(l []LonLat, i, j int, tol float64, keep []bool) {
	for j > i+1 {
		a, b := l[i].S2(), l[j].S2()
		far, best := -1, -1.0
		for k := i + 1; k < j; k++ {
			d := float64(s2.DistanceFromSegment(l[k].S2(), a, b)) * EarthRadius
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

// H3Loop is a ring as H3 takes it: its positions without the closing repeat.
func H3Loop(r []LonLat) h3.GeoLoop {
	out := make(h3.GeoLoop, 0, len(r)-1)
	for _, q := range r[:len(r)-1] {
		out = append(out, h3.NewLatLng(q[1], q[0]))
	}
	return out
}

// UnionLines joins lines into the fewest chains: each edge once (an edge that two
// lines share, in the same direction, counts once), chained where one edge ends and
// only one starts; edges that cross away from their vertices are cut at the crossing,
// where chains then meet, as Kusto splits them.
func UnionLines(lines [][]LonLat) (chains [][]LonLat) {
	type edge struct{ a, b LonLat }
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
	cuts := make([][]LonLat, len(raw))
	for i := range raw {
		for j := i + 1; j < len(raw); j++ {
			a, b, c, d := raw[i].a.S2(), raw[i].b.S2(), raw[j].a.S2(), raw[j].b.S2()
			if s2.CrossingSign(a, b, c, d) == s2.Cross {
				p := PointFromS2(s2.Intersection(a, b, c, d))
				cuts[i] = append(cuts[i], p)
				cuts[j] = append(cuts[j], p)
			}
		}
	}
	var edges []edge
	out := map[LonLat][]int{}
	in := map[LonLat]int{}
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
		a := e.a.S2()
		sort.Slice(ps, func(x, y int) bool { return a.Distance(ps[x].S2()) < a.Distance(ps[y].S2()) })
		from := e.a
		for _, p := range ps {
			add(edge{from, p})
			from = p
		}
		add(edge{from, e.b})
	}
	used := make([]bool, len(edges))
	// a chain goes on through a vertex one edge enters and one leaves
	through := func(p LonLat) bool { return in[p] == 1 && len(out[p]) == 1 }
	walk := func(start int) []LonLat {
		chain := []LonLat{edges[start].a}
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
func s2Order(r []LonLat) []LonLat {
	if Loop(r).Vertex(0) != r[0].S2() {
		return ReversedRing(r)
	}
	return r
}
