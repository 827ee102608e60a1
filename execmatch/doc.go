// Package execmatch decides whether a generated query is right by running it and the
// gold query on real databases and comparing their results with a compare.Mode.
//
// A database is a file, or a folder whose files with ".sqlite" in their name form a test
// suite: the prediction matches only if it matches on every one (the Spider test-suite
// rule). Match judges one item; an Evaluator keeps databases open across many items and
// Run judges a batch with bounded concurrency.
//
// A failing generated query is data (outcome pred_error, timeout, too_large); a failing
// gold query makes that item a gold_error and the run goes on.
package execmatch
