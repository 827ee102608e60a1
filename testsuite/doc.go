// Package testsuite builds test suites for SQLite databases: for each database, a few
// small generated databases with the same schema, chosen so that the near-miss
// neighbours of the gold queries (a predicate dropped or flipped, another comparison,
// aggregate, join type, ORDER BY direction, LIMIT or column) return a result different
// from the gold query's on at least one of them. A prediction is then judged on every
// database of the suite, as the official Spider test-suite evaluator does, so that a
// wrong query that happens to return the right rows on the one original database is
// caught. The idea is Zhong, Yu and Klein's "Semantic Evaluation for Text-to-SQL with
// Distilled Test Suites" (EMNLP 2020); the method here is our own.
//
// Build takes the gold queries and the original databases and writes
// OUT/<db_id>/<db_id>.sqlite (the original) plus OUT/<db_id>/<db_id>_tsNN.sqlite (the
// generated ones) and OUT/manifest.json. Generation reads the schema from the CREATE
// statements (and foreign keys from Spider's tables.json when given), draws values from
// the original data, the gold literals and their neighbours, and never stores a row that
// breaks a constraint. Distillation keeps, greedily, the generated databases that kill
// the most neighbours not yet killed. Everything is deterministic for a seed.
//
// Shrink turns a distinguishing database into a minimal counterexample for one gold
// and one predicted query: rows are deleted while the two results still differ.
//
// The package reads databases only through a qeval.Opener and writes them only through
// the Create function of Options (sqlite.CreateLike in the CLI), so the SQLite driver
// stays in sqlite/.
package testsuite
