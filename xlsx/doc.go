// Package xlsx writes report.xlsx: a run (qeval.Report) as an Excel workbook, written
// as SpreadsheetML by hand (sheetml.go) so that no spreadsheet library is initialised at
// every start of qeval; the tests read every workbook back with excelize.
//
// The workbook has a Summary sheet (the run's settings and aggregate numbers, the
// composite components and the tags) and a Cases sheet with one row per case. The
// Cases sheet keeps the seed's report columns (Total Score, Score Status, Schema Match
// Score, Semantic Similarity Score, Results Match Score, LLM Grading Score, LLM
// Reasoning), colours each status, freezes its header row and id column, and has
// filters on every column. Scores are numbers, so they sort and sum; every text from
// a suite is written as a string cell, so a query starting with "=" is never a formula.
//
// Writer satisfies report.Writer; registry/writers.go lists it as "xlsx".
package xlsx
