// Package qevaltest holds test helpers shared by the packages of qeval: conformance
// suites that every implementation of a root interface must pass.
//
// RunExecutorTests is the suite for qeval.Executor. Each engine's package calls it from
// its own test, with a function that builds a fresh database from the suite's setup
// statements (run by the test with write access, never by the executor) and opens an
// executor on it:
//
//	func TestExecutor(t *testing.T) {
//		qevaltest.RunExecutorTests(t, newExecutor, qevaltest.ExecutorOptions{
//			SlowQuery: "SELECT pg_sleep(30)",
//			BlobType:  "BYTEA",
//		})
//	}
//
// A new engine passes when every subtest passes; an engine that cannot express one of
// the suite's fixtures says so in ExecutorOptions rather than skipping tests.
//
// Import this package only from _test.go files.
package qevaltest
