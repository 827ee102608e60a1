// Package geom is the spherical geometry of the local KQL engine's geo functions:
// positions as (longitude, latitude) degrees, polygons and lines on the sphere through
// S2 (github.com/golang/geo), their distances, lengths, unions, intersections,
// simplification, densification and cell coverings (S2, H3, geohash). It knows no KQL:
// kqlexec reads a function's arguments (GeoJSON, numbers) into these types and writes
// the results back as GeoJSON.
//
// Degrees and points on the sphere convert with the C library's trigonometry, as
// Kusto's .NET runtime does (libm.go), so coordinates read back agree to the last digit.
package geom
