// Package equiv is the complete check of qeval verify: VeriEQL's bounded model (He,
// Zhao, Wang and Wang, "VeriEQL: Bounded Equivalence Verification for Complex SQL
// Queries with Integrity Constraints", OOPSLA 2024), written anew for SQLite's
// semantics and Spider's comparison rules. Every table the queries read becomes K
// symbolic rows, each present or not, each value NULL or a number or a text (text as
// an order-preserving code, so that comparisons keep their meaning); the schema's
// primary keys, UNIQUE, NOT NULL and foreign keys constrain them. Both queries are
// evaluated over those rows — joins, three-valued WHERE, GROUP BY with COUNT, SUM,
// AVG, MIN and MAX, HAVING, DISTINCT, IN and scalar subqueries, UNION, INTERSECT and
// EXCEPT, ORDER BY … LIMIT — and Z3 is asked for a database on which the results
// differ under the official Spider rules (bags, or lists when the gold orders, any
// column order). None means no database with up to K rows per table tells them apart.
//
// What the model leaves out is said, not guessed: a construct outside it makes the
// pair unsupported, naming the construct. A function it does not know (LIKE) is an
// uninterpreted predicate: a proof then holds for every meaning of it, the real one
// included. The proof assumes values of each column's declared type and, where the
// gold orders rows, that its ORDER BY leaves no two different rows tied (as the test
// suites and the audit do).
package equiv
