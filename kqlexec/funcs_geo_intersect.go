package kqlexec

import (
	"github.com/golang/geo/s1"
	"github.com/golang/geo/s2"
)

// geoIntersectFuncs defines the intersection of two lines on the sphere.
func geoIntersectFuncs(def func(string, *fnDef)) {
	def("geo_intersection_2lines", fixed(TDynamic, func(a []any) any {
		l1, ok1 := lineShape(a[0])
		l2, ok2 := lineShape(a[1])
		if !ok1 || !ok2 {
			return nil
		}
		if !pairsOK(edgeCount(nil, l1), edgeCount(nil, l2)) {
			return tooLargeError("geo_intersection_2lines() of lines with more edges than it compares")
		}
		return intersectLines(l1, l2)
	}, TDynamic, TDynamic))
}

// lineShape reads a LineString or MultiLineString.
func lineShape(v any) ([][]lonLat, bool) {
	s, ok := parseShape(v)
	if !ok || (s.kind != "LineString" && s.kind != "MultiLineString") {
		return nil, false
	}
	return s.lines, true
}

// onEdge is how near (radians) a point must be to an edge to lie on it: a few
// millimetres, the rounding of coordinates read back from S2 points.
const onEdge = 1e-9

// intersectLines is what two lines share, as Kusto returns it: the stretches they
// share (along the first line's direction, joined where they meet), the points where
// they cross or touch elsewhere, an empty GeometryCollection when nothing.
func intersectLines(l1, l2 [][]lonLat) any {
	var segs [][]lonLat
	var pts []lonLat
	addPoint := func(p lonLat) {
		for _, q := range pts {
			if q == p {
				return
			}
		}
		pts = append(pts, p)
	}
	for _, a := range l1 {
		for i := 1; i < len(a); i++ {
			a1, a2 := a[i-1], a[i]
			pa1, pa2 := a1.s2(), a2.s2()
			for _, b := range l2 {
				for j := 1; j < len(b); j++ {
					b1, b2 := b[j-1], b[j]
					pb1, pb2 := b1.s2(), b2.s2()
					if seg, ok := sharedStretch(a1, a2, b1, b2); ok {
						if seg[0] == seg[1] {
							addPoint(seg[0])
						} else {
							segs = append(segs, []lonLat{seg[0], seg[1]})
						}
						continue
					}
					switch s2.CrossingSign(pa1, pa2, pb1, pb2) {
					case s2.Cross:
						addPoint(pointFromS2(s2.Intersection(pa1, pa2, pb1, pb2)))
					case s2.MaybeCross:
						// the edges share a vertex
						for _, p := range []lonLat{a1, a2} {
							if p == b1 || p == b2 {
								addPoint(p)
							}
						}
					}
				}
			}
		}
	}
	var lines [][]lonLat
	if len(segs) > 0 {
		lines = unionLines(segs)
	}
	// a point on a shared stretch is part of it
	var alone []lonLat
	for _, p := range pts {
		on := false
		for _, l := range lines {
			for k := 1; k < len(l) && !on; k++ {
				on = s2.DistanceFromSegment(p.s2(), l[k-1].s2(), l[k].s2()) <= s1.Angle(onEdge)
			}
		}
		if !on {
			alone = append(alone, p)
		}
	}
	var geoms []any
	for _, p := range alone {
		geoms = append(geoms, geoObj("Point", []any{toJSONValue(p[0]), toJSONValue(p[1])}))
	}
	for _, l := range lines {
		geoms = append(geoms, geoObj("LineString", coordsJSON(l)))
	}
	switch {
	case len(geoms) == 1:
		return Dyn{geoms[0]}
	case len(alone) > 1 && len(lines) == 0:
		cs := make([]any, len(alone))
		for i, p := range alone {
			cs[i] = []any{toJSONValue(p[0]), toJSONValue(p[1])}
		}
		return Dyn{geoObj("MultiPoint", cs)}
	case len(lines) > 1 && len(alone) == 0:
		return linesJSON(lines)
	}
	if geoms == nil {
		geoms = []any{}
	}
	return Dyn{geoObj("GeometryCollection", geoms)}
}

// sharedStretch is the part two edges share when they lie on one great circle: the
// stretch between the two of their ends that lie on both, in a1→a2's direction (one
// position twice when they only touch). ok is false when they are not on one circle
// or share nothing.
func sharedStretch(a1, a2, b1, b2 lonLat) ([2]lonLat, bool) {
	pa1, pa2, pb1, pb2 := a1.s2(), a2.s2(), b1.s2(), b2.s2()
	n := pa1.PointCross(pa2)
	if n.Norm() == 0 || abs(n.Normalize().Dot(pb1.Vector)) > onEdge || abs(n.Normalize().Dot(pb2.Vector)) > onEdge {
		return [2]lonLat{}, false
	}
	on := func(p s2.Point, x, y s2.Point) bool { return s2.DistanceFromSegment(p, x, y) <= s1.Angle(onEdge) }
	var ends []lonLat
	for _, c := range []struct {
		p  lonLat
		pt s2.Point
	}{{a1, pa1}, {a2, pa2}, {b1, pb1}, {b2, pb2}} {
		if on(c.pt, pa1, pa2) && on(c.pt, pb1, pb2) {
			dup := false
			for _, e := range ends {
				dup = dup || e.s2().Distance(c.pt) <= s1.Angle(onEdge)
			}
			if !dup {
				ends = append(ends, c.p)
			}
		}
	}
	switch len(ends) {
	case 0:
		return [2]lonLat{}, false
	case 1:
		return [2]lonLat{ends[0], ends[0]}, true
	}
	// the two ends farthest apart, ordered along a1→a2
	x, y := ends[0], ends[1]
	for i := range ends {
		for j := i + 1; j < len(ends); j++ {
			if ends[i].s2().Distance(ends[j].s2()) > x.s2().Distance(y.s2()) {
				x, y = ends[i], ends[j]
			}
		}
	}
	if pa1.Distance(x.s2()) > pa1.Distance(y.s2()) {
		x, y = y, x
	}
	return [2]lonLat{x, y}, true
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}
