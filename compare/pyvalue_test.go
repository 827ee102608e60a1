package compare_test

import (
	"math"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/compare"
)

// TestPyFloatRepr checks the float text spider-ts sorts by against Python's repr. The
// wanted strings were printed once by Python 3.11 (repr(x)); they are facts about
// Python, not results of this package.
func TestPyFloatRepr(t *testing.T) {
	cases := []struct {
		f    float64
		want string
	}{
		{0.1, "0.1"},
		{1e16, "1e+16"},
		{1e-5, "1e-05"},
		{123456789.0, "123456789.0"},
		{math.Copysign(0, -1), "-0.0"},
		{1.5e300, "1.5e+300"},
		{2.5, "2.5"},
		{1e22, "1e+22"},
		{0.0, "0.0"},
		{1.0, "1.0"},
		{-1.0, "-1.0"},
		{1e15, "1000000000000000.0"},
		{9999999999999998.0, "9999999999999998.0"},
		{1e-4, "0.0001"},
		{0.0001234, "0.0001234"},
		{1.2345e-7, "1.2345e-07"},
		{5e-324, "5e-324"},
		{1.7976931348623157e308, "1.7976931348623157e+308"},
		{0.30000000000000004, "0.30000000000000004"},
		{0.3333333333333333, "0.3333333333333333"},
		{0.6666666666666666, "0.6666666666666666"},
		{100.0, "100.0"},
		{123456789012345678.0, "1.2345678901234568e+17"},
		{1e100, "1e+100"},
		{-1.5e-10, "-1.5e-10"},
		{3.14159, "3.14159"},
		{9007199254740992.0, "9007199254740992.0"},
		{12345.678, "12345.678"},
		{0.5, "0.5"},
		{1e-3, "0.001"},
		{33.333333333333336, "33.333333333333336"},
		{4.35, "4.35"},
		{math.Inf(1), "inf"},
		{math.Inf(-1), "-inf"},
		{math.NaN(), "nan"},
	}
	for _, c := range cases {
		if got := compare.PyFloatRepr(c.f); got != c.want {
			t.Errorf("PyFloatRepr(%v)=%q, want %q (Python repr)", c.f, got, c.want)
		}
	}
}

// TestPySortKey checks str(x) + str(type(x)) for each kind of value Python's sqlite3
// returns (wanted strings printed by Python 3.11).
func TestPySortKey(t *testing.T) {
	cases := []struct {
		name string
		v    qeval.Value
		want string
	}{
		{"None", qeval.Null, "None<class 'NoneType'>"},
		{"int", qeval.Int(-42), "-42<class 'int'>"},
		{"float whole", qeval.Float(3), "3.0<class 'float'>"},
		{"float exponent", qeval.Float(1e16), "1e+16<class 'float'>"},
		{"str", qeval.Text("abc"), "abc<class 'str'>"},
		{"str empty", qeval.Text(""), "<class 'str'>"},
		{"bytes", qeval.Bytes([]byte("ab")), "b'ab'<class 'bytes'>"},
		{"bytes empty", qeval.Bytes(nil), "b''<class 'bytes'>"},
		{"bytes with quote", qeval.Bytes([]byte("it's")), `b"it's"<class 'bytes'>`},
		{"bytes with both quotes", qeval.Bytes([]byte(`a"b'c`)), `b'a"b\'c'<class 'bytes'>`},
		{"bytes escapes", qeval.Bytes([]byte("\x00\xff\n\t\\")), `b'\x00\xff\n\t\\'<class 'bytes'>`},
		{"bool", qeval.Bool(true), "True<class 'bool'>"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := compare.PySortKey(c.v); got != c.want {
				t.Errorf("PySortKey(%v)=%q, want %q", c.v, got, c.want)
			}
		})
	}
}
