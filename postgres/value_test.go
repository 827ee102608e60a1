package postgres_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/postgres"
)

func TestConvert(t *testing.T) {
	ts := func(s string) qeval.Value {
		tm, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return qeval.Time(tm)
	}
	for _, c := range []struct {
		name string
		oid  uint32
		raw  []byte
		want qeval.Value
	}{
		{"Null", pgtype.Int4OID, nil, qeval.Null},
		{"Int2", pgtype.Int2OID, []byte("-12"), qeval.Int(-12)},
		{"Int8Max", pgtype.Int8OID, []byte("9223372036854775807"), qeval.Int(math.MaxInt64)},
		{"Float4Shortest", pgtype.Float4OID, []byte("0.1"), qeval.Float(0.1)},
		{"Float8Integral", pgtype.Float8OID, []byte("3"), qeval.Float(3)},
		{"Float8Infinity", pgtype.Float8OID, []byte("-Infinity"), qeval.Float(math.Inf(-1))},
		{"NumericIntegral", pgtype.NumericOID, []byte("12.000"), qeval.Int(12)},
		{"NumericNegativeIntegral", pgtype.NumericOID, []byte("-3.0"), qeval.Int(-3)},
		{"NumericFraction", pgtype.NumericOID, []byte("12.50"), qeval.Float(12.5)},
		{"NumericSmallFraction", pgtype.NumericOID, []byte("-0.25"), qeval.Float(-0.25)},
		{"NumericHuge", pgtype.NumericOID, []byte("123456789012345678901234567890"), qeval.Float(1.2345678901234568e29)},
		{"NumericHugeIntegral", pgtype.NumericOID, []byte("99999999999999999999.00"), qeval.Float(1e20)},
		{"BoolTrue", pgtype.BoolOID, []byte("t"), qeval.Bool(true)},
		{"BoolFalse", pgtype.BoolOID, []byte("f"), qeval.Bool(false)},
		{"Bytea", pgtype.ByteaOID, []byte(`\x00ff61`), qeval.Bytes([]byte{0, 0xff, 'a'})},
		{"Date", pgtype.DateOID, []byte("2024-02-29"), ts("2024-02-29T00:00:00Z")},
		{"Timestamp", pgtype.TimestampOID, []byte("2024-01-02 03:04:05.123456"), ts("2024-01-02T03:04:05.123456Z")},
		{"Timestamptz", pgtype.TimestamptzOID, []byte("2024-01-02 03:04:05+02"), ts("2024-01-02T01:04:05Z")},
		{"TimestampInfinity", pgtype.TimestampOID, []byte("infinity"), qeval.Text("infinity")},
		{"DateOutOfRange", pgtype.DateOID, []byte("0001-01-01"), qeval.Text("0001-01-01")},
		{"Text", pgtype.TextOID, []byte("héllo"), qeval.Text("héllo")},
		{"JSON", pgtype.JSONOID, []byte(`{"b": 1, "a": [1, 2]}`), qeval.Text(`{"b": 1, "a": [1, 2]}`)},
		{"UUID", pgtype.UUIDOID, []byte("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"), qeval.Text("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")},
		{"Interval", pgtype.IntervalOID, []byte("1 day 02:03:04"), qeval.Text("1 day 02:03:04")},
		{"UnknownOID", 999999, []byte("happy"), qeval.Text("happy")},
		{"BadInt", pgtype.Int4OID, []byte("x"), qeval.Text("x")},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := postgres.Convert(c.oid, c.raw)
			if got != c.want {
				t.Errorf("Convert(%d, %q) = %s %q, want %s %q", c.oid, c.raw, got.Kind, got.String(), c.want.Kind, c.want.String())
			}
		})
	}
	if got := postgres.Convert(pgtype.NumericOID, []byte("NaN")); got.Kind != qeval.KindFloat || !math.IsNaN(got.Float) {
		t.Errorf("Convert(numeric, NaN) = %s %q, want float NaN", got.Kind, got.String())
	}
}

