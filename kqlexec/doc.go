// Package kqlexec runs Kusto Query Language (KQL) queries locally: it translates a
// parsed query (package kql) to one SQLite statement and runs it on the embedded
// SQLite engine, with Go functions registered for what SQLite lacks. It is the
// embedded default executor for KQL suites; Azure Data Explorer itself is package
// kusto.
//
// # Use
//
//	e, err := kqlexec.Open("examples/kql/stormevents", kqlexec.Options{Now: runStart})
//	rs, err := e.Query(ctx, `StormEvents | summarize count() by State | top 3 by count_`)
//
// A source is a folder of data files, one table each (Table.csv, .csv.gz, .tsv, .json,
// .jsonl; an optional schema.kql gives the column types, otherwise they are inferred),
// one such file, or a SQLite database file. The tables are copied into a private
// SQLite file while the executor is open. Column types in results are KQL type names
// (string, long, int, real, bool, datetime, timespan, dynamic, guid, decimal).
//
// now() and ago() read Options.Now, pinned for the executor's life, so results are
// reproducible. What the translator does not handle fails with a *qeval.Error of code
// qeval.CodeUnsupported and message "unsupported: <operator or function>", never with
// a wrong answer; KQL syntax and semantic errors have code qeval.CodeQuery with the line
// and column.
//
// # Translation
//
// Each pipe stage is one CTE (WITH RECURSIVE s1(c0, c1, _o) AS (...), ...). Columns
// are positional (c0, c1, ...) and _o carries the row order, so sort, top, take and
// serialized functions (row_number, prev, next) keep Kusto's order through later
// stages. The translator tracks every column's name and KQL type through every stage
// (rel.cols), and converts operands where KQL's rules need it: dynamic values compared
// with scalars, datetime/timespan arithmetic on 100 ns ticks, int/long/real promotion.
// KQL semantics that differ from SQL: sort and top default to descending with nulls
// last, join defaults to innerunique, substring is 0-based, == is case-sensitive and
// =~ is not, strings are never null, default column names follow Kusto (count_, sum_X,
// print_0, Column1, join's Key1).
//
// Storage: string TEXT, long/int/bool INTEGER, real REAL, datetime and timespan INTEGER
// ticks (datetimes since the Unix epoch), guid TEXT, dynamic compact JSON TEXT.
//
// # Run-time functions
//
// Scalar functions are Go functions called through one SQLite function,
// kf('name', 'signature', args...): the signature gives each argument's and the
// result's KQL type (one letter each, see typeCode), so the Go side decodes arguments
// and encodes the result exactly. Aggregates go through ka(...) the same way. Regular
// expressions are RE2 (Go's regexp), lower-casing is Unicode.
//
// # Files
//
//	executor.go              Executor, Open, Options, Query, result conversion
//	load.go, load_formats.go reading CSV/JSON/SQLite sources; type inference; schema.kql
//	engine.go                the KQL run-time functions for the sqlite executor, table loading
//	translate.go             statements, let, CTE stages, errors
//	translate_source.go      sources: tables, datatable, print, range, user functions
//	translate_ops.go         row operators: where, project, extend, sort, top, take, ...
//	translate_summarize.go   summarize, arg_max/arg_min, percentiles, column names
//	translate_aggregate.go   the aggregation functions
//	translate_join.go        join, lookup, union
//	translate_expand.go      mv-expand, mv-apply
//	translate_parse.go       parse and parse-where (simple, relaxed, regex)
//	translate_plugins.go     evaluate bag_unpack, ipv4_lookup/ipv6_lookup, the activity
//	                         plugins; make-series
//	translate_sessioncount.go evaluate session_count
//	translate_native.go      run-time calls computed while translating or written as SQL
//	translate_find.go        find, as a union of one pipeline per table
//	translate_expr.go,       expressions, literals, binary operators, in, between,
//	translate_binary.go,     calls and the functions the translator writes as SQL
//	translate_call.go,
//	translate_special.go
//	names.go                 Kusto's default column names
//	types.go, value.go,      types, run-time values, conversions, datetime/timespan
//	timefmt.go               text forms
//	funcs.go                 the function table and the kf dispatcher
//	funcs_*.go, aggs.go      the Go scalar functions (strings, math, time, dynamic,
//	geo_shapes.go            arrays, series, IP addresses, geo with S2 and H3, ...)
//	                         and aggregates
//	geo_boolean.go,          unions and intersections of polygons and lines on the
//	geo_union.go             sphere, and the measures of overlapping polygons
//	geo_json.go, geo_libm.go geometries written as Kusto writes them ("type" first,
//	                         digits from the C library's trigonometry)
//
// # Adding a function
//
// A scalar function is one def(...) in a funcs_*.go file: argument types to convert
// to, the result type, and the Go body over decoded values. Functions that need the
// translator (row scope, types, the pinned now) go in translate_special.go; aggregates
// are a case in translator.aggregate and, when computed in Go, an aggFactories entry.
package kqlexec
