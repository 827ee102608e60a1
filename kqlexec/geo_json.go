package kqlexec

import "encoding/json"

// geoJSON is a GeoJSON geometry as Kusto writes it: "type" first, then its
// coordinates (or geometries). A Go map would be written with sorted keys, and
// tostring() of a geometry compares as text.
type geoJSON struct {
	kind string // Point, LineString, Polygon, …, GeometryCollection
	key  string // coordinates or geometries
	val  any
}

func geoObj(kind string, val any) geoJSON {
	if kind == "GeometryCollection" {
		return geoJSON{kind, "geometries", val}
	}
	return geoJSON{kind, "coordinates", val}
}

func (g geoJSON) MarshalJSON() ([]byte, error) {
	t, err := json.Marshal(g.kind)
	if err != nil {
		return nil, err
	}
	v, err := json.Marshal(g.val)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(t)+len(v)+len(g.key)+16)
	out = append(out, `{"type":`...)
	out = append(out, t...)
	out = append(out, `,"`...)
	out = append(out, g.key...)
	out = append(out, `":`...)
	out = append(out, v...)
	return append(out, '}'), nil
}
