package kqlexec_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/kqlexec"
)

func openErr(t *testing.T, source string) (*kqlexec.Executor, error) {
	e, err := kqlexec.Open(source, kqlexec.Options{TempDir: t.TempDir()})
	if err == nil {
		e.Close()
	}
	return e, err
}

func TestLimits_TimeoutRowsCancel(t *testing.T) {
	e, err := kqlexec.Open("", kqlexec.Options{TempDir: t.TempDir(), Limits: qeval.Limits{Timeout: 100 * time.Millisecond, MaxRows: 50}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	slow := "range x from 1 to 100000000 step 1 | summarize count()"
	_, err = e.Query(context.Background(), slow)
	if qeval.ErrorCode(err) != qeval.CodeTimeout {
		t.Errorf("slow query: %v, want a timeout", err)
	}
	_, err = e.Query(context.Background(), "range x from 1 to 51 step 1")
	if qeval.ErrorCode(err) != qeval.CodeTooLarge {
		t.Errorf("51 rows: %v, want too_large", err)
	}
	if rs, err := e.Query(context.Background(), "range x from 1 to 50 step 1"); err != nil || rs.NumRows() != 50 {
		t.Errorf("50 rows: %v rows, %v", rs.NumRows(), err)
	}
	if _, err := e.Query(context.Background(), "print 1"); err != nil {
		t.Errorf("executor unusable after the stopped queries: %v", err)
	}
}

// A cancel, before or while the query runs, ends it as canceled (not by the 30s
// timeout), and the executor goes on.
func TestLimits_Cancel(t *testing.T) {
	e, err := kqlexec.Open("", kqlexec.Options{TempDir: t.TempDir(), Limits: qeval.Limits{Timeout: 30 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx, cancel := context.WithCancel(context.Background())
	go cancel()
	_, err = e.Query(ctx, "range x from 1 to 100000000 step 1 | summarize count()")
	if qeval.ErrorCode(err) != qeval.CodeCanceled {
		t.Errorf("canceled query: %v, want canceled", err)
	}
	if _, err := e.Query(context.Background(), "print 1"); err != nil {
		t.Errorf("executor unusable after the canceled query: %v", err)
	}
}

func TestExecutor_Concurrent(t *testing.T) {
	e := mustOpen(t, "")
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			rs, err := e.Query(context.Background(), fmt.Sprintf("range x from 1 to %d step 1 | summarize s=sum(x)", i+1))
			if err != nil {
				errs <- err
				return
			}
			if want := int64((i + 1) * (i + 2) / 2); rs.Rows[0][0].Int != want {
				errs <- fmt.Errorf("query %d: sum %d, want %d", i, rs.Rows[0][0].Int, want)
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestExecutor_NowPinned(t *testing.T) {
	e := mustOpen(t, "")
	if !e.Now().Equal(pinnedNow) {
		t.Errorf("Now() = %v, want %v", e.Now(), pinnedNow)
	}
	a, err := e.Query(context.Background(), "print now()")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := e.Query(context.Background(), "print now()")
	if a.Rows[0][0] != b.Rows[0][0] || !a.Rows[0][0].AsTime().Equal(pinnedNow) {
		t.Errorf("now() = %v then %v, want %v both times", a.Rows[0][0], b.Rows[0][0], pinnedNow)
	}
}

func TestExecutor_CloseRemovesTables(t *testing.T) {
	dir := t.TempDir()
	e, err := kqlexec.Open("", kqlexec.Options{TempDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	entries, _ := osReadDir(dir)
	if len(entries) != 0 {
		t.Errorf("temp dir holds %v after Close", entries)
	}
}

// A range longer than the engine makes fails the query; it is never cut short into a
// wrong answer (it once summed the first 10,000,001 values of a 500,000,000-row range).
func TestLimits_RangeTooLongFails(t *testing.T) {
	// the range is refused once it has made its 10,000,001st row: seconds on a loaded
	// machine, so the deadline is only a hang guard
	e, err := kqlexec.Open("", kqlexec.Options{TempDir: t.TempDir(), Limits: qeval.Limits{Timeout: 2 * time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	_, err = e.Query(context.Background(), "range x from 1 to 500000000 step 1 | summarize sum(x)")
	if err == nil || !strings.Contains(qeval.ErrorMessage(err), "range: more than 10000000 rows") {
		t.Fatalf("got %v, want the range refused", err)
	}
	rs, err := e.Query(context.Background(), "range x from 10 to 1 step -3 | summarize count(), sum(x)")
	if err != nil || fmt.Sprint(rs.Rows) != "[[4 22]]" {
		t.Fatalf("short descending range: %v, %v", rs, err)
	}
}
