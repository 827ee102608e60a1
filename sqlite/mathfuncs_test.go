package sqlite_test

import (
	"context"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/sqlite"
)

// TestMathFunctions runs SQLite's math functions and compares every value and type
// with what Python's sqlite3 module (SQLite 3.40 with SQLITE_ENABLE_MATH_FUNCTIONS, as
// Debian builds it, where the official Spider and BIRD evaluators run predictions)
// returns for the same query.
func TestMathFunctions(t *testing.T) {
	e := mustOpen(t, "CREATE TABLE t (x)")
	const q = `SELECT ceil(2), typeof(ceil('3')), ceil('2.0'), ceil(2.1), ceil('x'), ceil(x'01'), floor(-2.5), trunc(-2.5), ceiling(NULL),
 sqrt(' 4 '), sqrt('4x'), sqrt(-1), ln(0), ln(''), log(100), log(2, 8), log(1, 8), log(2, '8abc'), log('2x', 8), log10(1000), log2(8),
 pow(0, -1), power(2, 0.5), exp(1000), exp('1e1'), mod(7, 0), mod(-7, 3), mod(5.5, 2), pi(), degrees(pi()), radians(180), atan2(1, 0),
 acos(2), asin(0.5), sin(1), cos(1), tan(1), sinh(1), cosh(1), tanh(1), asinh(1), acosh(2), atanh(0.5), atan(1), typeof(ceil(-0.5)),
 typeof(ceil('12345678901234567890'))`
	rs, err := e.Query(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	i, f, s, null, inf := qeval.Int, qeval.Float, qeval.Text, qeval.Null, qeval.Float(math.Inf(1))
	want := []qeval.Value{i(2), s("integer"), f(2), f(3), null, null, f(-3), f(-2), null,
		f(2), null, null, null, null, f(2), f(3), null, f(3), null, f(2.9999999999999996), f(3),
		inf, f(1.4142135623730951), inf, f(22026.465794806718), null, f(-1), f(1.5), f(3.141592653589793), f(180), f(3.141592653589793), f(1.5707963267948966),
		null, f(0.5235987755982989), f(0.8414709848078965), f(0.5403023058681398), f(1.5574077246549023), f(1.1752011936438014), f(1.5430806348152437), f(0.7615941559557649), f(0.881373587019543), f(1.3169578969248166), f(0.5493061443340548), f(0.7853981633974483), s("real"),
		s("real")}
	if len(rs.Rows) != 1 || len(rs.Rows[0]) != len(want) {
		t.Fatalf("got %d rows of %d values, want 1 of %d", len(rs.Rows), len(rs.Rows[0]), len(want))
	}
	for k, w := range want {
		if got := rs.Rows[0][k]; !reflect.DeepEqual(got, w) {
			t.Errorf("%s = %v, want %v", rs.Columns[k].Name, got, w)
		}
	}
	// however the name is written, on a connection that has run other queries first
	for _, q := range []string{"SELECT 1", `SELECT "FLOOR"(2.5), Sqrt (4), [pi]()`} {
		rs, err := e.Query(context.Background(), q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if q != "SELECT 1" && !reflect.DeepEqual(rs.Rows[0], []qeval.Value{f(2), f(2), f(math.Pi)}) {
			t.Errorf("%s = %v", q, rs.Rows[0])
		}
	}
	if _, err := e.Query(context.Background(), "SELECT log(1, 2, 3)"); err == nil {
		t.Error("log with three arguments ran")
	}
}

// TestAsOfficial refuses, as SQLite 3.40 does, the functions added since, and only
// with AsOfficial.
func TestAsOfficial(t *testing.T) {
	path := buildDB(t, t.TempDir(), "CREATE TABLE t (a TEXT)", "INSERT INTO t VALUES ('x')")
	plain, err := sqlite.Open(path, qeval.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	ex, err := sqlite.OfficialOpener(path, qeval.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	ctx := context.Background()
	for _, q := range []string{"SELECT concat(a, 'y') FROM t", "SELECT 1 FROM t WHERE 0 AND if(1, 2, 3)", "SELECT string_agg(a, ',') FROM t"} {
		if _, err := plain.Query(ctx, q); err != nil {
			t.Errorf("%s: %v", q, err)
		}
		_, err := ex.Query(ctx, q)
		var qe *qeval.Error
		if !errors.As(err, &qe) || qe.Code != qeval.CodeQuery || !strings.HasPrefix(qe.Message, "no such function: ") {
			t.Errorf("%s as official: %v, want a query error naming the function", q, err)
		}
	}
	// the functions 3.40 has, the math ones included, run
	if rs, err := ex.Query(ctx, "SELECT floor(2.5), iif(1, 'a', 'b'), group_concat(a) FROM t"); err != nil || rs.Rows[0][0] != qeval.Float(2) {
		t.Errorf("as official: %v %v", rs, err)
	}
	// a denial of another kind is still one
	if _, err := ex.Query(ctx, "SELECT load_extension('x')"); err == nil || !strings.Contains(err.Error(), "not allowed") {
		t.Errorf("load_extension as official: %v", err)
	}
}
