package kqlexec

import (
	"encoding/json"
	"math"
	"strings"

	"github.com/qeval/qeval/kqlexec/internal/geom"
)

// GeoJSON and WKT shapes: reading and validating them.

// geoShape is a parsed GeoJSON geometry.
type geoShape struct {
	kind  string            // Point, LineString, Polygon, MultiPoint, MultiLineString, MultiPolygon
	lines [][]geom.LonLat   // LineString (one) / MultiLineString / MultiPoint (each point a line of one)
	polys [][][]geom.LonLat // Polygon (one) / MultiPolygon: rings, the first the shell
}

func readPos(v any) (geom.LonLat, bool) {
	xs, ok := v.([]any)
	if !ok || len(xs) < 2 {
		return geom.LonLat{}, false
	}
	lon, ok1 := toReal(Dyn{xs[0]})
	lat, ok2 := toReal(Dyn{xs[1]})
	if !ok1 || !ok2 || !geom.ValidLonLat(lon, lat) {
		return geom.LonLat{}, false
	}
	return geom.LonLat{lon, lat}, true
}

func readLine(v any, min int) ([]geom.LonLat, bool) {
	xs, ok := v.([]any)
	if !ok || len(xs) < min {
		return nil, false
	}
	out := make([]geom.LonLat, len(xs))
	for i, x := range xs {
		p, ok := readPos(x)
		if !ok {
			return nil, false
		}
		out[i] = p
	}
	return out, true
}

// readRing reads a closed ring of at least four positions with at least three
// distinct vertices.
func readRing(v any) ([]geom.LonLat, bool) {
	r, ok := readLine(v, 4)
	if !ok || r[0] != r[len(r)-1] {
		return nil, false
	}
	distinct := map[geom.LonLat]bool{}
	for _, p := range r[:len(r)-1] {
		distinct[p] = true
	}
	return r, len(distinct) >= 3
}

func readPolygon(v any) ([][]geom.LonLat, bool) {
	xs, ok := v.([]any)
	if !ok || len(xs) == 0 {
		return nil, false
	}
	var rings [][]geom.LonLat
	for _, x := range xs {
		r, ok := readRing(x)
		if !ok {
			return nil, false
		}
		rings = append(rings, r)
	}
	return rings, true
}

// parseShape reads a GeoJSON geometry (a dynamic bag, or its JSON text).
func parseShape(v any) (*geoShape, bool) {
	var m map[string]any
	switch x := v.(type) {
	case Dyn:
		switch y := x.V.(type) {
		case map[string]any:
			m = y
		case string:
			m, _ = parseJSON(y).(map[string]any)
		}
	case string:
		m, _ = parseJSON(x).(map[string]any)
	}
	if m == nil {
		return nil, false
	}
	kind, _ := m["type"].(string)
	c := m["coordinates"]
	s := &geoShape{kind: kind}
	switch kind {
	case "Point":
		p, ok := readPos(c)
		if !ok {
			return nil, false
		}
		s.lines = [][]geom.LonLat{{p}}
	case "MultiPoint":
		l, ok := readLine(c, 1)
		if !ok {
			return nil, false
		}
		for _, p := range l {
			s.lines = append(s.lines, []geom.LonLat{p})
		}
	case "LineString":
		l, ok := readLine(c, 2)
		if !ok || !geom.DistinctPoints(l) {
			return nil, false
		}
		s.lines = [][]geom.LonLat{l}
	case "MultiLineString":
		xs, ok := c.([]any)
		if !ok || len(xs) == 0 {
			return nil, false
		}
		for _, x := range xs {
			l, ok := readLine(x, 2)
			if !ok || !geom.DistinctPoints(l) {
				return nil, false
			}
			s.lines = append(s.lines, l)
		}
	case "Polygon":
		p, ok := readPolygon(c)
		if !ok {
			return nil, false
		}
		s.polys = [][][]geom.LonLat{p}
	case "MultiPolygon":
		xs, ok := c.([]any)
		if !ok || len(xs) == 0 {
			return nil, false
		}
		for _, x := range xs {
			p, ok := readPolygon(x)
			if !ok {
				return nil, false
			}
			s.polys = append(s.polys, p)
		}
	default:
		return nil, false
	}
	return s, true
}

