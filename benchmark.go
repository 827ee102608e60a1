package qeval

import (
	"context"
	"encoding/json"
	"flag"
	"io"
	"path/filepath"
)

// A Benchmark is one published benchmark's scorer, a value as a comparison mode or a
// metric is: its name and version, its own flags and files, how one of its items is
// scored, and its official summary tables. registry.Benchmarks lists them; each runs
// through the one runner of suites, so every report writer, qeval merge, qeval diff and
// the server's run pages work on a benchmark run with no code of its own.
type Benchmark interface {
	// Name is the command and the report's benchmark name: "spider", "bird", "spider2".
	Name() string
	// Version is the version of the benchmark's official scorer reproduced.
	Version() string
	// Summary is the command's one-line description, Synopsis its usage line.
	Summary() string
	Synopsis() string
	// Flags declares the benchmark's own flags (its files) on fs and returns what opens
	// the run they name, once fs is parsed.
	Flags(fs *flag.FlagSet) BenchmarkOpener
	// Summarize computes the official summary from the cases of a run (their Item
	// lines, in the benchmark's order: a whole run, or the merged shards of one) and
	// the BenchmarkRun.Meta of each part (one for a whole run).
	Summarize(metas []json.RawMessage, cases []CaseResult) (BenchmarkSummary, error)
}

// BenchmarkOpener reads a benchmark's files into a run ready to score.
type BenchmarkOpener func(ctx context.Context, env BenchmarkEnv) (BenchmarkRun, error)

// BenchmarkEnv is what a benchmark takes from the command that runs it: everything that
// touches engines comes in here, so a benchmark package imports no adapter.
type BenchmarkEnv struct {
	// Stderr receives warnings (a prediction file whose keys do not pair with the gold).
	Stderr io.Writer
	// Catalog resolves database paths; SQLite files run as the official evaluators
	// run them (their SQLite's functions only).
	Catalog Catalog
	// Opener returns an engine's opener by name ("sqlite" the official one), for a
	// benchmark that opens a database of its own choosing (BIRD's PostgreSQL DSN).
	Opener func(engine string) (Opener, error)
	// Mirror copies the SQLite databases (db_id → file) into another engine for the
	// predictions and returns a catalog that resolves each file's folder to its copy,
	// and what removes the copies.
	Mirror func(ctx context.Context, engine, dsn string, keep bool, files map[string]string) (Catalog, func(), error)
	// GoldCache opens the gold-result cache a --cache flag names ("" for none).
	GoldCache func(ctx context.Context, spec string) (Cache, func(), error)
	// AllowPrivileged reads server databases even as a role that may read more than
	// the evaluation database (--unsafe-allow-privileged).
	AllowPrivileged bool
	// Limits bound each query (--timeout, --max-result-bytes).
	Limits Limits
	// Workers is how many items run at once (0: the number of CPUs).
	Workers int
	// Explain asks for an explanation and the error classes of each mismatch (the
	// items are written).
	Explain bool
	// NewVerifier makes the verifier of matched pairs (--verify, qeval verify); nil
	// where verification is not available.
	NewVerifier func(VerifierConfig) (Verifier, error)
}

// BenchmarkRun is a benchmark's files read into items.
type BenchmarkRun interface {
	// Suite has one case per item, in the benchmark's order: its id, database, gold
	// and prediction, and its level as a tag.
	Suite() *Suite
	// Shard keeps part i of n (1 ≤ i ≤ n) of the items, as the benchmark splits them
	// (an interaction's turns stay together), and returns every item's id in order.
	Shard(i, n int) []string
	// Score scores one case of Suite. The result's Item is the benchmark's own line
	// for it (the official --items object); Summarize reads those lines back.
	Score(ctx context.Context, c Case) CaseResult
	// Meta is what Summarize needs besides the items (the evaluation type, the mode,
	// the gold file's totals), recorded in the report.
	Meta() json.RawMessage
	// Close releases the run's databases and copies.
	Close() error
}

// BenchmarkSummary is a benchmark's official summary of a run: it marshals to the JSON
// `--json` prints.
type BenchmarkSummary interface {
	// Print writes the official tables, byte for byte as the official tool prints them.
	Print(w io.Writer)
	// Warnings are what a person must see beside the tables (gold queries that failed).
	Warnings() []string
}

// BenchmarkInfo is the benchmark a run scored, in report.json: its name, version, meta
// and official summary.
type BenchmarkInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	// Metas are each part's BenchmarkRun.Meta (one for a run, one a shard when merged).
	Metas   []json.RawMessage `json:"metas,omitempty"`
	Summary json.RawMessage   `json:"summary,omitempty"`
	// Tables is the official printout of the summary.
	Tables string `json:"tables,omitempty"`
}

// BenchmarkStatus is the status of a benchmark item: PASS when its official verdict
// is right, ERROR when its gold could not be judged, else FAIL.
func BenchmarkStatus(right bool, o Outcome) string {
	switch {
	case right:
		return StatusPass
	case o == OutcomeGoldError || o == OutcomeCanceled:
		return StatusError
	case o == OutcomeUnscorable:
		return StatusUnscorable
	}
	return StatusFail
}

// BenchmarkFile is where a benchmark folder keeps a database: DIR/<db_id>/<db_id>.sqlite,
// as Spider and BIRD lay theirs out (the folder DIR/<db_id> may hold a test suite's
// other databases beside it). It is the one statement of that layout.
func BenchmarkFile(dir, dbID string) string {
	return filepath.Join(dir, dbID, dbID+".sqlite")
}
