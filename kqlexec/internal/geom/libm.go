package geom

/*
#cgo LDFLAGS: -lm
#include <math.h>
*/
import "C"

import (
	"math"

	"github.com/golang/geo/r3"
	"github.com/golang/geo/s2"
)

// Degrees and S2 points convert with the C library's sin, cos and atan2, not Go's:
// Kusto's geometry runs on .NET, whose Math functions call the C runtime, and a
// coordinate read back from a point differs in its last digit between the two (Kusto
// prints 40.76422600000001 for 40.764226 on a densified polygon; Go's functions give
// other digits on other vertices). The formulas are S2's: radians = degrees × (π/180),
// degrees = radians × (180/π).

// S2 is the point on the unit sphere at p.
func (p LonLat) S2() s2.Point {
	phi, theta := p[1]*(math.Pi/180), p[0]*(math.Pi/180)
	cosphi := float64(C.cos(C.double(phi)))
	return s2.Point{Vector: r3.Vector{
		X: float64(C.cos(C.double(theta))) * cosphi,
		Y: float64(C.sin(C.double(theta))) * cosphi,
		Z: float64(C.sin(C.double(phi))),
	}}
}

// PointFromS2 is the longitude and latitude of a point on the unit sphere.
func PointFromS2(p s2.Point) LonLat {
	lat := float64(C.atan2(C.double(p.Z), C.double(math.Sqrt(p.X*p.X+p.Y*p.Y))))
	lng := float64(C.atan2(C.double(p.Y), C.double(p.X)))
	return LonLat{lng * (180 / math.Pi), lat * (180 / math.Pi)}
}
