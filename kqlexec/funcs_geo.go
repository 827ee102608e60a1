package kqlexec

import (
	"math"

	"github.com/golang/geo/s2"
)

// Geospatial functions. Points are (longitude, latitude) in degrees on WGS-84, shapes
// are GeoJSON. Spherical geometry uses S2 (github.com/golang/geo), as Kusto's own
// geospatial functions do; H3 cells use Uber's H3 library (funcs_cells.go).

// earthRadius is the Earth's radius in meters as S2 (S2Earth) and so Kusto use it.
const earthRadius = 6371010.0

type lonLat [2]float64

func validLonLat(lon, lat float64) bool {
	return lon >= -180 && lon <= 180 && lat >= -90 && lat <= 90 && !math.IsNaN(lon) && !math.IsNaN(lat)
}

func argLonLat(a []any, i int) (lonLat, bool) {
	if i+1 >= len(a) || a[i] == nil || a[i+1] == nil {
		return lonLat{}, false
	}
	lon, ok1 := toReal(a[i])
	lat, ok2 := toReal(a[i+1])
	if !ok1 || !ok2 || !validLonLat(lon, lat) {
		return lonLat{}, false
	}
	return lonLat{lon, lat}, true
}

func geoPoint(p lonLat) Dyn {
	return Dyn{geoObj("Point", []any{toJSONValue(p[0]), toJSONValue(p[1])})}
}

func coordsJSON(ps []lonLat) []any {
	out := make([]any, len(ps))
	for i, p := range ps {
		out[i] = []any{toJSONValue(p[0]), toJSONValue(p[1])}
	}
	return out
}

// loop builds an S2 loop from a ring (the last position repeats the first). A ring
// wound clockwise is reversed: Kusto takes the smaller of the two regions.
func loop(ring []lonLat) *s2.Loop {
	pts := make([]s2.Point, 0, len(ring)-1)
	for _, p := range ring[:len(ring)-1] {
		pts = append(pts, p.s2())
	}
	l := s2.LoopFromPoints(pts)
	if l.Area() > 2*math.Pi {
		l.Invert()
	}
	return l
}

func polygonOf(rings [][]lonLat) *s2.Polygon {
	loops := make([]*s2.Loop, len(rings))
	for i, r := range rings {
		loops[i] = loop(r)
	}
	return s2.PolygonFromLoops(loops)
}

func distance(a, b lonLat) float64 {
	return float64(a.s2().Distance(b.s2())) * earthRadius
}

