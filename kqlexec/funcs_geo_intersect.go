package kqlexec

import (
	"github.com/golang/geo/s1"
	"github.com/golang/geo/s2"

	"github.com/qeval/qeval/kqlexec/internal/geom"
)

// geoIntersectFuncs defines the intersection of two lines on the sphere.
func geoIntersectFuncs(def func(string, *fnDef)) {
	def("geo_intersection_2lines", fixed(TDynamic, func(a []any) any {
		l1, ok1 := lineShape(a[0])
		l2, ok2 := lineShape(a[1])
		if !ok1 || !ok2 {
			return nil
		}
		if !geom.PairsOK(geom.EdgeCount(nil, l1), geom.EdgeCount(nil, l2)) {
			return tooLargeError("geo_intersection_2lines() of lines with more edges than it compares")
		}
		return intersectLines(l1, l2)
	}, TDynamic, TDynamic))
}

// lineShape reads a LineString or MultiLineString.
func lineShape(v any) ([][]geom.LonLat, bool) {
	s, ok := parseShape(v)
	if !ok || (s.kind != "LineString" && s.kind != "MultiLineString") {
		return nil, false
	}
	return s.lines, true
}

// intersectLines is what two lines share, as Kusto returns it: the stretches they
// share (along the first line's direction, joined where they meet), the points where
// they cross or touch elsewhere, an empty GeometryCollection when nothing.
func intersectLines(l1, l2 [][]geom.LonLat) any {
	var segs [][]geom.LonLat
	var pts []geom.LonLat
	addPoint := func(p geom.LonLat) {
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
			pa1, pa2 := a1.S2(), a2.S2()
			for _, b := range l2 {
				for j := 1; j < len(b); j++ {
					b1, b2 := b[j-1], b[j]
					pb1, pb2 := b1.S2(), b2.S2()
					if seg, ok := geom.SharedStretch(a1, a2, b1, b2); ok {
						if seg[0] == seg[1] {
							addPoint(seg[0])
						} else {
							segs = append(segs, []geom.LonLat{seg[0], seg[1]})
						}
						continue
					}
					switch s2.CrossingSign(pa1, pa2, pb1, pb2) {
					case s2.Cross:
						addPoint(geom.PointFromS2(s2.Intersection(pa1, pa2, pb1, pb2)))
					case s2.MaybeCross:
						// the edges share a vertex
						for _, p := range []geom.LonLat{a1, a2} {
							if p == b1 || p == b2 {
								addPoint(p)
							}
						}
					}
				}
			}
		}
	}
	var lines [][]geom.LonLat
	if len(segs) > 0 {
		lines = geom.UnionLines(segs)
	}
	// a point on a shared stretch is part of it
	var alone []geom.LonLat
	for _, p := range pts {
		on := false
		for _, l := range lines {
			for k := 1; k < len(l) && !on; k++ {
				on = s2.DistanceFromSegment(p.S2(), l[k-1].S2(), l[k].S2()) <= s1.Angle(geom.OnEdge)
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
