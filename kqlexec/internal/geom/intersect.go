package geom

import (
	"github.com/golang/geo/s1"
	"github.com/golang/geo/s2"
)

// OnEdge is how near (radians) a point must be to an edge to lie on it: a few
// millimetres, the rounding of coordinates read back from S2 points.
const OnEdge = 1e-9

// SharedStretch is the part two edges share when they lie on one great circle: the
// stretch between the two of their ends that lie on both, in a1→a2's direction (one
// position twice when they only touch). ok is false when they are not on one circle
// or share nothing.
func SharedStretch(a1, a2, b1, b2 LonLat) ([2]LonLat, bool) {
	pa1, pa2, pb1, pb2 := a1.S2(), a2.S2(), b1.S2(), b2.S2()
	n := pa1.PointCross(pa2)
	if n.Norm() == 0 || abs(n.Normalize().Dot(pb1.Vector)) > OnEdge || abs(n.Normalize().Dot(pb2.Vector)) > OnEdge {
		return [2]LonLat{}, false
	}
	on := func(p s2.Point, x, y s2.Point) bool { return s2.DistanceFromSegment(p, x, y) <= s1.Angle(OnEdge) }
	var ends []LonLat
	for _, c := range []struct {
		p  LonLat
		pt s2.Point
	}{{a1, pa1}, {a2, pa2}, {b1, pb1}, {b2, pb2}} {
		if on(c.pt, pa1, pa2) && on(c.pt, pb1, pb2) {
			dup := false
			for _, e := range ends {
				dup = dup || e.S2().Distance(c.pt) <= s1.Angle(OnEdge)
			}
			if !dup {
				ends = append(ends, c.p)
			}
		}
	}
	switch len(ends) {
	case 0:
		return [2]LonLat{}, false
	case 1:
		return [2]LonLat{ends[0], ends[0]}, true
	}
	// the two ends farthest apart, ordered along a1→a2
	x, y := ends[0], ends[1]
	for i := range ends {
		for j := i + 1; j < len(ends); j++ {
			if ends[i].S2().Distance(ends[j].S2()) > x.S2().Distance(y.S2()) {
				x, y = ends[i], ends[j]
			}
		}
	}
	if pa1.Distance(x.S2()) > pa1.Distance(y.S2()) {
		x, y = y, x
	}
	return [2]LonLat{x, y}, true
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}
