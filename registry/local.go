package registry

import (
	"context"
	"database/sql"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/kqlexec"
	"github.com/qeval/qeval/sqlite"
	"github.com/qeval/qeval/testsuite"
)

// The files qeval itself keeps or reads on this machine, reached through the registry
// so that the CLI and the server import no adapter.

// OpenStore opens (or creates) a SQLite file for qeval's own records (the server's run
// store): a plain database/sql handle, outside every sandbox generated queries run in.
func OpenStore(path string) (*sql.DB, error) { return sqlite.OpenStore(path) }

// ReadSchema returns the tables and columns of a database target, opened by its engine
// (a SQLite file, kql:PATH for the local KQL engine's data, a server DSN).
func ReadSchema(ctx context.Context, target string) (*qeval.Schema, error) {
	ex, err := EngineFor(target).New(target, Params{})
	if err != nil {
		return nil, err
	}
	defer ex.Close()
	sr, ok := ex.(qeval.SchemaReader)
	if !ok {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Message: "this engine cannot describe its schema"}
	}
	return sr.Schema(ctx)
}

// OpenSQLite opens a SQLite file for qeval's own queries on databases it made or was
// given as data (test-suite databases and their gold queries), without the statement
// guard the sqlite engine gives generated queries.
func OpenSQLite(path string, limits qeval.Limits) (qeval.Executor, error) {
	ex, err := sqlite.Open(path, limits)
	if err != nil {
		return nil, err
	}
	return ex, nil
}

// CreateSQLiteLike creates the SQLite file path with the schema of the file like, for a
// test-suite database.
func CreateSQLiteLike(path, like string) (testsuite.TableWriter, error) {
	w, err := sqlite.CreateLike(path, like)
	if err != nil {
		return nil, err
	}
	return w, nil
}

// CheckSQLite runs SQLite's integrity and foreign-key checks on a file.
func CheckSQLite(path string) error { return sqlite.Check(path) }

// The local KQL engine's support matrix (qeval kql support), as kqlexec computes it
// from its own code.
type (
	// KQLFeature is one name of the KQL reference and what the engine does with it.
	KQLFeature = kqlexec.Feature
	// KQLStatus is supported, partly or unsupported.
	KQLStatus = kqlexec.Status
)

// The statuses of KQLFeature.
const (
	KQLSupported   = kqlexec.Supported
	KQLPartly      = kqlexec.Partly
	KQLUnsupported = kqlexec.Unsupported
)

// KQLSupport lists every name of the KQL reference with its status.
func KQLSupport() []KQLFeature { return kqlexec.Support() }

// KQLSupportCounts counts features by status.
func KQLSupportCounts(fs []KQLFeature) map[KQLStatus]int { return kqlexec.SupportCounts(fs) }

// IsKQLDataFile reports whether a file is one the local KQL engine loads as a table:
// CSV (also gzipped), TSV, JSON or JSON lines.
func IsKQLDataFile(p string) bool {
	l := strings.ToLower(p)
	for _, ext := range []string{".csv", ".csv.gz", ".json", ".jsonl", ".tsv"} {
		if strings.HasSuffix(l, ext) {
			return true
		}
	}
	return false
}
