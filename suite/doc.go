// Package suite loads evaluation suites and checks them, reporting every problem with
// its file and line. This file set reads the Spider evaluator's files.
package suite
