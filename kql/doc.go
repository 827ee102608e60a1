// Package kql parses Kusto Query Language (KQL) text into a syntax tree and extracts
// the query shape (tables, filters, aggregates, ...) that qeval's metrics compare.
//
// It is hand-written and depends only on the standard library and the root qeval
// package. The visible corpora (community queries, the Microsoft docs StormEvents
// queries, the NL2KQL Defender set, the docs emulator cases) all parse; the grammar,
// operator precedence included, follows Microsoft's own parser (Kusto.Language).
//
// # Use
//
//	script, err := kql.Parse(text)   // *Script, partial when err != nil
//	shape := kql.ShapeOf(script)     // *qeval.Shape
//	shape, err := kql.ParseShape(text)
//
// Parse returns an ErrorList: every error (up to ten) with its line, column, the
// source line and a caret. ErrorList.QevalError converts it to a *qeval.Error with
// code qeval.CodeQuery. Parse never panics and runs in linear time; nesting deeper
// than 200 levels is reported as an error.
//
// # Files
//
//	token.go, lexer.go        tokens; every literal form: '…', "…", @'…', h'…',
//	                          ```…```, 1h, 0x1F, datetime(…), guid(…), raw GUIDs
//	ast.go, ast_ops.go        the tree: statements, expressions, one type per operator
//	errors.go                 Error, ErrorList and their *qeval.Error form
//	parser.go                 the parser's state, token helpers, errors and recovery
//	parse_stmt.go             statements: let, set, declare, alias, restrict, pattern
//	parse_expr.go             expressions by precedence level
//	parse_literal.go          dynamic literals, typeof, datatable, externaldata, with (...)
//	parse_pipe.go             pipelines and the table of operators
//	parse_ops*.go             one parse function per operator
//	format*.go                Format: canonical text of any node
//	timespan.go               canonical time spans and datetimes
//	walk.go                   Inspect: a walk over the tree
//	shape.go                  ShapeOf and ParseShape, let and parameter scopes
//	shape_pipe.go             what each operator contributes to the shape
//	shape_expr.go             columns, filters, constants
//	shape_names.go            aggregates and output column names
//
// # Adding an operator
//
//  1. Add its node type to ast_ops.go, embedding OpBase (name and name=value
//     parameters) and holding every operand: the SQL translator reads this tree.
//  2. Write parseXxx(p *parser, b OpBase) Operator in parse_ops*.go and add the
//     operator's name (and its aliases, e.g. "order" for "sort") to the operators map
//     in parse_pipe.go. If it takes parameters (kind=..., with_xxx=...), list their
//     names in simpleParams; hint.* parameters are always accepted.
//  3. Print it in format_ops.go, walk it in walk.go, and say what it does to the
//     shape in shape_pipe.go (tables it reads, columns it defines, output columns).
//  4. Add a case to the operator table test in parse_test.go; TestFormatRoundTrip
//     then checks that the tree keeps everything the text says.
package kql
