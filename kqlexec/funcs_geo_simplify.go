package kqlexec

import (
	"math"

	"github.com/golang/geo/s1"
	"github.com/golang/geo/s2"
	"github.com/uber/h3-go/v4"

	"github.com/qeval/qeval/kqlexec/internal/geom"
)

// Simplifying lines and polygons on the sphere (geom.SimplifyLine and kin say how), and
// covering polygons with S2 and H3 cells.

// geoSimplifyFuncs defines this file's functions (see library in funcs.go).
func geoSimplifyFuncs(def func(string, *fnDef)) {
	tolerance := func(a []any, i int) (float64, bool) {
		if i >= len(a) || a[i] == nil {
			return 10, true
		}
		t, ok := toReal(a[i])
		return t, ok && t >= 0 && t <= 7_800_000 && !math.IsNaN(t)
	}
	def("geo_line_simplify", &fnDef{min: 1, max: 2, args: []Type{TDynamic, TReal}, ret: TDynamic,
		fn: func(a []any) any {
			s, ok := parseShape(a[0])
			tol, tok := tolerance(a, 1)
			if !ok || !tok || (s.kind != "LineString" && s.kind != "MultiLineString") {
				return nil
			}
			src := s.lines
			if len(src) > 1 {
				// the lines' union is simplified (shared and chained edges once)
				if n := geom.EdgeCount(nil, src); !geom.PairsOK(n, n) {
					return tooLargeError("geo_line_simplify() of lines with more edges than it compares")
				}
				src = geom.UnionLines(src)
			}
			var lines [][]geom.LonLat
			for _, l := range src {
				if out := geom.SimplifyLine(l, tol); out != nil {
					lines = append(lines, geom.ViaS2(out))
				}
			}
			return linesJSON(lines)
		}})
	def("geo_polygon_simplify", &fnDef{min: 1, max: 2, args: []Type{TDynamic, TReal}, ret: TDynamic,
		partly: "a clockwise ring comes back reversed, as S2 holds it; the vertices kept may differ from S2's simplification", fn: func(a []any) any {
			s, ok := parseShape(a[0])
			tol, tok := tolerance(a, 1)
			if !ok || !tok || s.polys == nil {
				return nil
			}
			return simplifiedPolygons(s.polys, tol)
		}})
	def("geo_simplify_polygons_array", &fnDef{min: 1, max: 2, args: []Type{TDynamic, TReal}, ret: TDynamic,
		fn: func(a []any) any {
			tol, tok := tolerance(a, 1)
			xs, ok := arr(a[0])
			if !ok || !tok || len(xs) == 0 {
				return nil
			}
			var polys [][][]geom.LonLat
			for _, x := range xs {
				s, ok := parseShape(Dyn{x})
				if !ok || s.polys == nil {
					return nil
				}
				polys = append(polys, s.polys...)
			}
			var kept [][][]geom.LonLat
			for _, p := range polys {
				if q := geom.SimplifyPolygon(p, tol); q != nil {
					kept = append(kept, q)
				}
			}
			if geom.Overlapping(kept) {
				if n := geom.EdgeCount(kept, nil); !geom.PairsOK(n, n) {
					return tooLargeError("geo_simplify_polygons_array() of overlapping polygons with more edges than it compares")
				}
				kept = geom.UnionPolygons(kept) // polygons that still overlap are returned as their union
			}
			return polygonsJSON(kept)
		}})
	def("geo_union_lines_array", &fnDef{min: 1, max: 1, args: []Type{TDynamic}, ret: TDynamic,
		fn: func(a []any) any {
			xs, ok := arr(a[0])
			if !ok || len(xs) == 0 {
				return nil
			}
			var lines [][]geom.LonLat
			for _, x := range xs {
				s, ok := parseShape(Dyn{x})
				if !ok || (s.kind != "LineString" && s.kind != "MultiLineString") {
					return nil
				}
				lines = append(lines, s.lines...)
			}
			if n := geom.EdgeCount(nil, lines); !geom.PairsOK(n, n) {
				return tooLargeError("geo_union_lines_array() of lines with more edges than it compares")
			}
			return linesJSON(geom.UnionLines(lines))
		}})
	// coverings: the shape, a level (resolution) with its default and its largest, a
	// radius (a buffer around the shape; cover refuses one it cannot draw)
	covering := func(name string, lines bool, def0, top int64, cover func(s *geoShape, level int, radius float64) any) *fnDef {
		d := &fnDef{min: 1, max: 3, args: []Type{TDynamic, TLong, TReal}, ret: TDynamic, fn: func(a []any) any {
			s, ok := parseShape(a[0])
			if !ok || (lines && s.kind != "LineString" && s.kind != "MultiLineString") || (!lines && s.polys == nil) {
				return nil
			}
			level := long(a, 1, def0)
			if level < 0 || level > top {
				return nil
			}
			r := 0.0
			if len(a) > 2 && a[2] != nil {
				r, ok = toReal(a[2])
				if !ok || r < 0 || math.IsNaN(r) || math.IsInf(r, 0) {
					return nil
				}
			}
			return cover(s, int(level), r)
		}}
		return d
	}
	def("geo_line_to_s2cells", covering("geo_line_to_s2cells", true, 11, 30, s2Covering))
	h3Cells := covering("geo_polygon_to_h3cells", false, 6, 15, func(s *geoShape, level int, radius float64) any {
		cells := h3Covering(s.polys, level)
		if radius == 0 {
			return cells
		}
		return h3Buffered(cells, s.polys, level, radius)
	})
	h3Cells.partly = "the cells of uber/h3-go v4 in its order; Kusto's array may list them in another order"
	def("geo_polygon_to_h3cells", h3Cells)
	def("geo_polygon_to_s2cells", covering("geo_polygon_to_s2cells", false, 11, 30, s2Covering))
}

