package qeval

import (
	"path/filepath"
	"strings"
	"time"
)

// Item is one question of an evaluation: the gold query, the generated one and the
// database both run on (a file, or a folder of files forming a test suite).
type Item struct {
	ID       string `json:"id,omitempty"`
	Index    int    `json:"index"`
	DBID     string `json:"db_id,omitempty"`
	Database string `json:"database,omitempty"`
	Question string `json:"question,omitempty"`
	Gold     string `json:"gold"`
	Pred     string `json:"pred"`
	// PredDatabase, when set, is where Pred runs in place of Database (a Malloy
	// query compiled for its model's connection); both must have as many files.
	PredDatabase string `json:"pred_database,omitempty"`
	// Stateful, when set, makes the item a stateful one: Gold and Pred may change data
	// and hold several statements, each run in its own copy of the database, and are
	// judged by the spec's checks and comparisons.
	Stateful *StatefulSpec `json:"stateful,omitempty"`
}

// Verdict is the execution match of one item.
type Verdict struct {
	Match   bool    `json:"match"`
	Outcome Outcome `json:"outcome"`
	// Error is the message of the failure behind the outcome (pred_error, gold_error,
	// timeout, too_large, canceled), empty otherwise.
	Error string `json:"error,omitempty"`
	// ErrorLine and ErrorCol are where in the generated query its compiler found the
	// error, for a compile_error (1-based; 0 when unknown).
	ErrorLine int `json:"error_line,omitempty"`
	ErrorCol  int `json:"error_col,omitempty"`
	// Mode is the comparison mode as name@version.
	Mode string `json:"mode"`
	// Database is the database file the verdict was decided on: the first one where the
	// results differed or a query failed, else the last one compared.
	Database string `json:"database,omitempty"`
	// Gold and Pred are the results on that database (nil when the query failed).
	Gold *ResultSet `json:"gold_result,omitempty"`
	Pred *ResultSet `json:"pred_result,omitempty"`
	// GoldTime and PredTime are the time spent executing each query, on all databases.
	GoldTime time.Duration `json:"gold_ns"`
	PredTime time.Duration `json:"pred_ns"`
	// Candidates is the number of predicted queries tried (more than 1 with plug-value);
	// CandidateCapHit is set when the plug-value cap stopped the search.
	Candidates      int  `json:"candidates,omitempty"`
	CandidateCapHit bool `json:"candidate_cap_hit,omitempty"`
	// Databases is the number of databases the queries were compared on when more
	// than one (a test suite); Database then names the one that decided.
	Databases int `json:"databases,omitempty"`
	// OriginalMatch is, on a test suite whose folder holds the original database
	// (<folder>/<folder>.sqlite, compared first), whether the prediction matches on the
	// original alone: the single-database verdict beside the suite's. Nil otherwise.
	OriginalMatch *bool `json:"original_match,omitempty"`
	// Explanation says how the results differ, on a mismatch: row and column counts,
	// the column mapping, rows missing and extra, the first differing value, and the
	// database that told them apart.
	Explanation *Explanation `json:"explanation,omitempty"`
	// State is what a stateful case compared: its checks, the tables and definitions
	// each answer left behind, and their costs (nil for a read-only case).
	State *StateVerdict `json:"state,omitempty"`
	// Verification is, with --verify, what checking a match beyond the database(s)
	// decided (qeval verify).
	Verification *Verification `json:"verification,omitempty"`
	// GoldCached is set when every gold result the verdict used came from the gold
	// cache rather than from running the gold query.
	GoldCached bool `json:"gold_cached,omitempty"`
}

// IsOriginalDatabase reports whether a file of a test-suite folder is its original
// database: the one named after the folder (<folder>/<folder>.sqlite).
func IsOriginalDatabase(file string) bool {
	base := filepath.Base(file)
	return strings.TrimSuffix(base, filepath.Ext(base)) == filepath.Base(filepath.Dir(file))
}
