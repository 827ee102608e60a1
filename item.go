package qeval

import "time"

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
}

// Verdict is the execution match of one item.
type Verdict struct {
	Match   bool    `json:"match"`
	Outcome Outcome `json:"outcome"`
	// Error is the message of the failure behind the outcome (pred_error, gold_error,
	// timeout, too_large, canceled), empty otherwise.
	Error string `json:"error,omitempty"`
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
	// GoldCached is set when every gold result the verdict used came from the gold
	// cache rather than from running the gold query.
	GoldCached bool `json:"gold_cached,omitempty"`
}
