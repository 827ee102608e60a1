package kqlexec

import (
	"math"

	"github.com/golang/geo/s2"

	"github.com/qeval/qeval/kqlexec/internal/geom"
)

// Geospatial functions. Points are (longitude, latitude) in degrees on WGS-84, shapes
// are GeoJSON. Spherical geometry uses S2 (github.com/golang/geo), as Kusto's own
// geospatial functions do; H3 cells use Uber's H3 library (funcs_cells.go).

func argLonLat(a []any, i int) (geom.LonLat, bool) {
	if i+1 >= len(a) || a[i] == nil || a[i+1] == nil {
		return geom.LonLat{}, false
	}
	lon, ok1 := toReal(a[i])
	lat, ok2 := toReal(a[i+1])
	if !ok1 || !ok2 || !geom.ValidLonLat(lon, lat) {
		return geom.LonLat{}, false
	}
	return geom.LonLat{lon, lat}, true
}

func geoPoint(p geom.LonLat) Dyn {
	return Dyn{geoObj("Point", []any{toJSONValue(p[0]), toJSONValue(p[1])})}
}

func coordsJSON(ps []geom.LonLat) []any {
	out := make([]any, len(ps))
	for i, p := range ps {
		out[i] = []any{toJSONValue(p[0]), toJSONValue(p[1])}
	}
	return out
}

