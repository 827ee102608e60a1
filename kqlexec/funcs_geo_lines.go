package kqlexec

import (
	"math"

	"github.com/golang/geo/s2"

	"github.com/qeval/qeval/kqlexec/internal/geom"
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
			pts[i] = p.S2()
		}
		pl := s2.Polyline(pts)
		out = append(out, &pl)
	}
	return out, len(out) > 0
}

// polygonEdges reads a Polygon or MultiPolygon argument: its S2 polygons (for
// containment) and each ring as a closed polyline (for distances).
func polygonEdges(v any) ([]*s2.Polygon, []*s2.Polyline, bool) {
	s, ok := parseShape(v)
	if !ok || (s.kind != "Polygon" && s.kind != "MultiPolygon") {
		return nil, nil, false
	}
	polys, rings := geom.PolygonEdgesOf(s.polys)
	return polys, rings, len(polys) > 0
}

// geoLineFuncs defines this file's functions (see library in funcs.go).
func geoLineFuncs(def func(string, *fnDef)) {
	def("geo_distance_point_to_line", &fnDef{min: 3, max: 4, ret: TReal, fn: func(a []any) any {
		p, ok := argLonLat(a, 0)
		lines, ok2 := polylines(a[2])
		if !ok || !ok2 {
			return nil
		}
		_, d := geom.ClosestOnLines(p.S2(), lines)
		return d
	}})
	def("geo_closest_point_on_line", &fnDef{min: 3, max: 4, ret: TDynamic, fn: func(a []any) any {
		p, ok := argLonLat(a, 0)
		lines, ok2 := polylines(a[2])
		if !ok || !ok2 {
			return nil
		}
		q, _ := geom.ClosestOnLines(p.S2(), lines)
		return geoPoint(geom.PointFromS2(q))
	}})
	def("geo_distance_point_to_polygon", &fnDef{min: 3, max: 3, ret: TReal, fn: func(a []any) any {
		p, ok := argLonLat(a, 0)
		polys, rings, ok2 := polygonEdges(a[2])
		if !ok || !ok2 {
			return nil
		}
		_, d := geom.ClosestOnPolygons(p.S2(), polys, rings)
		return d
	}})
	def("geo_closest_point_on_polygon", &fnDef{min: 3, max: 3, ret: TDynamic, fn: func(a []any) any {
		p, ok := argLonLat(a, 0)
		polys, rings, ok2 := polygonEdges(a[2])
		if !ok || !ok2 {
			return nil
		}
		q, d := geom.ClosestOnPolygons(p.S2(), polys, rings)
		if d == 0 {
			return geoPoint(p)
		}
		return geoPoint(geom.PointFromS2(q))
	}})
	def("geo_line_interpolate_point", &fnDef{min: 2, max: 3, ret: TDynamic, fn: func(a []any) any {
		lines, ok := polylines(a[0])
		f, ok2 := toReal(a[1])
		if !ok || !ok2 || len(lines) != 1 || f < 0 || f > 1 || math.IsNaN(f) {
			return nil
		}
		q, _ := lines[0].Interpolate(f)
		return geoPoint(geom.PointFromS2(q))
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
			q, next := l.Project(p.S2())
			return l.Uninterpolate(q, next)
		}})
}
