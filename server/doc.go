// Package server is qeval's HTTP service: `qeval serve`.
//
// It answers four kinds of request, all under /api/ and all in JSON:
//
//   - POST /api/score-query scores one generated query against an expected one (KQL or
//     SQL) with the composite score: schema match, semantic similarity, results match
//     and LLM grading, each with its score, weight and details (score.go).
//   - POST /api/runs starts a batch run of a suite: one posted as JSON or YAML, one
//     uploaded as a file (multipart), or one the server was started with, by name. A
//     run belongs to the server, not to the request that started it: it goes on after
//     the request ends, POST /api/runs/{id}/cancel stops it, and Close stops them all
//     and waits (runs.go).
//   - GET /api/runs/{id}/events follows a run as server-sent events: one "case" event
//     per finished case, "progress", and a final "summary". Every subscriber reads the
//     run's event log at its own pace, so a slow client never holds the run back, and
//     one that joins late is sent everything so far (events.go).
//   - GET /api/runs, /api/runs/{id} and the downloads report.json, report.xlsx and
//     junit.xml read the runs kept in a SQLite file in the data folder, so history
//     survives a restart (store.go).
//
// GET / serves the page (server/ui, embedded), which calls the same API.
//
// The server is safe by default: it answers only loopback addresses unless a bearer
// token is set (CheckAddr), limits request bodies, decodes JSON strictly, sets timeouts
// on every connection, and opens only the databases it was configured with: a suite
// sent to it names a database by its configured name, never by a path (suites.go).
// Errors are written as {"success": false, "error": {"code", "message", "field"}},
// with the HTTP status taken from the error's qeval.Code in one table (errors.go).
package server
