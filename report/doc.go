// Package report writes the results of a run (a qeval.Report) for people and for
// machines, and compares two runs.
//
// Each format is a Writer: JSON (report.json, the versioned schema every other tool
// reads back), JUnit (junit.xml for CI systems), HTML (report.html, one self-contained
// page with inline SVG charts), Markdown (summary.md for a pull-request comment) and
// Text (the terminal summary). The Excel writer brings its own library and lives in
// package xlsx; registry/writers.go is the one table of formats by name.
//
// The charts are plain functions from a Summary to an SVG string (charts.go), so the
// page of qeval serve draws the same pictures. Compare matches the cases of two
// reports by id and says what was fixed and what broke, with a paired bootstrap
// interval of the accuracy change and McNemar's test (diff.go).
//
// Every writer's output depends only on the report: no clock, no random numbers, no
// host names, so a report written twice is byte-identical. A new format is a file
// report/<format>.go with a type that has Write and FileName, and one line in
// registry/writers.go.
package report