func simplifiedPolygons(polys [][][]geom.LonLat, tol float64) any {
	var kept [][][]geom.LonLat
	for _, p := range polys {
		if q := geom.SimplifyPolygon(p, tol); q != nil {
			for i, r := range q {
				q[i] = geom.ViaS2(r)
			}
			kept = append(kept, q)
		}
	}
	return polygonsJSON(kept)
}

// linesJSON is a LineString (one) or MultiLineString (several); null for none.
func linesJSON(lines [][]geom.LonLat) any {
	items := make([]any, len(lines))
	for i, l := range lines {
		items[i] = coordsJSON(l)
	}
	return oneOrMany("LineString", "MultiLineString", items)
}

// polygonsJSON is a Polygon (one) or MultiPolygon (several); null for none.
func polygonsJSON(polys [][][]geom.LonLat) any {
	items := make([]any, len(polys))
	for i, p := range polys {
		rings := make([]any, len(p))
		for j, r := range p {
			rings[j] = coordsJSON(r)
		}
		items[i] = rings
	}
	return oneOrMany("Polygon", "MultiPolygon", items)
}

// oneOrMany is the geometry of one item (its coordinates), the multi-geometry of
// several, or null for none.
func oneOrMany(one, many string, items []any) any {
	switch len(items) {
	case 0:
		return nil
	case 1:
		return Dyn{geoObj(one, items[0])}
	}
	return Dyn{geoObj(many, items)}
}

// h3Covering is the H3 cells of one resolution whose centres lie in the polygons (edges
// straight in longitude and latitude, as Kusto and H3 take them), in H3's order; null
// past maxH3Cells. The count is bounded from the area first (H3 would allocate for
// the polygon's bounding box), and a polygon whose bounding box is far larger than its
// area at a fine resolution is refused rather than enumerated.
func h3Covering(polys [][][]geom.LonLat, res int) any {
	cellKm2 := h3.HexagonAreaAvgKm2(res)
	var out []any
	seen := map[h3.Cell]bool{}
	for _, p := range polys {
		km2 := geom.PolygonOf(p).Area() * geom.EarthRadius * geom.EarthRadius / 1e6
		if km2/cellKm2 > 2*geom.MaxH3Cells {
			return nil
		}
		minLon, maxLon, minLat, maxLat := 180.0, -180.0, 90.0, -90.0
		for _, q := range p[0] {
			minLon, maxLon, minLat, maxLat = min(minLon, q[0]), max(maxLon, q[0]), min(minLat, q[1]), max(maxLat, q[1])
		}
		box := (maxLon - minLon) * (maxLat - minLat) * 111.32 * 111.32 // km², an overestimate away from the equator
		if box/cellKm2 > 64*geom.MaxH3Cells {
			return unsupportedError("geo_polygon_to_h3cells() of a polygon this thin at this resolution")
		}
		gp := h3.GeoPolygon{GeoLoop: geom.H3Loop(p[0])}
		for _, h := range p[1:] {
			gp.Holes = append(gp.Holes, geom.H3Loop(h))
		}
		for _, c := range h3.PolygonToCells(gp, res) {
			if !seen[c] {
				seen[c] = true
				out = append(out, c.String())
			}
		}
		if len(out) > geom.MaxH3Cells {
			return nil
		}
	}
	return Dyn{nonNil(out)}
}

