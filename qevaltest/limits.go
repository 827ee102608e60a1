package qevaltest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/qeval/qeval"
)

// The subtests about deadlines, caps and concurrent use.

// wantStopped fails the test unless err has code want and came back within Grace of
// the moment the query was told to stop.
func wantStopped(t *testing.T, q string, err error, want qeval.Code, start time.Time, stopAfter time.Duration) {
	t.Helper()
	elapsed := time.Since(start)
	if err == nil {
		t.Fatalf("Query(%q) returned rows, want code %s", q, want)
	}
	if got := qeval.ErrorCode(err); got != want {
		t.Errorf("Query(%q): error code %s (%v), want %s", q, got, err, want)
	}
	if elapsed > stopAfter+Grace {
		t.Errorf("Query(%q) returned after %v, want within %v", q, elapsed.Round(time.Millisecond), stopAfter+Grace)
	}
}

// wantUsable fails the test unless e still answers a quick query correctly.
func wantUsable(t *testing.T, e qeval.Executor) {
	t.Helper()
	q := "SELECT id FROM qeval_items WHERE id = 5"
	wantRows(t, q, query(t, e, q), intRows(5))
}

func (s *suite) testTimeout(t *testing.T) {
	d := s.opts.timeout()
	e := s.newExec(t, s.setup, qeval.Limits{Timeout: d})
	start := time.Now()
	_, err := e.Query(context.Background(), s.opts.SlowQuery)
	wantStopped(t, s.opts.SlowQuery, err, qeval.CodeTimeout, start, d)
	wantUsable(t, e)
}

func (s *suite) testDeadline(t *testing.T) {
	d := s.opts.timeout()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	start := time.Now()
	_, err := s.e.Query(ctx, s.opts.SlowQuery)
	wantStopped(t, s.opts.SlowQuery, err, qeval.CodeTimeout, start, d)
	wantUsable(t, s.e)
}

func (s *suite) testCancel(t *testing.T) {
	d := s.opts.timeout()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stop := time.AfterFunc(d, cancel)
	defer stop.Stop()
	start := time.Now()
	_, err := s.e.Query(ctx, s.opts.SlowQuery)
	wantStopped(t, s.opts.SlowQuery, err, qeval.CodeCanceled, start, d)
	wantUsable(t, s.e)
}

func (s *suite) testCanceledBefore(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	q := "SELECT id FROM qeval_items"
	start := time.Now()
	_, err := s.e.Query(ctx, q)
	wantStopped(t, q, err, qeval.CodeCanceled, start, 0)
}

func (s *suite) testMaxRows(t *testing.T) {
	e := s.newExec(t, s.setup, qeval.Limits{MaxRows: 3})
	q := "SELECT n FROM qeval_nums"
	wantCode(t, q, queryErr(t, e, q), qeval.CodeTooLarge)
	// Exactly the cap is allowed.
	q = "SELECT id FROM qeval_items WHERE id <= 3 ORDER BY id"
	wantRows(t, q, query(t, e, q), intRows(1, 2, 3))
	q = "SELECT id FROM qeval_items WHERE id <= 4"
	wantCode(t, q, queryErr(t, e, q), qeval.CodeTooLarge)
	wantUsable(t, e)
}

func (s *suite) testMaxBytes(t *testing.T) {
	const limit = 64 << 10
	e := s.newExec(t, s.setup, qeval.Limits{MaxBytes: limit})
	// 600 rows of a 1000-byte text: far more than the cap.
	q := "SELECT a.t FROM qeval_big a, qeval_nums b, qeval_nums c WHERE c.n <= 10"
	if s.opts.WideQuery != "" {
		q = s.opts.WideQuery
	}
	wantCode(t, q, queryErr(t, e, q), qeval.CodeTooLarge)
	q = "SELECT t FROM qeval_big"
	rs := query(t, e, q)
	if rs.NumRows() != 1 || len(rs.Rows[0]) != 1 || len(rs.Rows[0][0].Str) != bigLen {
		t.Errorf("Query(%q) = %d rows, want one text of %d bytes", q, rs.NumRows(), bigLen)
	}
}

func (s *suite) testConcurrent(t *testing.T) {
	const goroutines, each = 8, 10
	var wg sync.WaitGroup
	errs := make(chan error, goroutines*each)
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				id := (g+i)%len(fixtureItems) + 1
				q := fmt.Sprintf("SELECT id, name, price, data FROM qeval_items WHERE id = %d", id)
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				rs, err := s.e.Query(ctx, q)
				cancel()
				if err != nil {
					errs <- fmt.Errorf("goroutine %d: Query(%q): %w", g, q, err)
					continue
				}
				if want := s.items()[id-1]; rs.NumRows() != 1 || !equalRow(rs.Rows[0], want) {
					errs <- fmt.Errorf("goroutine %d: Query(%q) = %v, want %v", g, q, rs.Rows, want)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func equalRow(a, b []qeval.Value) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func (s *suite) testSchema(t *testing.T) {
	sr, ok := s.e.(qeval.SchemaReader)
	if !ok {
		t.Skipf("%T does not implement qeval.SchemaReader", s.e)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sc, err := sr.Schema(ctx)
	if err != nil {
		t.Fatalf("Schema: %v", err)
	}
	for _, want := range []struct {
		table   string
		columns []string
	}{
		{"qeval_items", []string{"id", "name", "price", "data"}},
		{"qeval_nums", []string{"n"}},
		{"qeval_big", []string{"t"}},
	} {
		tb := sc.Table(want.table)
		if tb == nil {
			t.Errorf("Schema has no table %s (tables: %d)", want.table, len(sc.Tables))
			continue
		}
		var got []string
		for _, c := range tb.Columns {
			got = append(got, c.Name)
			if c.Type == "" {
				t.Errorf("Schema table %s column %s has no type", want.table, c.Name)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want.columns) {
			t.Errorf("Schema table %s columns = %q, want %q", want.table, got, want.columns)
		}
	}
}

func (s *suite) testQueryAfterClose(t *testing.T) {
	e := s.newExec(t, s.setup, qeval.Limits{})
	wantUsable(t, e)
	if err := e.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if rs, err := e.Query(ctx, "SELECT id FROM qeval_items"); err == nil {
		t.Errorf("Query after Close = %d rows, want an error", rs.NumRows())
	}
}
