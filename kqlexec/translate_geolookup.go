package kqlexec

import (
	"strings"

	"github.com/qeval/qeval/kql"
)

// geoLookup is evaluate geo_polygon_lookup(LookupTable, PolygonKey, Longitude,
// Latitude [, radius] [, return_unmatched] [, lookup_area_radius] [,
// return_lookup_key]) and geo_line_lookup(LookupTable, LineKey, Longitude, Latitude,
// Radius [, ...the same]): each input row joined with the lookup rows whose polygon
// holds its point (geo_point_in_polygon; with a radius, whose polygon is within it,
// geo_distance_point_to_polygon) or whose line is within the radius
// (geo_distance_point_to_line). The key column is left out unless return_lookup_key;
// with return_unmatched the rows without a match are kept. lookup_area_radius only
// tunes Kusto's search and changes no result. Arguments after the fourth may be
// positional or named.
func (t *translator) geoLookup(in *rel, o *kql.EvaluateOp, e *env) (*rel, error) {
	name := o.Plugin.Name()
	line := name == "geo_line_lookup"
	positions := []string{"radius", "return_unmatched", "lookup_area_radius", "return_lookup_key"}
	args := o.Plugin.Args
	if len(args) < 4 || len(args) > 8 || line && len(args) < 5 {
		return nil, t.errAt(o, "%s(LookupTable, Key, Longitude, Latitude, [radius,] [return_unmatched,] [lookup_area_radius,] [return_lookup_key])", name)
	}
	opts := map[string]kql.Expr{}
	for i, a := range args[4:] {
		if n, ok := a.(*kql.NamedExpr); ok && len(n.Names) == 1 {
			k := strings.ToLower(n.Names[0].Name)
			known := false
			for _, p := range positions {
				known = known || p == k
			}
			if !known {
				return nil, t.errAt(a, "%s has no argument %s", name, n.Names[0].Name)
			}
			opts[k] = n.Value
			continue
		}
		opts[positions[i]] = a
	}
	flag := func(k string) (bool, error) {
		x, ok := opts[k]
		if !ok {
			return false, nil
		}
		v, err := t.expr(x, &scope{env: e})
		if err != nil {
			return false, err
		}
		b, isBool := v.lit.(bool)
		if !v.isLit || !isBool {
			return false, t.errAt(x, "%s's %s is true or false", name, k)
		}
		return b, nil
	}
	unmatched, err := flag("return_unmatched")
	if err != nil {
		return nil, err
	}
	withKey, err := flag("return_lookup_key")
	if err != nil {
		return nil, err
	}
	lk, err := t.tabular(args[0], e)
	if err != nil {
		return nil, err
	}
	keyID, ok := args[1].(*kql.Ident)
	if !ok || lk.index(keyID.Name) < 0 {
		return nil, t.errAt(args[1], "%s's key must be a column of the lookup table", name)
	}
	ki := lk.index(keyID.Name)
	left := &scope{env: e, cols: in.cols, alias: "l"}
	lon, err := t.expr(args[2], left)
	if err != nil {
		return nil, err
	}
	lat, err := t.expr(args[3], left)
	if err != nil {
		return nil, err
	}
	key := expr{sql: "r." + colName(ki), t: lk.cols[ki].Type}
	lon, lat = coerce(lon, TReal), coerce(lat, TReal)
	var cond expr
	if r, ok := opts["radius"]; ok {
		rad, err := t.expr(r, &scope{env: e})
		if err != nil {
			return nil, err
		}
		fn := "geo_distance_point_to_polygon"
		if line {
			fn = "geo_distance_point_to_line"
		}
		cond = expr{sql: "coalesce(" + call(fn, TReal, lon, lat, key).sql + " <= " + coerce(rad, TReal).sql + ", 0)", t: TBool}
	} else {
		cond = expr{sql: "coalesce(" + call("geo_point_in_polygon", TBool, lon, lat, key).sql + ", 0)", t: TBool}
	}
	var lcols, rcols []column
	var sqls []string
	for i, c := range in.cols {
		lcols = append(lcols, c)
		sqls = append(sqls, "l."+colName(i))
	}
	for i, c := range lk.cols {
		if i == ki && !withKey {
			continue
		}
		rcols = append(rcols, c)
		sqls = append(sqls, nullSafe("r."+colName(i), c.Type, unmatched))
	}
	j := "JOIN"
	if unmatched {
		j = "LEFT JOIN"
	}
	sel := "SELECT " + strings.Join(append(sqls, "row_number() OVER (ORDER BY l._o, r._o)"), ", ") +
		" FROM " + in.from + " l " + j + " " + lk.from + " r ON " + cond.sql
	return t.stage(joinCols(lcols, rcols), sel), nil
}
