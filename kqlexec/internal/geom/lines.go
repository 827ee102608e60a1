package geom

import (
	"math"

	"github.com/golang/geo/s2"
)

// ClosestOnLines is the point of the lines nearest to p, and its distance in meters.
func ClosestOnLines(p s2.Point, lines []*s2.Polyline) (s2.Point, float64) {
	best, bestD := s2.Point{}, math.Inf(1)
	for _, l := range lines {
		q, _ := l.Project(p)
		if d := float64(p.Distance(q)) * EarthRadius; d < bestD {
			best, bestD = q, d
		}
	}
	return best, bestD
}

// PolygonEdgesOf is polygonEdges of polygons already read.
func PolygonEdgesOf(ps [][][]LonLat) (polys []*s2.Polygon, rings []*s2.Polyline) {
	for _, p := range ps {
		polys = append(polys, PolygonOf(p))
		for _, r := range p {
			pts := make([]s2.Point, len(r))
			for i, q := range r {
				pts[i] = q.S2()
			}
			pl := s2.Polyline(pts)
			rings = append(rings, &pl)
		}
	}
	return polys, rings
}

// ClosestOnPolygons is the point of the polygons nearest to p (p itself inside one)
// and its distance in meters.
func ClosestOnPolygons(p s2.Point, polys []*s2.Polygon, rings []*s2.Polyline) (s2.Point, float64) {
	for _, poly := range polys {
		if poly.ContainsPoint(p) {
			return p, 0
		}
	}
	return ClosestOnLines(p, rings)
}
