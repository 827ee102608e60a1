package geom

import (
	"math"

	"github.com/golang/geo/s2"
)

// EarthRadius is the Earth's radius in meters as S2 (S2Earth) and so Kusto use it.
const EarthRadius = 6371010.0

// LonLat is a position: longitude then latitude, in degrees (GeoJSON's order).
type LonLat [2]float64

// ValidLonLat reports whether lon and lat are a position on the Earth.
func ValidLonLat(lon, lat float64) bool {
	return lon >= -180 && lon <= 180 && lat >= -90 && lat <= 90 && !math.IsNaN(lon) && !math.IsNaN(lat)
}

// Loop builds an S2 loop from a ring (the last position repeats the first). A ring
// wound clockwise is reversed: Kusto takes the smaller of the two regions.
func Loop(ring []LonLat) *s2.Loop {
	pts := make([]s2.Point, 0, len(ring)-1)
	for _, p := range ring[:len(ring)-1] {
		pts = append(pts, p.S2())
	}
	l := s2.LoopFromPoints(pts)
	if l.Area() > 2*math.Pi {
		l.Invert()
	}
	return l
}

// PolygonOf builds an S2 polygon from GeoJSON rings (shell, then holes).
func PolygonOf(rings [][]LonLat) *s2.Polygon {
	loops := make([]*s2.Loop, len(rings))
	for i, r := range rings {
		loops[i] = Loop(r)
	}
	return s2.PolygonFromLoops(loops)
}

// Distance is the great-circle distance between a and b in meters.
func Distance(a, b LonLat) float64 {
	return float64(a.S2().Distance(b.S2())) * EarthRadius
}

// Densify turns a line's planar edges (straight in longitude and latitude) into
// chains of geodesic edges: each edge is cut into 2^k equal planar parts, the fewest
// for which the geodesic of every part strays at most tol meters from its planar
// midpoint.
func Densify(l []LonLat, tol float64) []LonLat {
	out := []LonLat{l[0]}
	for i := 1; i < len(l); i++ {
		a, b := l[i-1], l[i]
		at := func(f float64) LonLat { return LonLat{a[0] + (b[0]-a[0])*f, a[1] + (b[1]-a[1])*f} }
		n := 1
		for ; n < 1<<20; n *= 2 {
			worst := 0.0
			for j := 0; j < n && worst <= tol; j++ {
				p, q := at(float64(j)/float64(n)), at(float64(j+1)/float64(n))
				m := at((float64(j) + 0.5) / float64(n))
				worst = max(worst, float64(m.S2().Distance(s2.Interpolate(0.5, p.S2(), q.S2())))*EarthRadius)
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
	return ViaS2(out)
}

// ViaS2 is each vertex written back from its S2 point, as Kusto writes the geometries
// S2 returns (their last digits included).
func ViaS2(l []LonLat) []LonLat {
	out := make([]LonLat, len(l))
	for i, p := range l {
		out[i] = PointFromS2(p.S2())
	}
	return out
}

// LineLength is the length of a line in meters, along great circles.
func LineLength(l []LonLat) float64 {
	var d float64
	for i := 1; i < len(l); i++ {
		d += Distance(l[i-1], l[i])
	}
	return d
}

// Overlapping reports whether two polygons of a multipolygon intersect: Kusto then
// measures their union, which the local engine does not compute.
func Overlapping(polys [][][]LonLat) bool {
	if len(polys) < 2 {
		return false
	}
	ps := make([]*s2.Polygon, len(polys))
	for i, p := range polys {
		ps[i] = PolygonOf(p)
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

// ReversedRing is a closed ring walked the other way, from its last distinct vertex:
// a b c d a becomes d c b a d, as S2 inverts a loop.
func ReversedRing(r []LonLat) []LonLat {
	n := len(r) - 1
	out := make([]LonLat, 0, len(r))
	for i := n - 1; i >= 0; i-- {
		out = append(out, r[i])
	}
	return append(out, out[0])
}

// CircleRing is a closed counter-clockwise ring of points at distance r (meters) from
// c: as many as keep each edge within tol of the circle (at most 10,000), from north
// turning west.
func CircleRing(c LonLat, r, tol float64) []LonLat {
	n := int(math.Ceil(math.Pi / math.Acos(1-tol/r)))
	n = min(max(n, 4), 10000)
	d := r / EarthRadius
	lat1, lng1 := c[1]*math.Pi/180, c[0]*math.Pi/180
	out := make([]LonLat, 0, n+1)
	for k := 0; k < n; k++ {
		th := -2 * math.Pi * float64(k) / float64(n) // bearing: north, then west (counter-clockwise)
		lat2 := math.Asin(math.Sin(lat1)*math.Cos(d) + math.Cos(lat1)*math.Sin(d)*math.Cos(th))
		lng2 := lng1 + math.Atan2(math.Sin(th)*math.Sin(d)*math.Cos(lat1), math.Cos(d)-math.Sin(lat1)*math.Sin(lat2))
		lng := math.Remainder(lng2*180/math.Pi, 360)
		out = append(out, LonLat{lng, lat2 * 180 / math.Pi})
	}
	return append(out, out[0])
}

// DistinctPoints reports whether l holds at least two different positions.
func DistinctPoints(l []LonLat) bool {
	for _, p := range l[1:] {
		if p != l[0] {
			return true
		}
	}
	return false
}
