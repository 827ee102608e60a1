package server

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/qeval/qeval/registry"

	"github.com/qeval/qeval"
)

// Run statuses.
const (
	StatusRunning     = "running"
	StatusFinished    = "finished"
	StatusCanceled    = "canceled"    // a user canceled it; the report covers the cases done
	StatusInterrupted = "interrupted" // the server stopped while it ran
	StatusFailed      = "failed"      // it could not run (Error says why)
)

// store keeps runs in a SQLite file: one row per run (with its report once it
// ends) and one row per finished case, written as the run goes.
type store struct {
	db  *sql.DB
	now func() time.Time
}

const schema = `
CREATE TABLE IF NOT EXISTS runs (
	id        TEXT PRIMARY KEY,
	suite     TEXT NOT NULL,
	status    TEXT NOT NULL,
	total     INTEGER NOT NULL,
	done      INTEGER NOT NULL DEFAULT 0,
	passed    INTEGER NOT NULL DEFAULT 0,
	failed    INTEGER NOT NULL DEFAULT 0,
	errors    INTEGER NOT NULL DEFAULT 0,
	threshold REAL NOT NULL,
	started   INTEGER NOT NULL,
	finished  INTEGER,
	error     TEXT NOT NULL DEFAULT '',
	report    BLOB
);
CREATE INDEX IF NOT EXISTS runs_started ON runs(started);
CREATE TABLE IF NOT EXISTS cases (
	run_id TEXT NOT NULL,
	seq    INTEGER NOT NULL,
	result BLOB NOT NULL,
	PRIMARY KEY (run_id, seq)
);`

// openStore opens (or creates) the store and marks runs left running by a previous
// process as interrupted.
func openStore(path string, now func() time.Time) (*store, error) {
	db, err := registry.OpenStore(path)
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "open run store " + path, Message: err.Error(), Err: err}
	}
	db.SetMaxOpenConns(1) // one writer; the runs are few and their rows small
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := db.ExecContext(ctx, schema); err != nil {
		db.Close()
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "open run store " + path, Message: err.Error(),
			Hint: "--data-dir must be a writable folder", Err: err}
	}
	s := &store{db: db, now: now}
	if _, err := db.ExecContext(ctx, `UPDATE runs SET status = ?, finished = ?, error = ? WHERE status = ?`,
		StatusInterrupted, now().UnixMilli(), "the server stopped while the run was in progress", StatusRunning); err != nil {
		db.Close()
		return nil, &qeval.Error{Code: qeval.CodeInternal, Op: "open run store " + path, Message: err.Error(), Err: err}
	}
	return s, nil
}

func (s *store) Close() error { return s.db.Close() }

// runRow is a run as the store keeps it (without its cases and report).
type runRow struct {
	ID                     string
	Suite                  string
	Status                 string
	Total, Done            int
	Passed, Failed, Errors int
	Threshold              float64
	Started                time.Time
	Finished               *time.Time
	Error                  string
}

func (s *store) createRun(ctx context.Context, r *runRow) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO runs (id, suite, status, total, threshold, started) VALUES (?, ?, ?, ?, ?, ?)`,
		r.ID, r.Suite, r.Status, r.Total, r.Threshold, r.Started.UnixMilli())
	return err
}

// appendCases stores cases from seq on, and the counts so far, in one transaction.
func (s *store) appendCases(ctx context.Context, id string, seq int, cases [][]byte, c Counts) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for i, b := range cases {
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO cases (run_id, seq, result) VALUES (?, ?, ?)`, id, seq+i, b); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE runs SET done = ?, passed = ?, failed = ?, errors = ? WHERE id = ?`,
		c.Done, c.Passed, c.Failed, c.Errors, id); err != nil {
		return err
	}
	return tx.Commit()
}

// finishRun records how a run ended, with its report (nil when it has none).
func (s *store) finishRun(ctx context.Context, id, status, errMsg string, finished time.Time, c Counts, report []byte) error {
	_, err := s.db.ExecContext(ctx, `UPDATE runs SET status = ?, error = ?, finished = ?, done = ?, passed = ?, failed = ?, errors = ?, report = ? WHERE id = ?`,
		status, errMsg, finished.UnixMilli(), c.Done, c.Passed, c.Failed, c.Errors, report, id)
	return err
}

const runColumns = `id, suite, status, total, done, passed, failed, errors, threshold, started, finished, error`

func scanRun(sc interface{ Scan(...any) error }) (*runRow, error) {
	var r runRow
	var started int64
	var finished sql.NullInt64
	if err := sc.Scan(&r.ID, &r.Suite, &r.Status, &r.Total, &r.Done, &r.Passed, &r.Failed, &r.Errors, &r.Threshold,
		&started, &finished, &r.Error); err != nil {
		return nil, err
	}
	r.Started = time.UnixMilli(started).UTC()
	if finished.Valid {
		t := time.UnixMilli(finished.Int64).UTC()
		r.Finished = &t
	}
	return &r, nil
}

// listRuns returns the most recent runs first.
func (s *store) listRuns(ctx context.Context, limit int) ([]*runRow, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+runColumns+` FROM runs ORDER BY started DESC, id LIMIT ?`, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*runRow
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

var errNoRun = errors.New("no such run")

func (s *store) getRun(ctx context.Context, id string) (*runRow, error) {
	r, err := scanRun(s.db.QueryRowContext(ctx, `SELECT `+runColumns+` FROM runs WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errNoRun
	}
	return r, err
}

// report returns the stored report.json of a run (nil when it has none).
func (s *store) report(ctx context.Context, id string) ([]byte, error) {
	var b []byte
	err := s.db.QueryRowContext(ctx, `SELECT report FROM runs WHERE id = ?`, id).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errNoRun
	}
	return b, err
}

// cases returns the stored cases of a run from seq on, in the order they finished.
func (s *store) cases(ctx context.Context, id string, from int) ([]json.RawMessage, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT result FROM cases WHERE run_id = ? AND seq >= ? ORDER BY seq`, id, from)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []json.RawMessage
	for rows.Next() {
		var b []byte
		if err := rows.Scan(&b); err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, rows.Err()
}
