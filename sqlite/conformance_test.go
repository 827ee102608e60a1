package sqlite_test

import (
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/qevaltest"
	"github.com/qeval/qeval/sqlite"
)

// The SQLite executor passes the conformance suite every executor runs.
func TestExecutor_Conformance(t *testing.T) {
	qevaltest.RunExecutorTests(t, func(t *testing.T, setup []string, limits qeval.Limits) qeval.Executor {
		path := buildDB(t, t.TempDir(), setup...)
		e, err := sqlite.Open(path, limits)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		return e
	}, qevaltest.ExecutorOptions{
		SlowQuery: "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c",
	})
}
