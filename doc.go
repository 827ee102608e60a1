// Package qeval holds the domain words of qeval, a toolkit that measures how good a
// text-to-query system is: items and their verdicts, result sets and values, outcomes,
// query shapes, errors, and the interfaces (Executor, Completer) that adapters implement.
//
// The root package imports only the standard library. Technology lives in subpackages:
// sqlite/ (the embedded executor), compare/ (result-set comparison modes), execmatch/
// (execution match of one item or a batch), and so on; cmd/qeval ties them together.
package qeval
