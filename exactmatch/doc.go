// Package exactmatch is Spider's exact-set-match metric, verdict for verdict as the
// official evaluator computes it (evaluation.py and process_sql.py in
// taoyds/test-suite-sql-eval): a query is parsed against the database schema into
// clauses, literal values are masked, columns joined by foreign keys count as one, and
// each clause (select, where, group, having, order, and/or, set operations, keywords)
// is compared as a set. Partial scores per clause come with the verdict.
//
// The rules are the official ones, quirks included, because published numbers were
// made with them: the parser reads only the subset of SQL that Spider's gold queries
// use (column aliases, comma joins, LEFT JOIN and "a=b" without spaces make a
// prediction unreadable, and an unreadable prediction is scored as an empty query),
// every LIMIT counts as LIMIT 1, and foreign keys are unified only in columns of the
// outer query's tables. The parity test over ../shared/data checks every item and
// every partial score of six prediction sets against the official output.
package exactmatch
