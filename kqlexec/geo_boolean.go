package kqlexec

import "github.com/qeval/qeval/kqlexec/internal/geom"

// geometryOf writes polygons, points and lines as one GeoJSON geometry: a single kind
// alone, several in a GeometryCollection (points, lines, then polygons), none as an
// empty collection.
func geometryOf(polys [][][]geom.LonLat, points []geom.LonLat, lines [][]geom.LonLat) any {
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
		if n, m := geom.EdgeCount(nil, lines), geom.EdgeCount(y.polys, nil); !geom.PairsOK(n+m, m) {
			return tooLargeError("geo_intersection_line_with_polygon() of shapes with more edges than it compares")
		}
		points, stretches := geom.LineInPolygons(lines, geom.BoundaryOf(y.polys))
		return geometryOf(nil, points, stretches)
	}, TDynamic, TDynamic))
	def("geo_intersection_2polygons", fixed(TDynamic, func(a []any) any {
		x, ok1 := parseShape(a[0])
		y, ok2 := parseShape(a[1])
		if !ok1 || !ok2 || x.polys == nil || y.polys == nil {
			return nil
		}
		if n, m := geom.EdgeCount(x.polys, nil), geom.EdgeCount(y.polys, nil); !geom.PairsOK(n+m, n+m) {
			return tooLargeError("geo_intersection_2polygons() of polygons with more edges than it compares")
		}
		return geometryOf(geom.PolygonBoolean([][][][]geom.LonLat{x.polys, y.polys}, false))
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
		var sets [][][][]geom.LonLat
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
		if n := geom.UnionEdges(sets); !geom.PairsOK(n, n) {
			return tooLargeError("geo_union_polygons_array() of polygons with more edges than it compares")
		}
		acc, _, _ := geom.PolygonBoolean(sets, true)
		if acc == nil {
			return nil
		}
		return polygonsJSON(acc)
	}, TDynamic))
}
