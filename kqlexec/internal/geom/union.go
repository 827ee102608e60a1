package geom

import (
	"sort"

	"github.com/golang/geo/r3"
	"github.com/golang/geo/s2"
)

// The area, centroid and perimeter of a multipolygon are those of the union of its
// polygons (Kusto's rule). Overlapping polygons are measured by inclusion–exclusion:
// the union's area is the sum of the areas of the intersections of every subset of
// overlapping polygons, signed by the subset's size, and so is its area-weighted
// centroid. An intersection is drawn by clipping one polygon by the others'
// great-circle edges (Sutherland–Hodgman on the sphere), which needs every polygon but
// one of the subset convex; polygons with holes, or a subset with two non-convex
// polygons, are not measured (ok false). The perimeter is the length of each
// polygon's boundary that lies outside the others.

// maxUnionPolygons bounds the subsets inclusion–exclusion walks (2^n).
const maxUnionPolygons = 12

// UnionMeasures returns the union's area (steradians) and area-weighted centroid.
func UnionMeasures(polys [][][]LonLat) (area float64, centroid r3.Vector, ok bool) {
	if n := EdgeCount(polys, nil); len(polys) > maxUnionPolygons || !PairsOK(n<<len(polys), n) {
		return 0, r3.Vector{}, false // the drawn union is cheaper
	}
	loops := make([]*s2.Loop, len(polys))
	convex := make([]bool, len(polys))
	for i, p := range polys {
		if len(p) != 1 {
			return 0, r3.Vector{}, false // holes
		}
		loops[i] = PolygonOf(p).Loop(0)
		convex[i] = isConvex(loops[i])
	}
	for mask := 1; mask < 1<<len(polys); mask++ {
		var members []int
		nonConvex := 0
		for i := range polys {
			if mask&(1<<i) != 0 {
				members = append(members, i)
				if !convex[i] {
					nonConvex++
				}
			}
		}
		if len(members) > 1 && !pairwiseIntersect(loops, members) {
			continue // an empty intersection adds nothing
		}
		if nonConvex > 1 && len(members) > 1 {
			return 0, r3.Vector{}, false
		}
		// the non-convex polygon (if any) is clipped by the convex ones
		sort.SliceStable(members, func(a, b int) bool { return !convex[members[a]] && convex[members[b]] })
		pts := loops[members[0]].Vertices()
		for _, j := range members[1:] {
			pts = clipByConvex(pts, loops[j].Vertices())
			if len(pts) < 3 {
				break
			}
		}
		if len(pts) < 3 {
			continue
		}
		l := s2.LoopFromPoints(pts)
		sign := 1.0
		if len(members)%2 == 0 {
			sign = -1
		}
		area += sign * l.Area()
		centroid = centroid.Add(l.Centroid().Vector.Mul(sign))
	}
	return area, centroid, true
}

// pairwiseIntersect reports whether every two loops of the subset intersect.
func pairwiseIntersect(loops []*s2.Loop, members []int) bool {
	for a := range members {
		for b := a + 1; b < len(members); b++ {
			if !loops[members[a]].Intersects(loops[members[b]]) {
				return false
			}
		}
	}
	return true
}

// isConvex reports whether a counter-clockwise loop turns left (or goes straight) at
// every vertex.
func isConvex(l *s2.Loop) bool {
	v := l.Vertices()
	for i := range v {
		if s2.RobustSign(v[(i+len(v)-1)%len(v)], v[i], v[(i+1)%len(v)]) == s2.Clockwise {
			return false
		}
	}
	return true
}

// clipByConvex keeps the part of the subject loop left of every edge of a convex,
// counter-clockwise clip loop.
func clipByConvex(subject, clip []s2.Point) []s2.Point {
	out := subject
	for i := range clip {
		n := clip[i].PointCross(clip[(i+1)%len(clip)]).Normalize()
		in := out
		out = nil
		for j := range in {
			prev, cur := in[(j+len(in)-1)%len(in)], in[j]
			dp, dc := n.Dot(prev.Vector), n.Dot(cur.Vector)
			switch {
			case dc >= 0:
				if dp < 0 {
					out = append(out, crossing(prev, cur, dp, dc))
				}
				out = append(out, cur)
			case dp >= 0:
				if dp > 0 {
					out = append(out, crossing(prev, cur, dp, dc))
				}
			}
		}
		if len(out) < 3 {
			return nil
		}
	}
	return out
}

// crossing is the point of the arc a–b on the great circle that a and b lie on either
// side of (dot products da, db with its normal).
func crossing(a, b s2.Point, da, db float64) s2.Point {
	return s2.Point{Vector: a.Mul(abs(db)).Add(b.Mul(abs(da))).Normalize()}
}

// UnionPerimeter is the length (meters) of each polygon's boundary outside the others.
func UnionPerimeter(polys [][][]LonLat) float64 {
	ps := make([]*s2.Polygon, len(polys))
	for i, p := range polys {
		ps[i] = PolygonOf(p)
	}
	var per float64
	for i, p := range polys {
		for _, ring := range p {
			for k := 1; k < len(ring); k++ {
				a, b := ring[k-1].S2(), ring[k].S2()
				// the edge cut where it crosses the other polygons' edges
				cuts := []s2.Point{a, b}
				for j, q := range polys {
					if j == i {
						continue
					}
					for _, r := range q {
						for m := 1; m < len(r); m++ {
							c, d := r[m-1].S2(), r[m].S2()
							if s2.CrossingSign(a, b, c, d) == s2.Cross {
								cuts = append(cuts, s2.Intersection(a, b, c, d))
							}
						}
					}
				}
				sort.Slice(cuts, func(x, y int) bool { return a.Distance(cuts[x]) < a.Distance(cuts[y]) })
				for c := 1; c < len(cuts); c++ {
					mid := s2.Interpolate(0.5, cuts[c-1], cuts[c])
					inside := false
					for j := range ps {
						inside = inside || j != i && ps[j].ContainsPoint(mid)
					}
					if !inside {
						per += float64(cuts[c-1].Distance(cuts[c])) * EarthRadius
					}
				}
			}
		}
	}
	return per
}
