package geom_test

import (
	"math"
	"testing"

	"github.com/qeval/qeval/kqlexec/internal/geom"
)

func TestDistance(t *testing.T) {
	// one degree of latitude on the S2 Earth: 6371010 m × π/180
	want := 6371010.0 * math.Pi / 180
	if got := geom.Distance(geom.LonLat{0, 0}, geom.LonLat{0, 1}); math.Abs(got-want) > 1e-6 {
		t.Errorf("Distance(0 0, 0 1)=%v, want %v", got, want)
	}
	if got := geom.LineLength([]geom.LonLat{{0, 0}, {0, 1}, {0, 2}}); math.Abs(got-2*want) > 1e-6 {
		t.Errorf("LineLength=%v, want %v", got, 2*want)
	}
}

func TestGeohash(t *testing.T) {
	// the example of the geohash article: 42.6 N, 5.6 W is ezs42
	if got := geom.GeohashEncode(geom.LonLat{-5.6, 42.6}, 5); got != "ezs42" {
		t.Errorf("GeohashEncode=%q, want ezs42", got)
	}
	w, s, e, n, ok := geom.GeohashBox("ezs42")
	if !ok || !(w <= -5.6 && -5.6 <= e && s <= 42.6 && 42.6 <= n) {
		t.Errorf("GeohashBox(ezs42)=%v %v %v %v %v, want a cell around 42.6 N 5.6 W", w, s, e, n, ok)
	}
}

func TestS2RoundTrip(t *testing.T) {
	for _, p := range []geom.LonLat{{0, 0}, {-73.985, 40.758}, {179.5, -89.5}} {
		q := geom.PointFromS2(p.S2())
		if math.Abs(q[0]-p[0]) > 1e-9 || math.Abs(q[1]-p[1]) > 1e-9 {
			t.Errorf("PointFromS2(%v.S2())=%v", p, q)
		}
	}
}

// TestPolygonBooleanMergesNearVertices: two unit squares sharing an edge, the second
// square's copy of the shared vertices a rounding (1e-13 degrees) off the first's, as
// when one of them was read back from an earlier union. The union is one square of
// six vertices (the shared edge gone).
func TestPolygonBooleanMergesNearVertices(t *testing.T) {
	const d = 1e-13
	a := [][][]geom.LonLat{{{{0, 0}, {1, 0}, {1, 1}, {0, 1}, {0, 0}}}}
	b := [][][]geom.LonLat{{{{1 + d, 0}, {2, 0}, {2, 1}, {1 - d, 1}, {1 + d, 0}}}}
	u, _, _ := geom.PolygonBoolean([][][][]geom.LonLat{a, b}, true)
	if len(u) != 1 || len(u[0]) != 1 || len(u[0][0]) != 7 {
		t.Fatalf("union = %v, want one ring of six vertices", u)
	}
}

// TestPolygonBooleanRingOrder: S2's builder ends an output loop with its edge that
// came last in the input (S2Builder::Graph::CanonicalizeLoopOrder). A square
// whose first vertex (2, 0) lies inside a triangle, the triangle first: the square's
// last edge, (0, 0)→(2, 0), is cut where the triangle's west edge (x = 1) crosses it,
// so the ring ends with (0, 0)→(1, 0) and starts at (1, 0).
func TestPolygonBooleanRingOrder(t *testing.T) {
	tri := [][][]geom.LonLat{{{{1, -1}, {3, 0.5}, {1, 1}, {1, -1}}}}
	sq := [][][]geom.LonLat{{{{2, 0}, {2, 2}, {0, 2}, {0, 0}, {2, 0}}}}
	u, _, _ := geom.PolygonBoolean([][][][]geom.LonLat{tri, sq}, true)
	if len(u) != 1 || len(u[0]) != 1 {
		t.Fatalf("union = %v, want one ring", u)
	}
	r := u[0][0]
	if len(r) != 8 || math.Abs(r[0][0]-1) > 1e-9 || math.Abs(r[0][1]) > 1e-9 || math.Abs(r[len(r)-2][0]) > 1e-9 || math.Abs(r[len(r)-2][1]) > 1e-9 {
		t.Errorf("ring = %v, want 7 vertices from (1, 0), the last (0, 0)", r)
	}
}
