package kqlexec

import (
	"math"

	"github.com/golang/geo/s2"
)

// Points, lines and polygons: the distance from a point to a line or polygon, their
// closest point, and the point at a fraction of a line's length, on the sphere (S2 polylines, the
// geometry Kusto's own geo functions use).

// polylines reads a LineString or MultiLineString argument as S2 polylines.
func polylines(v any) ([]*s2.Polyline, bool) {
	s, ok := parseShape(v)
	if !ok || (s.kind != "LineString" && s.kind != "MultiLineString") {
		return nil, false
	}
	out := make([]*s2.Polyline, 0, len(s.lines))
	for _, l := range s.lines {
		pts := make([]s2.Point, len(l))
		for i, p := range l {
			pts[i] = p.s2()
		}
		pl := s2.Polyline(pts)
		out = append(out, &pl)
	}
	return out, len(out) > 0
}

// closestOnLines is the point of the lines nearest to p, and its distance in meters.
func closestOnLines(p s2.Point, lines []*s2.Polyline) (s2.Point, float64) {
	best, bestD := s2.Point{}, math.Inf(1)
	for _, l := range lines {
		q, _ := l.Project(p)
		if d := float64(p.Distance(q)) * earthRadius; d < bestD {
			best, bestD = q, d
		}
	}
	return best, bestD
}

// polygonEdges reads a Polygon or MultiPolygon argument: its S2 polygons (for
// containment) and each ring as a closed polyline (for distances).
func polygonEdges(v any) ([]*s2.Polygon, []*s2.Polyline, bool) {
	s, ok := parseShape(v)
	if !ok || (s.kind != "Polygon" && s.kind != "MultiPolygon") {
		return nil, nil, false
	}
	polys, rings := polygonEdgesOf(s.polys)
	return polys, rings, len(polys) > 0
}

// polygonEdgesOf is polygonEdges of polygons already read.
func polygonEdgesOf(ps [][][]lonLat) (polys []*s2.Polygon, rings []*s2.Polyline) {
	for _, p := range ps {
		polys = append(polys, polygonOf(p))
		for _, r := range p {
			pts := make([]s2.Point, len(r))
			for i, q := range r {
				pts[i] = q.s2()
			}
			pl := s2.Polyline(pts)
			rings = append(rings, &pl)
		}
	}
	return polys, rings
}

// closestOnPolygons is the point of the polygons nearest to p (p itself inside one)
// and its distance in meters.
func closestOnPolygons(p s2.Point, polys []*s2.Polygon, rings []*s2.Polyline) (s2.Point, float64) {
	for _, poly := range polys {
		if poly.ContainsPoint(p) {
			return p, 0
		}
	}
	return closestOnLines(p, rings)
}

// geoLineFuncs defines this file's functions (see library in funcs.go).
func geoLineFuncs(def func(string, *fnDef)) {
	def("geo_distance_point_to_line", &fnDef{min: 3, max: 4, ret: TReal, fn: func(a []any) any {
		p, ok := argLonLat(a, 0)
		lines, ok2 := polylines(a[2])
		if !ok || !ok2 {
			return nil
		}
		_, d := closestOnLines(p.s2(), lines)
		return d
	}})
	def("geo_closest_point_on_line", &fnDef{min: 3, max: 4, ret: TDynamic, fn: func(a []any) any {
		p, ok := argLonLat(a, 0)
		lines, ok2 := polylines(a[2])
		if !ok || !ok2 {
			return nil
		}
		q, _ := closestOnLines(p.s2(), lines)
		return geoPoint(pointFromS2(q))
	}})
	def("geo_distance_point_to_polygon", &fnDef{min: 3, max: 3, ret: TReal, fn: func(a []any) any {
		p, ok := argLonLat(a, 0)
		polys, rings, ok2 := polygonEdges(a[2])
		if !ok || !ok2 {
			return nil
		}
		_, d := closestOnPolygons(p.s2(), polys, rings)
		return d
	}})
	def("geo_closest_point_on_polygon", &fnDef{min: 3, max: 3, ret: TDynamic, fn: func(a []any) any {
		p, ok := argLonLat(a, 0)
		polys, rings, ok2 := polygonEdges(a[2])
		if !ok || !ok2 {
			return nil
		}
		q, d := closestOnPolygons(p.s2(), polys, rings)
		if d == 0 {
			return geoPoint(p)
		}
		return geoPoint(pointFromS2(q))
	}})
	def("geo_line_interpolate_point", &fnDef{min: 2, max: 3, ret: TDynamic, fn: func(a []any) any {
		lines, ok := polylines(a[0])
		f, ok2 := toReal(a[1])
		if !ok || !ok2 || len(lines) != 1 || f < 0 || f > 1 || math.IsNaN(f) {
			return nil
		}
		q, _ := lines[0].Interpolate(f)
		return geoPoint(pointFromS2(q))
	}})
	// geo_line_locate_point(line, lon, lat): the fraction of the line from its start to
	// the line's point closest to (lon, lat)
	def("geo_line_locate_point", &fnDef{min: 3, max: 4, args: []Type{TDynamic, TReal, TReal, TBool}, ret: TReal,
		partly: "on the sphere; not use_spheroid", fn: func(a []any) any {
			lines, ok := polylines(a[0])
			p, ok2 := argLonLat(a, 1)
			if !ok || !ok2 || len(lines) != 1 || len(*lines[0]) < 2 {
				return nil
			}
			if len(a) == 4 {
				if b, _ := a[3].(bool); b {
					return unsupportedError("geo_line_locate_point() on the spheroid")
				}
			}
			l := lines[0]
			q, next := l.Project(p.s2())
			return l.Uninterpolate(q, next)
		}})
}
