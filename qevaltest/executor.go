package qevaltest

import (
	"context"
	"encoding/hex"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qeval/qeval"
)

// NewExecutorFunc builds a fresh database, runs the setup statements on it in order
// with write access (through its own connection, never through the executor, which
// cannot write), and opens an executor with the given limits on it. It stops the test
// with t.Fatal when it cannot, and registers with t.Cleanup whatever must be closed or
// dropped afterwards. The suite calls it several times, and it closes some executors
// itself, so the executor's Close must be safe to call twice.
type NewExecutorFunc func(t *testing.T, setup []string, limits qeval.Limits) qeval.Executor

// ExecutorOptions tells the suite what differs between engines.
type ExecutorOptions struct {
	// SlowQuery is a read-only query that runs for 10 seconds or more, such as
	// "SELECT pg_sleep(30)" or "SELECT SLEEP(30)". Required.
	SlowQuery string
	// BlobType is the column type of binary values in CREATE TABLE; "BLOB" when empty
	// (PostgreSQL needs "BYTEA").
	BlobType string
	// BlobLiteral writes bytes as a literal of the engine; X'0aff' when nil
	// (PostgreSQL needs '\x0aff'::bytea).
	BlobLiteral func(b []byte) string
	// TextBlobs says the engine has no binary type (ClickHouse): binary values are
	// stored in a text column and come back as text holding the same bytes.
	TextBlobs bool
	// WideQuery returns far more than 64 KiB (the byte cap test); by default a join of
	// three fixture tables, which not every engine can run.
	WideQuery string
	// Timeout is the short deadline of the timeout and cancel tests; DefaultTestTimeout
	// when 0.
	Timeout time.Duration
}

// DefaultTestTimeout is the deadline of the timeout and cancel tests when
// ExecutorOptions.Timeout is 0.
const DefaultTestTimeout = 300 * time.Millisecond

// Grace is how long after its deadline or cancel a query may take to return.
const Grace = time.Second

func (o ExecutorOptions) blobType() string {
	if o.BlobType == "" {
		return "BLOB"
	}
	return o.BlobType
}

func (o ExecutorOptions) blob(b []byte) string {
	if o.BlobLiteral != nil {
		return o.BlobLiteral(b)
	}
	return "X'" + hex.EncodeToString(b) + "'"
}

func (o ExecutorOptions) timeout() time.Duration {
	if o.Timeout <= 0 {
		return DefaultTestTimeout
	}
	return o.Timeout
}

// RunExecutorTests checks that the executors newExec opens keep the qeval.Executor
// contract: values of every kind, column names and order, row order, query errors,
// refusal of writes and of several statements with no side effect, the per-query
// timeout, cancellation, the row and byte caps, concurrent use, and (when the executor
// implements qeval.SchemaReader) the schema.
func RunExecutorTests(t *testing.T, newExec NewExecutorFunc, opts ExecutorOptions) {
	t.Helper()
	if opts.SlowQuery == "" {
		t.Fatal("RunExecutorTests: ExecutorOptions.SlowQuery is required")
	}
	setup := Fixture(opts)
	// Open the executor with default limits first: engines with a process-wide
	// memory cap keep the largest one asked for.
	e := newExec(t, setup, qeval.Limits{})
	s := &suite{opts: opts, setup: setup, newExec: newExec, e: e}

	t.Run("ValueKinds", s.testValueKinds)
	t.Run("Literals", s.testLiterals)
	t.Run("Aggregates", s.testAggregates)
	t.Run("ColumnNames", s.testColumnNames)
	t.Run("EmptyResult", s.testEmptyResult)
	t.Run("RowOrder", s.testRowOrder)
	t.Run("Semicolons", s.testSemicolons)
	t.Run("QueryErrors", s.testQueryErrors)
	t.Run("EmptyQuery", s.testEmptyQuery)
	t.Run("WritesForbidden", s.testWritesForbidden)
	t.Run("HiddenWrite", s.testHiddenWrite)
	t.Run("MultipleStatements", s.testMultipleStatements)
	t.Run("Timeout", s.testTimeout)
	t.Run("Deadline", s.testDeadline)
	t.Run("Cancel", s.testCancel)
	t.Run("CanceledBefore", s.testCanceledBefore)
	t.Run("MaxRows", s.testMaxRows)
	t.Run("MaxBytes", s.testMaxBytes)
	t.Run("Concurrent", s.testConcurrent)
	t.Run("Schema", s.testSchema)
	t.Run("QueryAfterClose", s.testQueryAfterClose)
}

// items are the fixture's rows as the engine returns them.
func (s *suite) items() [][]qeval.Value {
	if !s.opts.TextBlobs {
		return fixtureItems
	}
	out := make([][]qeval.Value, len(fixtureItems))
	for i, row := range fixtureItems {
		out[i] = append([]qeval.Value(nil), row...)
		for j, v := range out[i] {
			if v.Kind == qeval.KindBytes {
				out[i][j] = qeval.Text(v.Str)
			}
		}
	}
	return out
}

// suite is the state shared by the subtests of one RunExecutorTests call.
type suite struct {
	opts    ExecutorOptions
	setup   []string
	newExec NewExecutorFunc
	e       qeval.Executor // default limits, shared by the read-only subtests
}

// The fixture's tables and rows. Items are inserted out of order so that only ORDER BY
// can return them sorted; the floats are exact in binary.
var fixtureItems = [][]qeval.Value{
	{qeval.Int(1), qeval.Text("alpha"), qeval.Float(1.5), qeval.Bytes([]byte{0x00, 0x01, 0xff, 'a'})},
	{qeval.Int(2), qeval.Null, qeval.Null, qeval.Null},
	{qeval.Int(3), qeval.Text("gamma"), qeval.Float(-7.25), qeval.Bytes([]byte{0x7f})},
	{qeval.Int(4), qeval.Text("a;b"), qeval.Float(0.125), qeval.Bytes([]byte{0xde, 0xad})},
	{qeval.Int(5), qeval.Text("héllo wörld ✓ 日本語"), qeval.Float(2.25), qeval.Bytes([]byte{0xde, 0xad, 0xbe, 0xef})},
}

