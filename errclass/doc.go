// Package errclass says why a generated query is wrong: it compares the syntax trees
// of the gold and the generated query (read with the case dialect's grammar, as the
// metrics are: package sqlparse for SQL, package kql for KQL) clause by clause, and
// reads the execution's outcome and the engine's message, and returns error classes
// from a fixed vocabulary (vocabulary.go): a main class (value, operator, condition,
// function, attribute, table, clause, subquery, other), a subclass saying exactly what
// differs, and the fragment of each query that differs, most specific first.
//
// No LLM is asked: the same pair always gets the same classes. A new kind of
// difference is one row in Vocabulary and the comparison that finds it (diff.go,
// conds.go); a new engine's error wording is one pattern in errors.go.
package errclass