// geoFuncs defines this file's functions (see library in funcs.go).
func geoFuncs(def func(string, *fnDef)) {
	def("geo_distance_2points", fixed(TReal, func(a []any) any {
		p, ok1 := argLonLat(a, 0)
		q, ok2 := argLonLat(a, 2)
		if !ok1 || !ok2 {
			return nil
		}
		return distance(p, q)
	}, TReal, TReal, TReal, TReal))
	def("geo_point_in_circle", fixed(TBool, func(a []any) any {
		p, ok1 := argLonLat(a, 0)
		c, ok2 := argLonLat(a, 2)
		r, ok3 := toReal(a[4])
		if !ok1 || !ok2 || !ok3 || r < 0 || a[4] == nil {
			return nil
		}
		return distance(p, c) <= r
	}, TReal, TReal, TReal, TReal, TReal))
	def("geo_point_in_polygon", fixed(TBool, func(a []any) any {
		p, ok1 := argLonLat(a, 0)
		s, ok2 := parseShape(a[2])
		if !ok1 || !ok2 || s.polys == nil {
			return nil
		}
		pt := p.s2()
		for _, rings := range s.polys {
			if polygonOf(rings).ContainsPoint(pt) {
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
		if overlapping(s.polys) {
			if n := edgeCount(s.polys, nil); !pairsOK(n, n) {
				return tooLargeError("geo_polygon_area() of overlapping polygons with more edges than it compares")
			}
			area, _, ok := unionMeasures(s.polys)
			if !ok {
				// polygons with holes, or two not convex: the area of their drawn union
				area = 0
				for _, rings := range unionPolygons(s.polys) {
					area += polygonOf(rings).Area()
				}
			}
			return area * earthRadius * earthRadius
		}
		var area float64
		for _, rings := range s.polys {
			area += polygonOf(rings).Area()
		}
		return area * earthRadius * earthRadius
	}, TDynamic))
	def("geo_polygon_perimeter", fixed(TReal, func(a []any) any {
		s, ok := parseShape(a[0])
		if !ok || s.polys == nil {
			return nil
		}
		if overlapping(s.polys) {
			if n := edgeCount(s.polys, nil); !pairsOK(n, n) {
				return tooLargeError("geo_polygon_perimeter() of overlapping polygons with more edges than it compares")
			}
			return unionPerimeter(s.polys)
		}
		var per float64
		for _, rings := range s.polys {
			for _, r := range rings {
				per += lineLength(r)
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
			l += lineLength(line)
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
		if overlapping(s.polys) {
			if n := edgeCount(s.polys, nil); !pairsOK(n, n) {
				return tooLargeError("geo_polygon_centroid() of overlapping polygons with more edges than it compares")
			}
			_, v, ok := unionMeasures(s.polys)
			if !ok {
				for _, rings := range unionPolygons(s.polys) {
					v = v.Add(polygonOf(rings).Centroid().Vector)
				}
			}
			c = s2.Point{Vector: v}
		} else {
			for _, rings := range s.polys {
				c = s2.Point{Vector: c.Add(polygonOf(rings).Centroid().Vector)}
			}
		}
		if c.Norm() == 0 {
			return nil
		}
		return geoPoint(pointFromS2(s2.Point{Vector: c.Normalize()}))
	}, TDynamic))
	def("geo_angle", fixed(TReal, func(a []any) any {
		p1, ok1 := argLonLat(a, 0)
		p2, ok2 := argLonLat(a, 2)
		p3, ok3 := argLonLat(a, 4)
		if !ok1 || !ok2 || !ok3 || p1 == p2 || p2 == p3 {
			return nil
		}
		ang := float64(s2.TurnAngle(p1.s2(), p2.s2(), p3.s2()))
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
				if s2.CrossingSign(x.lines[0][i-1].s2(), x.lines[0][i].s2(), y.lines[0][j-1].s2(), y.lines[0][j].s2()) != s2.DoNotCross ||
					s2.VertexCrossing(x.lines[0][i-1].s2(), x.lines[0][i].s2(), y.lines[0][j-1].s2(), y.lines[0][j].s2()) {
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
			poly := polygonOf(p)
			for _, l := range x.lines {
				for i, v := range l {
					if poly.ContainsPoint(v.s2()) {
						return true
					}
					if i == 0 {
						continue
					}
					for _, ring := range p {
						for j := 1; j < len(ring); j++ {
							if s2.CrossingSign(l[i-1].s2(), v.s2(), ring[j-1].s2(), ring[j].s2()) != s2.DoNotCross ||
								s2.VertexCrossing(l[i-1].s2(), v.s2(), ring[j-1].s2(), ring[j].s2()) {
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
				if polygonOf(p).Intersects(polygonOf(q)) {
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
			lines[i] = coordsJSON(densify(l, tol))
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
		out := make([][][]lonLat, len(s.polys))
		for i, p := range s.polys {
			for _, r := range p {
				// each ring as S2 holds it (a clockwise ring reversed), densified
				if v := loop(r).Vertex(0); v != r[0].s2() {
					r = reversedRing(r)
				}
				out[i] = append(out[i], densify(r, tol))
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
			return Dyn{geoObj("Polygon", []any{coordsJSON(circleRing(p, r, min(tol, r*0.999)))})}
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

// densify turns a line's planar edges (straight in longitude and latitude) into
// chains of geodesic edges: each edge is cut into 2^k equal planar parts, the fewest
// for which the geodesic of every part strays at most tol meters from its planar
// midpoint.
func densify(l []lonLat, tol float64) []lonLat {
	out := []lonLat{l[0]}
	for i := 1; i < len(l); i++ {
		a, b := l[i-1], l[i]
		at := func(f float64) lonLat { return lonLat{a[0] + (b[0]-a[0])*f, a[1] + (b[1]-a[1])*f} }
		n := 1
		for ; n < 1<<20; n *= 2 {
			worst := 0.0
			for j := 0; j < n && worst <= tol; j++ {
				p, q := at(float64(j)/float64(n)), at(float64(j+1)/float64(n))
				m := at((float64(j) + 0.5) / float64(n))
				worst = max(worst, float64(m.s2().Distance(s2.Interpolate(0.5, p.s2(), q.s2())))*earthRadius)
			}
			if worst <= tol {
				break
			}
		}
		for j := 1; j < n; j++ {
			out = append(out, at(float64(j)/float64(n)))
		}
		out = append(out, b)
	}
	return viaS2(out)
}

// viaS2 is each vertex written back from its S2 point, as Kusto writes the geometries
// S2 returns (their last digits included).
func viaS2(l []lonLat) []lonLat {
	out := make([]lonLat, len(l))
	for i, p := range l {
		out[i] = pointFromS2(p.s2())
	}
	return out
}

func lineLength(l []lonLat) float64 {
	var d float64
	for i := 1; i < len(l); i++ {
		d += distance(l[i-1], l[i])
	}
	return d
}

// lineCentroid is the length-weighted centroid of the lines' geodesic edges.
func lineCentroid(lines [][]lonLat) any {
	var c s2.Point
	for _, l := range lines {
		for i := 1; i < len(l); i++ {
			a, b := l[i-1].s2(), l[i].s2()
			c = s2.Point{Vector: c.Add(s2.EdgeTrueCentroid(a, b).Vector)}
		}
	}
	if c.Norm() == 0 {
		return nil
	}
	return geoPoint(pointFromS2(s2.Point{Vector: c.Normalize()}))
}

// overlapping reports whether two polygons of a multipolygon intersect: Kusto then
// measures their union, which the local engine does not compute.
func overlapping(polys [][][]lonLat) bool {
	if len(polys) < 2 {
		return false
	}
	ps := make([]*s2.Polygon, len(polys))
	for i, p := range polys {
		ps[i] = polygonOf(p)
	}
	for i := range ps {
		for j := i + 1; j < len(ps); j++ {
			if ps[i].Intersects(ps[j]) {
				return true
			}
		}
	}
	return false
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

// reversedRing is a closed ring walked the other way, from its last distinct vertex:
// a b c d a becomes d c b a d, as S2 inverts a loop.
func reversedRing(r []lonLat) []lonLat {
	n := len(r) - 1
	out := make([]lonLat, 0, len(r))
	for i := n - 1; i >= 0; i-- {
		out = append(out, r[i])
	}
	return append(out, out[0])
}

// circleRing is a closed counter-clockwise ring of points at distance r (meters) from
// c: as many as keep each edge within tol of the circle (at most 10,000), from north
// turning west.
func circleRing(c lonLat, r, tol float64) []lonLat {
	n := int(math.Ceil(math.Pi / math.Acos(1-tol/r)))
	n = min(max(n, 4), 10000)
	d := r / earthRadius
	lat1, lng1 := c[1]*math.Pi/180, c[0]*math.Pi/180
	out := make([]lonLat, 0, n+1)
	for k := 0; k < n; k++ {
		th := -2 * math.Pi * float64(k) / float64(n) // bearing: north, then west (counter-clockwise)
		lat2 := math.Asin(math.Sin(lat1)*math.Cos(d) + math.Cos(lat1)*math.Sin(d)*math.Cos(th))
		lng2 := lng1 + math.Atan2(math.Sin(th)*math.Sin(d)*math.Cos(lat1), math.Cos(d)-math.Sin(lat1)*math.Sin(lat2))
		lng := math.Remainder(lng2*180/math.Pi, 360)
		out = append(out, lonLat{lng, lat2 * 180 / math.Pi})
	}
	return append(out, out[0])
}