var fixtureInsertOrder = []int{3, 1, 5, 2, 4}

const (
	numsCount = 60   // rows of qeval_nums: 1..60
	bigLen    = 1000 // length of the one text of qeval_big
)

// Fixture returns the setup statements of the suite's database, for the engine that
// opts describes: tables qeval_items (id, name, price, data), qeval_nums (n) and
// qeval_big (t).
func Fixture(opts ExecutorOptions) []string {
	var b strings.Builder
	b.WriteString("INSERT INTO qeval_items (id, name, price, data) VALUES ")
	for i, id := range fixtureInsertOrder {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(")
		for j, v := range fixtureItems[id-1] {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(literal(v, opts))
		}
		b.WriteString(")")
	}
	items := b.String()

	b.Reset()
	b.WriteString("INSERT INTO qeval_nums (n) VALUES ")
	for i := 0; i < numsCount; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		// 37 is coprime with 60: a fixed permutation of 1..60.
		b.WriteString("(" + strconv.Itoa((i*37)%numsCount+1) + ")")
	}
	nums := b.String()

	return []string{
		"CREATE TABLE qeval_items (id INTEGER NOT NULL PRIMARY KEY, name VARCHAR(100), price DOUBLE PRECISION, data " + opts.blobType() + ")",
		items,
		"CREATE TABLE qeval_nums (n INTEGER NOT NULL)",
		nums,
		"CREATE TABLE qeval_big (t TEXT)",
		"INSERT INTO qeval_big (t) VALUES ('" + strings.Repeat("x", bigLen) + "')",
	}
}

// literal writes v as an SQL literal.
func literal(v qeval.Value, opts ExecutorOptions) string {
	switch v.Kind {
	case qeval.KindInt:
		return strconv.FormatInt(v.Int, 10)
	case qeval.KindFloat:
		return strconv.FormatFloat(v.Float, 'g', -1, 64)
	case qeval.KindText:
		return "'" + strings.ReplaceAll(v.Str, "'", "''") + "'"
	case qeval.KindBytes:
		return opts.blob([]byte(v.Str))
	}
	return "NULL"
}

func intRows(ns ...int64) [][]qeval.Value {
	rows := make([][]qeval.Value, len(ns))
	for i, n := range ns {
		rows[i] = []qeval.Value{qeval.Int(n)}
	}
	return rows
}

// query runs q on e with a generous deadline and fails the test on error.
func query(t *testing.T, e qeval.Executor, q string) *qeval.ResultSet {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rs, err := e.Query(ctx, q)
	if err != nil {
		t.Fatalf("Query(%q): %v (code %s)", q, err, qeval.ErrorCode(err))
	}
	if rs == nil {
		t.Fatalf("Query(%q) = nil result set and nil error", q)
	}
	return rs
}

// queryErr runs q on e and returns its error, failing the test when there is none.
func queryErr(t *testing.T, e qeval.Executor, q string) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rs, err := e.Query(ctx, q)
	if err == nil {
		t.Fatalf("Query(%q) = %d rows, want an error", q, rs.NumRows())
	}
	return err
}

// wantCode fails the test unless err's code is one of codes and it has a message.
func wantCode(t *testing.T, q string, err error, codes ...qeval.Code) {
	t.Helper()
	got := qeval.ErrorCode(err)
	for _, c := range codes {
		if got == c {
			if strings.TrimSpace(qeval.ErrorMessage(err)) == "" {
				t.Errorf("Query(%q): error with code %s has an empty message", q, got)
			}
			return
		}
	}
	t.Errorf("Query(%q): error code %s (%v), want one of %v", q, got, err, codes)
}

// wantRows fails the test unless rs holds exactly want, in order and of the same kinds.
func wantRows(t *testing.T, q string, rs *qeval.ResultSet, want [][]qeval.Value) {
	t.Helper()
	if len(rs.Rows) != len(want) {
		t.Fatalf("Query(%q) = %d rows %v, want %d rows %v", q, len(rs.Rows), rs.Rows, len(want), want)
	}
	for i, row := range rs.Rows {
		if len(row) != len(want[i]) {
			t.Fatalf("Query(%q) row %d has %d values, want %d", q, i, len(row), len(want[i]))
		}
		for j, v := range row {
			if v != want[i][j] {
				t.Errorf("Query(%q) row %d col %d = %s %q, want %s %q", q, i, j, v.Kind, v.String(), want[i][j].Kind, want[i][j].String())
			}
		}
	}
}

// wantColumns fails the test unless rs has exactly the column names want.
func wantColumns(t *testing.T, q string, rs *qeval.ResultSet, want ...string) {
	t.Helper()
	got := rs.ColumnNames()
	if strings.Join(got, ",") != strings.Join(want, ",") || len(got) != len(want) {
		t.Errorf("Query(%q) columns = %q, want %q", q, got, want)
	}
}

// checkUnchanged fails the test unless the fixture's data is still all there.
func (s *suite) checkUnchanged(t *testing.T, e qeval.Executor) {
	t.Helper()
	q := "SELECT id, name, price, data FROM qeval_items ORDER BY id"
	wantRows(t, q, query(t, e, q), s.items())
	q = "SELECT COUNT(*) FROM qeval_nums"
	wantRows(t, q, query(t, e, q), intRows(numsCount))
}