func shapesOK(a []any, kinds ...string) bool {
	if len(a) < len(kinds) {
		return false
	}
	for i, k := range kinds {
		s, ok := parseShape(a[i])
		if !ok {
			return false
		}
		switch k {
		case "line":
			if s.kind != "LineString" && s.kind != "MultiLineString" {
				return false
			}
		case "polygon":
			if s.polys == nil {
				return false
			}
		}
	}
	return true
}

func tolOK(a []any, i int) bool {
	if i >= len(a) || a[i] == nil {
		return true
	}
	f, ok := toReal(a[i])
	return ok && f > 0 && !math.IsInf(f, 0)
}

// fromWKT reads well-known text: POINT, LINESTRING, POLYGON and their MULTI forms.
func fromWKT(s string) any {
	s = strings.TrimSpace(s)
	i := strings.IndexByte(s, '(')
	if i < 0 {
		return nil
	}
	kinds := map[string]string{"POINT": "Point", "LINESTRING": "LineString", "POLYGON": "Polygon",
		"MULTIPOINT": "MultiPoint", "MULTILINESTRING": "MultiLineString", "MULTIPOLYGON": "MultiPolygon"}
	head := strings.ToUpper(strings.TrimSpace(s[:i]))
	if head == "GEOMETRYCOLLECTION" {
		return collectionFromWKT(s[i:])
	}
	kind, ok := kinds[head]
	if !ok {
		return nil
	}
	body := s[i:]
	// (1 2, 3 4) -> [[1,2],[3,4]]: brackets for parens, pairs for "x y"
	var b strings.Builder
	tok := ""
	flushPair := func() bool {
		f := strings.Fields(tok)
		tok = ""
		if len(f) == 0 {
			return true
		}
		if len(f) < 2 {
			return false
		}
		b.WriteString("[" + f[0] + "," + f[1] + "]")
		return true
	}
	for _, r := range body {
		switch r {
		case '(':
			b.WriteByte('[')
		case ')':
			if !flushPair() {
				return nil
			}
			b.WriteByte(']')
		case ',':
			if !flushPair() {
				return nil
			}
			b.WriteByte(',')
		default:
			tok += string(r)
		}
	}
	var coords any
	d := json.NewDecoder(strings.NewReader(b.String()))
	d.UseNumber()
	if err := d.Decode(&coords); err != nil {
		return nil
	}
	if kind == "Point" {
		if xs, ok := coords.([]any); ok && len(xs) == 1 {
			coords = xs[0]
		}
	}
	if kind == "MultiPoint" {
		if xs, ok := coords.([]any); ok {
			for i, x := range xs {
				if inner, ok := x.([]any); ok && len(inner) == 1 {
					if _, isArr := inner[0].([]any); isArr {
						xs[i] = inner[0]
					}
				}
			}
		}
	}
	coords = realify(coords)
	shape := map[string]any{"type": kind, "coordinates": coords}
	if _, ok := parseShape(Dyn{shape}); !ok {
		return nil
	}
	return Dyn{geoObj(kind, coords)}
}

// collectionFromWKT reads the body of GEOMETRYCOLLECTION (g1, g2, ...): each member
// is a WKT geometry of its own; one invalid member makes the whole null.
func collectionFromWKT(body string) any {
	body = strings.TrimSpace(body)
	if len(body) < 2 || body[0] != '(' || body[len(body)-1] != ')' {
		return nil
	}
	inner := body[1 : len(body)-1]
	geoms := []any{}
	depth, start := 0, 0
	for i := 0; i <= len(inner); i++ {
		if i < len(inner) {
			switch inner[i] {
			case '(':
				depth++
			case ')':
				depth--
			}
			if depth < 0 {
				return nil
			}
			if inner[i] != ',' || depth > 0 {
				continue
			}
		}
		member := strings.TrimSpace(inner[start:i])
		start = i + 1
		if member == "" && len(geoms) == 0 && i == len(inner) {
			break
		}
		g, ok := fromWKT(member).(Dyn)
		if !ok {
			return nil
		}
		geoms = append(geoms, g.V)
	}
	return Dyn{geoObj("GeometryCollection", geoms)}
}

// realify makes every number of a coordinate tree a real, as Kusto writes them.
func realify(v any) any {
	switch x := v.(type) {
	case []any:
		for i := range x {
			x[i] = realify(x[i])
		}
		return x
	case json.Number:
		f, _ := x.Float64()
		return toJSONValue(f)
	}
	return v
}