// s2Covering is the tokens of the S2 cells of one level that cover the polygons, in
// cell order; null past maxS2Cells (Kusto's limit), decided from the area first so that
// a fine level over a large polygon is never enumerated.
func s2Covering(shape *geoShape, level int, radius float64) any {
	var regions []s2.Region
	var edges [][2]s2.Point
	var area float64
	for _, p := range shape.polys {
		poly := geom.PolygonOf(p)
		regions = append(regions, poly)
		area += poly.Area()
		for _, ring := range p {
			for i := 1; i < len(ring); i++ {
				edges = append(edges, [2]s2.Point{ring[i-1].S2(), ring[i].S2()})
			}
		}
	}
	if shape.polys == nil {
		for _, l := range shape.lines {
			pts := make(s2.Polyline, len(l))
			for i, q := range l {
				pts[i] = q.S2()
			}
			regions = append(regions, &pts)
			for i := 1; i < len(pts); i++ {
				edges = append(edges, [2]s2.Point{pts[i-1], pts[i]})
			}
		}
	}
	if area/s2.MaxAreaMetric.Value(level) > geom.MaxS2Cells {
		return nil
	}
	rc := &s2.RegionCoverer{MinLevel: level, MaxLevel: level, LevelMod: 1, MaxCells: geom.MaxS2Cells}
	var union s2.CellUnion
	for _, r := range regions {
		union = append(union, rc.Covering(r)...)
	}
	union.Normalize()
	union.Denormalize(level, 1)
	if radius > 0 {
		// the buffer: every cell within radius of the shape, reached from the cells
		// that touch it through neighbours that are themselves within radius
		limit := s1.ChordAngleFromAngle(s1.Angle(radius / geom.EarthRadius))
		checked := 0
		near := func(id s2.CellID) bool {
			checked += len(edges)
			c := s2.CellFromCellID(id)
			for _, e := range edges {
				if c.DistanceToEdge(e[0], e[1]) <= limit {
					return true
				}
			}
			return false
		}
		seen := map[s2.CellID]bool{}
		queue := append([]s2.CellID(nil), union...)
		for _, id := range queue {
			seen[id] = true
		}
		for len(queue) > 0 {
			id := queue[len(queue)-1]
			queue = queue[:len(queue)-1]
			for _, n := range id.AllNeighbors(level) {
				if seen[n] {
					continue
				}
				seen[n] = true
				if checked > geom.MaxEdgePairs {
					return tooLargeError("an S2 covering with a radius of a shape with this many edges at this level")
				}
				if near(n) {
					union = append(union, n)
					queue = append(queue, n)
					if len(union) > geom.MaxS2Cells {
						return nil
					}
				}
			}
		}
		union.Normalize()
		union.Denormalize(level, 1)
	}
	if len(union) > geom.MaxS2Cells {
		return nil
	}
	out := make([]any, len(union))
	for i, c := range union {
		out[i] = c.ToToken()
	}
	return Dyn{out}
}

// h3Buffered widens an H3 covering by a radius (meters), as Kusto converts the
// polygon enlarged by it: every cell whose center lies within the radius of the
// polygons, reached from the covering (or the cell of the first vertex) through
// neighbours that are themselves within it.
func h3Buffered(covering any, polys [][][]geom.LonLat, res int, radius float64) any {
	d, ok := covering.(Dyn)
	if !ok {
		return covering // null or an error
	}
	ps, rings := geom.PolygonEdgesOf(polys)
	near := func(c h3.Cell) bool {
		ll := c.LatLng()
		_, dist := geom.ClosestOnPolygons(geom.LonLat{ll.Lng, ll.Lat}.S2(), ps, rings)
		return dist <= radius
	}
	seen := map[h3.Cell]bool{}
	var out []any
	var queue []h3.Cell
	for _, x := range d.V.([]any) {
		c, _ := h3Cell(x)
		seen[c] = true
		out = append(out, x)
		queue = append(queue, c)
	}
	if len(queue) == 0 {
		first := polys[0][0][0]
		c := h3.LatLngToCell(h3.NewLatLng(first[1], first[0]), res)
		seen[c] = true
		queue = append(queue, c)
		if near(c) {
			out = append(out, c.String())
		}
	}
	edges := geom.EdgeCount(polys, nil)
	for checked := 0; len(queue) > 0; {
		c := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		for _, n := range c.GridDisk(1) {
			if seen[n] {
				continue
			}
			seen[n] = true
			if checked += edges; checked > geom.MaxEdgePairs {
				return tooLargeError("an H3 covering with a radius of a polygon with this many edges at this resolution")
			}
			if near(n) {
				out = append(out, n.String())
				queue = append(queue, n)
				if len(out) > geom.MaxH3Cells {
					return nil
				}
			}
		}
	}
	return Dyn{out}
}