// geoFuncs defines this file's functions (see library in funcs.go).
func geoFuncs(def func(string, *fnDef)) {
	// geo_distance_2points(lon1, lat1, lon2, lat2[, use_spheroid]): on the sphere, as
	// Kusto measures unless use_spheroid is true (refused: not the spheroid's geodesics)
	def("geo_distance_2points", &fnDef{min: 4, max: 5, args: []Type{TReal, TReal, TReal, TReal, TBool}, ret: TReal,
		partly: "on the sphere; not use_spheroid", fn: func(a []any) any {
			p, ok1 := argLonLat(a, 0)
			q, ok2 := argLonLat(a, 2)
			if !ok1 || !ok2 {
				return nil
			}
			if len(a) == 5 {
				if b, _ := a[4].(bool); b {
					return unsupportedError("geo_distance_2points() on the spheroid")
				}
			}
			return geom.Distance(p, q)
		}})
	def("geo_point_in_circle", fixed(TBool, func(a []any) any {
		p, ok1 := argLonLat(a, 0)
		c, ok2 := argLonLat(a, 2)
		r, ok3 := toReal(a[4])
		if !ok1 || !ok2 || !ok3 || r < 0 || a[4] == nil {
			return nil
		}
		return geom.Distance(p, c) <= r
	}, TReal, TReal, TReal, TReal, TReal))
	def("geo_point_in_polygon", fixed(TBool, func(a []any) any {
		p, ok1 := argLonLat(a, 0)
		s, ok2 := parseShape(a[2])
		if !ok1 || !ok2 || s.polys == nil {
			return nil
		}
		pt := p.S2()
		for _, rings := range s.polys {
			if geom.PolygonOf(rings).ContainsPoint(pt) {
				return true
			}
		}
		return false
	}, TReal, TReal, TDynamic))
	def("geo_polygon_area", fixed(TReal, func(a []any) any {
		s, ok := parseShape(a[0])
		if !ok || s.polys == nil {
			return nil
		}
		if geom.Overlapping(s.polys) {
			if n := geom.EdgeCount(s.polys, nil); !geom.PairsOK(n, n) {
				return tooLargeError("geo_polygon_area() of overlapping polygons with more edges than it compares")
			}
			area, _, ok := geom.UnionMeasures(s.polys)
			if !ok {
				// polygons with holes, or two not convex: the area of their drawn union
				area = 0
				for _, rings := range geom.UnionPolygons(s.polys) {
					area += geom.PolygonOf(rings).Area()
				}
			}
			return area * geom.EarthRadius * geom.EarthRadius
		}
		var area float64
		for _, rings := range s.polys {
			area += geom.PolygonOf(rings).Area()
		}
		return area * geom.EarthRadius * geom.EarthRadius
	}, TDynamic))
	def("geo_polygon_perimeter", fixed(TReal, func(a []any) any {
		s, ok := parseShape(a[0])
		if !ok || s.polys == nil {
			return nil
		}
		if geom.Overlapping(s.polys) {
			if n := geom.EdgeCount(s.polys, nil); !geom.PairsOK(n, n) {
				return tooLargeError("geo_polygon_perimeter() of overlapping polygons with more edges than it compares")
			}
			return geom.UnionPerimeter(s.polys)
		}
		var per float64
		for _, rings := range s.polys {
			for _, r := range rings {
				per += geom.LineLength(r)
			}
		}
		return per
	}, TDynamic))
	def("geo_line_length", fixed(TReal, func(a []any) any {
		s, ok := parseShape(a[0])
		if !ok || (s.kind != "LineString" && s.kind != "MultiLineString") {
			return nil
		}
		var l float64
		for _, line := range s.lines {
			l += geom.LineLength(line)
		}
		return l
	}, TDynamic))
	def("geo_line_centroid", fixed(TDynamic, func(a []any) any {
		s, ok := parseShape(a[0])
		if !ok || (s.kind != "LineString" && s.kind != "MultiLineString") {
			return nil
		}
		return lineCentroid(s.lines)
	}, TDynamic))
	def("geo_polygon_centroid", fixed(TDynamic, func(a []any) any {
		s, ok := parseShape(a[0])
		if !ok || s.polys == nil {
			return nil
		}
		var c s2.Point
		if geom.Overlapping(s.polys) {
			if n := geom.EdgeCount(s.polys, nil); !geom.PairsOK(n, n) {
				return tooLargeError("geo_polygon_centroid() of overlapping polygons with more edges than it compares")
			}
			_, v, ok := geom.UnionMeasures(s.polys)
			if !ok {
				for _, rings := range geom.UnionPolygons(s.polys) {
					v = v.Add(geom.PolygonOf(rings).Centroid().Vector)
				}
			}
			c = s2.Point{Vector: v}
		} else {
			for _, rings := range s.polys {
				c = s2.Point{Vector: c.Add(geom.PolygonOf(rings).Centroid().Vector)}
			}
		}
		if c.Norm() == 0 {
			return nil
		}
		return geoPoint(geom.PointFromS2(s2.Point{Vector: c.Normalize()}))
	}, TDynamic))
	def("geo_angle", fixed(TReal, func(a []any) any {
		p1, ok1 := argLonLat(a, 0)
		p2, ok2 := argLonLat(a, 2)
		p3, ok3 := argLonLat(a, 4)
		if !ok1 || !ok2 || !ok3 || p1 == p2 || p2 == p3 {
			return nil
		}
		ang := float64(s2.TurnAngle(p1.S2(), p2.S2(), p3.S2()))
		return math.Pi - math.Abs(ang)
	}, TReal, TReal, TReal, TReal, TReal, TReal))
	def("geo_azimuth", fixed(TReal, func(a []any) any {
		p1, ok1 := argLonLat(a, 0)
		p2, ok2 := argLonLat(a, 2)
		if !ok1 || !ok2 || p1 == p2 {
			return nil
		}
		lat1, lat2 := p1[1]*math.Pi/180, p2[1]*math.Pi/180
		dl := (p2[0] - p1[0]) * math.Pi / 180
		y := math.Sin(dl) * math.Cos(lat2)
		x := math.Cos(lat1)*math.Sin(lat2) - math.Sin(lat1)*math.Cos(lat2)*math.Cos(dl)
		az := math.Atan2(y, x)
		if az < 0 {
			az += 2 * math.Pi
		}
		return az
	}, TReal, TReal, TReal, TReal))
	def("geo_intersects_2lines", fixed(TBool, func(a []any) any {
		x, ok1 := parseShape(a[0])
		y, ok2 := parseShape(a[1])
		if !ok1 || !ok2 || x.kind != "LineString" || y.kind != "LineString" {
			return nil
		}
		for i := 1; i < len(x.lines[0]); i++ {
			for j := 1; j < len(y.lines[0]); j++ {
				if s2.CrossingSign(x.lines[0][i-1].S2(), x.lines[0][i].S2(), y.lines[0][j-1].S2(), y.lines[0][j].S2()) != s2.DoNotCross ||
					s2.VertexCrossing(x.lines[0][i-1].S2(), x.lines[0][i].S2(), y.lines[0][j-1].S2(), y.lines[0][j].S2()) {
					return true
				}
			}
		}
		return false
	}, TDynamic, TDynamic))
	// geo_intersects_line_with_polygon(line, polygon): a (multi)line meets a
	// (multi)polygon when one of its vertices is inside or one of its edges crosses
	// the polygon's boundary
	def("geo_intersects_line_with_polygon", fixed(TBool, func(a []any) any {
		x, ok1 := parseShape(a[0])
		y, ok2 := parseShape(a[1])
		if !ok1 || !ok2 || (x.kind != "LineString" && x.kind != "MultiLineString") || y.polys == nil {
			return nil
		}
		for _, l := range x.lines {
			if len(l) < 2 {
				return nil
			}
		}
		for _, p := range y.polys {
			poly := geom.PolygonOf(p)
			for _, l := range x.lines {
				for i, v := range l {
					if poly.ContainsPoint(v.S2()) {
						return true
					}
					if i == 0 {
						continue
					}
					for _, ring := range p {
						for j := 1; j < len(ring); j++ {
							if s2.CrossingSign(l[i-1].S2(), v.S2(), ring[j-1].S2(), ring[j].S2()) != s2.DoNotCross ||
								s2.VertexCrossing(l[i-1].S2(), v.S2(), ring[j-1].S2(), ring[j].S2()) {
								return true
							}
						}
					}
				}
			}
		}
		return false
	}, TDynamic, TDynamic))
	def("geo_intersects_2polygons", fixed(TBool, func(a []any) any {
		x, ok1 := parseShape(a[0])
		y, ok2 := parseShape(a[1])
		if !ok1 || !ok2 || x.polys == nil || y.polys == nil {
			return nil
		}
		for _, p := range x.polys {
			for _, q := range y.polys {
				if geom.PolygonOf(p).Intersects(geom.PolygonOf(q)) {
					return true
				}
			}
		}
		return false
	}, TDynamic, TDynamic))
	def("geo_from_wkt", fixed(TDynamic, func(a []any) any { return fromWKT(str(a, 0)) }, TString))
	def("geo_line_densify", &fnDef{min: 1, max: 3, args: []Type{TDynamic, TReal, TBool}, ret: TDynamic, fn: func(a []any) any {
		s, ok := parseShape(a[0])
		if !ok || (s.kind != "LineString" && s.kind != "MultiLineString") {
			return nil
		}
		tol, err := densifyArgs(a, "geo_line_densify")
		if tol == 0 {
			return err
		}
		lines := make([]any, len(s.lines))
		for i, l := range s.lines {
			lines[i] = coordsJSON(geom.Densify(l, tol))
		}
		if s.kind == "LineString" {
			return Dyn{geoObj("LineString", lines[0])}
		}
		return Dyn{geoObj("MultiLineString", lines)}
	}})
	def("geo_polygon_densify", &fnDef{min: 1, max: 3, args: []Type{TDynamic, TReal, TBool}, ret: TDynamic, fn: func(a []any) any {
		s, ok := parseShape(a[0])
		if !ok || s.polys == nil {
			return nil
		}
		tol, err := densifyArgs(a, "geo_polygon_densify")
		if tol == 0 {
			return err
		}
		out := make([][][]geom.LonLat, len(s.polys))
		for i, p := range s.polys {
			for _, r := range p {
				// each ring as S2 holds it (a clockwise ring reversed), densified
				if v := geom.Loop(r).Vertex(0); v != r[0].S2() {
					r = geom.ReversedRing(r)
				}
				out[i] = append(out[i], geom.Densify(r, tol))
			}
		}
		return polygonsJSON(out)
	}})
	def("geo_point_buffer", &fnDef{min: 3, max: 4, args: []Type{TReal, TReal, TReal, TReal}, ret: TDynamic,
		partly: "a regular polygon whose vertices lie on the circle (S2's buffer places its own)", fn: func(a []any) any {
			p, ok := argLonLat(a, 0)
			r, okr := toReal(a[2])
			if !ok || !okr || !(r > 0) || math.IsInf(r, 0) {
				return nil
			}
			tol := 10.0
			if len(a) > 3 && a[3] != nil {
				if tol, ok = toReal(a[3]); !ok || math.IsNaN(tol) {
					return nil
				}
			}
			if tol < r*1e-6 {
				return nil
			}
			return Dyn{geoObj("Polygon", []any{coordsJSON(geom.CircleRing(p, r, min(tol, r*0.999)))})}
		}})
	// Functions computed only for invalid input (null), as Kusto returns; valid input
	// needs geometry the local engine does not have, so it is refused.
	guarded := map[string]func(a []any) bool{
		"geo_line_buffer":    func(a []any) bool { return shapesOK(a[:1], "line") && tolOK(a, 1) },
		"geo_polygon_buffer": func(a []any) bool { return shapesOK(a[:1], "polygon") && tolOK(a, 1) },
	}
	for name, valid := range guarded {
		name, valid := name, valid
		def(name, &fnDef{min: 1, max: -1, ret: TDynamic, partly: "only invalid input is answered (null); valid geometry is refused as unsupported", retf: func(a []expr) Type {
			return TDynamic
		}, fn: func(a []any) any {
			if !valid(a) {
				return nil
			}
			return unsupportedError(name + "() of valid input")
		}})
	}
}

// lineCentroid is the length-weighted centroid of the lines' geodesic edges.
func lineCentroid(lines [][]geom.LonLat) any {
	var c s2.Point
	for _, l := range lines {
		for i := 1; i < len(l); i++ {
			a, b := l[i-1].S2(), l[i].S2()
			c = s2.Point{Vector: c.Add(s2.EdgeTrueCentroid(a, b).Vector)}
		}
	}
	if c.Norm() == 0 {
		return nil
	}
	return geoPoint(geom.PointFromS2(s2.Point{Vector: c.Normalize()}))
}

// densifyArgs reads a densify call's tolerance (meters, default 10) and
// preserve_crossing: 0 and nil for an invalid tolerance (a null result), 0 and an
// unsupported error for preserve_crossing.
func densifyArgs(a []any, name string) (float64, any) {
	tol := 10.0
	if len(a) > 1 && a[1] != nil {
		tol, _ = toReal(a[1])
	}
	if tol < 0.1 || tol > 10000 || math.IsNaN(tol) {
		return 0, nil
	}
	if len(a) > 2 && a[2] == true {
		return 0, unsupportedError(name + "() with preserve_crossing")
	}
	return tol, nil
}
