package mysql_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/mysql"
)

func mustTime(t *testing.T, s string) qeval.Value {
	t.Helper()
	tm, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	return qeval.Time(tm)
}

func TestConvert(t *testing.T) {
	for _, c := range []struct {
		name string
		typ  string
		v    any
		want qeval.Value
	}{
		{"Null", "INT", nil, qeval.Null},
		{"Int", "INT", int64(-4), qeval.Int(-4)},
		{"UnsignedSmall", "UNSIGNED BIGINT", uint64(7), qeval.Int(7)},
		{"UnsignedHuge", "UNSIGNED BIGINT", uint64(math.MaxUint64), qeval.Float(math.MaxUint64)},
		{"Float32Shortest", "FLOAT", float32(0.1), qeval.Float(0.1)},
		{"Double", "DOUBLE", 2.5, qeval.Float(2.5)},
		{"DecimalIntegral", "DECIMAL", []byte("15.000"), qeval.Int(15)},
		{"DecimalFraction", "DECIMAL", []byte("-0.84375"), qeval.Float(-0.84375)},
		{"DecimalHuge", "DECIMAL", []byte("123456789012345678901234567890"), qeval.Float(1.2345678901234568e29)},
		{"Bit", "BIT", []byte{0x01, 0x02}, qeval.Int(258)},
		{"Blob", "BLOB", []byte{0, 0xff}, qeval.Bytes([]byte{0, 0xff})},
		{"VarBinary", "VARBINARY", []byte("ab"), qeval.Bytes([]byte("ab"))},
		{"Text", "TEXT", []byte("héllo"), qeval.Text("héllo")},
		{"JSON", "JSON", []byte(`{"a": 1}`), qeval.Text(`{"a": 1}`)},
		{"Date", "DATE", []byte("2024-02-29"), mustTime(t, "2024-02-29T00:00:00Z")},
		{"DateTime", "DATETIME", []byte("2024-01-02 03:04:05.25"), mustTime(t, "2024-01-02T03:04:05.25Z")},
		{"ZeroDate", "DATETIME", []byte("0000-00-00 00:00:00"), qeval.Text("0000-00-00 00:00:00")},
		{"FarDate", "DATE", []byte("9999-12-31"), qeval.Text("9999-12-31")},
		{"Time", "TIME", []byte("-12:30:00"), qeval.Text("-12:30:00")},
		{"IntAsText", "BIGINT", []byte("12"), qeval.Int(12)},
		{"String", "VARCHAR", "s", qeval.Text("s")},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := mysql.Convert(c.typ, c.v); got != c.want {
				t.Errorf("Convert(%q, %#v) = %s %q, want %s %q", c.typ, c.v, got.Kind, got.String(), c.want.Kind, c.want.String())
			}
		})
	}
}

// TestQuery_Types runs one query per MySQL type on the server and checks the value and
// the column type.
func TestQuery_Types(t *testing.T) {
	e := newExecutor(t, []string{
		"CREATE TABLE t (b BIT(4), ts TIMESTAMP NULL, e ENUM('sad', 'happy'), j JSON, y YEAR, u BIGINT UNSIGNED, f FLOAT, bin VARBINARY(4))",
		"INSERT INTO t VALUES (b'1010', '2024-01-02 03:04:05', 'happy', '{\"a\": 1}', 2024, 18446744073709551615, 0.1, X'00ff')",
	}, qeval.Limits{})
	for _, c := range []struct {
		expr string
		want qeval.Value
		typ  string
	}{
		{"b FROM t", qeval.Int(10), "BIT"},
		{"ts FROM t", mustTime(t, "2024-01-02T03:04:05Z"), "TIMESTAMP"},
		{"e FROM t", qeval.Text("happy"), "ENUM"},
		{"JSON_EXTRACT(j, '$.a') FROM t", qeval.Text("1"), "LONGTEXT"},
		{"y FROM t", qeval.Int(2024), "YEAR"},
		{"u FROM t", qeval.Float(18446744073709551615), "UNSIGNED BIGINT"},
		{"f FROM t", qeval.Float(0.1), "FLOAT"},
		{"bin FROM t", qeval.Bytes([]byte{0, 0xff}), "VARBINARY"},
		{"CAST('2024-02-29' AS DATE)", mustTime(t, "2024-02-29T00:00:00Z"), "DATE"},
		{"CAST(12.50 AS DECIMAL(10,2))", qeval.Float(12.5), "DECIMAL"},
		{"CAST(12 AS DECIMAL(10,2))", qeval.Int(12), "DECIMAL"},
		{"AVG(x) FROM (SELECT 1 AS x UNION ALL SELECT 2) v", qeval.Float(1.5), "DECIMAL"},
		{"1 = 1", qeval.Int(1), "INT"},
		{"CAST('12:30' AS TIME)", qeval.Text("12:30:00"), "TIME"},
		{"NULL", qeval.Null, "NULL"},
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
