package mock_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/mock"
)

func TestExecutor_Query(t *testing.T) {
	want := &qeval.ResultSet{Columns: []qeval.Column{{Name: "n"}}, Rows: [][]qeval.Value{{qeval.Int(7)}}}
	e := &mock.Executor{QueryFunc: func(ctx context.Context, q string) (*qeval.ResultSet, error) {
		if q != "SELECT 7" {
			return nil, &qeval.Error{Code: qeval.CodeQuery, Message: "unexpected " + q}
		}
		return want, nil
	}}
	var x qeval.Executor = e
	got, err := x.Query(context.Background(), "SELECT 7")
	if err != nil || got != want {
		t.Fatalf("Query(%q) = %v, %v, want %v, nil", "SELECT 7", got, err, want)
	}
	_, err = x.Query(context.Background(), "SELECT 8")
	if qeval.ErrorCode(err) != qeval.CodeQuery {
		t.Errorf("Query(%q) error code = %s, want %s", "SELECT 8", qeval.ErrorCode(err), qeval.CodeQuery)
	}
	if q := e.Queries(); len(q) != 2 || q[0] != "SELECT 7" || q[1] != "SELECT 8" {
		t.Errorf("Queries() = %q, want [SELECT 7 SELECT 8]", q)
	}
}

func TestExecutor_QueryFuncUnset(t *testing.T) {
	var e mock.Executor
	_, err := e.Query(context.Background(), "SELECT 1")
	if qeval.ErrorCode(err) != qeval.CodeInternal {
		t.Errorf("Query with no QueryFunc: code %s (%v), want %s", qeval.ErrorCode(err), err, qeval.CodeInternal)
	}
}

func TestExecutor_Close(t *testing.T) {
	var e mock.Executor
	if err := e.Close(); err != nil {
		t.Errorf("Close with no CloseFunc = %v, want nil", err)
	}
	boom := errors.New("boom")
	e.CloseFunc = func() error { return boom }
	if err := e.Close(); !errors.Is(err, boom) {
		t.Errorf("Close = %v, want %v", err, boom)
	}
	if n := e.Closes(); n != 2 {
		t.Errorf("Closes() = %d, want 2", n)
	}
}

func TestExecutor_Concurrent(t *testing.T) {
	e := &mock.Executor{QueryFunc: func(context.Context, string) (*qeval.ResultSet, error) {
		return &qeval.ResultSet{}, nil
	}}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				e.Query(context.Background(), "SELECT 1")
			}
		}()
	}
	wg.Wait()
	if n := len(e.Queries()); n != 400 {
		t.Errorf("len(Queries()) = %d after 400 concurrent calls, want 400", n)
	}
}