func FuzzConvert(f *testing.F) {
	for _, oid := range []uint32{pgtype.Int4OID, pgtype.NumericOID, pgtype.ByteaOID, pgtype.TimestamptzOID, pgtype.DateOID, pgtype.BoolOID} {
		f.Add(oid, []byte("1"))
	}
	f.Fuzz(func(t *testing.T, oid uint32, raw []byte) {
		postgres.Convert(oid, raw) // must not panic
	})
}

// TestQuery_Types runs one query per PostgreSQL type on the server and checks the value
// and the column type.
func TestQuery_Types(t *testing.T) {
	e := newExecutor(t, []string{"CREATE TYPE mood AS ENUM ('sad', 'happy')"}, qeval.Limits{})
	ts := func(s string) qeval.Value {
		tm, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return qeval.Time(tm)
	}
	for _, c := range []struct {
		expr string
		want qeval.Value
		typ  string
	}{
		{"1::int2", qeval.Int(1), "int2"},
		{"2::int4", qeval.Int(2), "int4"},
		{"3::int8", qeval.Int(3), "int8"},
		{"0.1::float4", qeval.Float(0.1), "float4"},
		{"0.1::float8", qeval.Float(0.1), "float8"},
		{"'NaN'::float8 = 'NaN'::float8", qeval.Bool(true), "bool"},
		{"12.00::numeric(10,2)", qeval.Int(12), "numeric"},
		{"12.50::numeric", qeval.Float(12.5), "numeric"},
		{"avg(x) FROM (VALUES (1), (2)) v(x)", qeval.Float(1.5), "numeric"},
		{"sum(x) FROM (VALUES (1::int8), (2)) v(x)", qeval.Int(3), "numeric"},
		{"false", qeval.Bool(false), "bool"},
		{`'\x00ff'::bytea`, qeval.Bytes([]byte{0, 0xff}), "bytea"},
		{"'2024-01-02'::date", ts("2024-01-02T00:00:00Z"), "date"},
		{"'2024-01-02 03:04:05.5'::timestamp", ts("2024-01-02T03:04:05.5Z"), "timestamp"},
		{"'2024-01-02 03:04:05+05:30'::timestamptz", ts("2024-01-01T21:34:05Z"), "timestamptz"},
		{"'infinity'::timestamp", qeval.Text("infinity"), "timestamp"},
		{`'{"b": 1, "a": [1, 2]}'::json`, qeval.Text(`{"b": 1, "a": [1, 2]}`), "json"},
		{`'{"b": 1, "a": 2}'::jsonb`, qeval.Text(`{"a": 2, "b": 1}`), "jsonb"},
		{"'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid", qeval.Text("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"), "uuid"},
		{"'1 day 02:03:04'::interval", qeval.Text("1 day 02:03:04"), "interval"},
		{"'ab'::char(4)", qeval.Text("ab  "), "bpchar"},
		{"ARRAY[1, 2]", qeval.Text("{1,2}"), "_int4"},
		{"'happy'::mood", qeval.Text("happy"), "mood"},
		{"'12:30'::time", qeval.Text("12:30:00"), "time"},
		{"NULL::int4", qeval.Null, "int4"},
	} {
		q := "SELECT " + c.expr
		rs, err := e.Query(context.Background(), q)
		if err != nil {
			t.Errorf("Query(%q): %v", q, err)
			continue
		}
		if rs.NumRows() != 1 || len(rs.Rows[0]) != 1 {
			t.Errorf("Query(%q) = %v, want one value", q, rs.Rows)
			continue
		}
		if got := rs.Rows[0][0]; got != c.want {
			t.Errorf("Query(%q) = %s %q, want %s %q", q, got.Kind, got.String(), c.want.Kind, c.want.String())
		}
		if got := rs.Columns[0].Type; got != c.typ {
			t.Errorf("Query(%q) column type = %q, want %q", q, got, c.typ)
		}
	}
}
