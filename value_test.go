package qeval_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/qeval/qeval"
)

func TestParseDecimal(t *testing.T) {
	for in, want := range map[string]qeval.Value{
		"42":                   qeval.Int(42),
		"-7.000":               qeval.Int(-7),
		"2.5":                  qeval.Float(2.5),
		"99999999999999999999": qeval.Float(1e20),
		"NaN":                  qeval.Float(math.NaN()),
	} {
		got, ok := qeval.ParseDecimal(in)
		if !ok || got.Kind != want.Kind || got.Int != want.Int || !(got.Float == want.Float || math.IsNaN(want.Float) && math.IsNaN(got.Float)) {
			t.Errorf("ParseDecimal(%q) = %v %v, want %v", in, got, ok, want)
		}
	}
	if _, ok := qeval.ParseDecimal("12abc"); ok {
		t.Error("ParseDecimal(12abc) ok")
	}
}

func TestTimeFits(t *testing.T) {
	if !qeval.TimeFits(time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)) || qeval.TimeFits(time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)) || qeval.TimeFits(time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)) {
		t.Error("TimeFits disagrees with the 1678–2261 range of a time Value")
	}
}

func TestValue_JSON(t *testing.T) {
	rs := qeval.ResultSet{Columns: []qeval.Column{{Name: "a"}}}
	b, _ := json.Marshal(rs)
	if string(b) != `{"columns":[{"name":"a","type":""}],"rows":[]}` {
		t.Errorf("empty result set = %s", b)
	}
	vals := []qeval.Value{qeval.Null, qeval.Int(3), qeval.Float(0.5), qeval.Text("x"), qeval.Bool(true)}
	b, _ = json.Marshal(vals)
	if string(b) != `[null,3,0.5,"x",true]` {
		t.Errorf("values = %s", b)
	}
	var back []qeval.Value
	if err := json.Unmarshal(b, &back); err != nil || back[1] != qeval.Int(3) || back[2] != qeval.Float(0.5) || back[3] != qeval.Text("x") {
		t.Errorf("round trip = %v %v", back, err)
	}
}

// A report keeps a preview: a few rows, and no value longer than the cap (a result of
// ten 100 MB texts once ran the report's encoder out of memory).
func TestResultSet_Preview(t *testing.T) {
	big := strings.Repeat("é", 600) // 1,200 bytes of two-byte runes
	rs := &qeval.ResultSet{Columns: []qeval.Column{{Name: "a"}, {Name: "b"}}, Rows: [][]qeval.Value{
		{qeval.Text(big), qeval.Int(1)}, {qeval.Text("short"), qeval.Bytes([]byte(big))}, {qeval.Text("x"), qeval.Int(3)}}}
	p := rs.Preview(2, 101)
	if len(p.Rows) != 2 {
		t.Fatalf("%d rows, want 2", len(p.Rows))
	}
	got := p.Rows[0][0].Str
	if !strings.HasPrefix(got, strings.Repeat("é", 50)+"…(1200 bytes)") || !utf8.ValidString(got) {
		t.Errorf("cut value = %q", got)
	}
	if p.Rows[1][0].Str != "short" || p.Rows[1][1].Kind != qeval.KindBytes || len(p.Rows[1][1].Str) > 120 {
		t.Errorf("row 2 = %+v", p.Rows[1])
	}
	if rs.Rows[0][0].Str != big {
		t.Error("Preview changed the result it was given")
	}
}

func TestCheckQuerySize(t *testing.T) {
	for _, tc := range []struct {
		q      string
		ok     bool
		reason string
	}{
		{"SELECT (1)", true, ""},
		{strings.Repeat("(", 1001), false, "too deeply nested (depth 1001, limit 1000)"},
		{"SELECT '" + strings.Repeat("x", 1<<20) + "'", false, "query too large"},
		// operators: a run of operator characters counts once, AND/OR/NOT as words only
		{"SELECT 1" + strings.Repeat("+1", 10_000), true, ""},
		{"SELECT 1" + strings.Repeat("+1", 10_001), false, "too complex (10001 operators, limit 10000)"},
		{"SELECT 1" + strings.Repeat("<=1", 10_001), false, "10001 operators"},
		{"SELECT " + strings.Repeat("not ", 10_001) + "1", false, "10001 operators"},
		{"SELECT x FROM t WHERE a=1" + strings.Repeat(" Or a=1", 5_000), false, "10001 operators"},
		{"SELECT " + strings.Repeat("order, android, notes, a.b, ", 5_000) + "1", true, ""},
	} {
		err := qeval.CheckQuerySize(tc.q, 0, 0)
		if (err == nil) != tc.ok || (err != nil && (!qeval.IsTooLarge(err) || !strings.Contains(err.Error(), tc.reason))) {
			t.Errorf("CheckQuerySize(%.20q) = %v", tc.q, err)
		}
	}
	// each bound can be raised
	long := "SELECT 1" + strings.Repeat("+1", 20_000)
	if err := (qeval.QueryBounds{MaxOperators: 20_000}).Check(long); err != nil {
		t.Errorf("MaxOperators 20000: %v", err)
	}
	// a negative MaxOperators counts none (KQL: datetime(2024-05-28) has two dashes)
	if err := (qeval.QueryBounds{MaxOperators: -1}).Check(long); err != nil {
		t.Errorf("MaxOperators -1: %v", err)
	}
}

// A head of a result does not keep the rest of it alive: its list of rows is its own.
func TestHead_OwnsItsRows(t *testing.T) {
	rs := &qeval.ResultSet{Rows: make([][]qeval.Value, 1000)}
	for i := range rs.Rows {
		rs.Rows[i] = []qeval.Value{qeval.Int(int64(i))}
	}
	h := rs.Head(3)
	if len(h.Rows) != 3 || cap(h.Rows) != 3 || h.Rows[2][0] != qeval.Int(2) {
		t.Fatalf("Head(3): %d rows, capacity %d, %v", len(h.Rows), cap(h.Rows), h.Rows)
	}
	if p := rs.Preview(3, 100); cap(p.Rows) != 3 {
		t.Errorf("Preview(3): capacity %d, want 3", cap(p.Rows))
	}
	if rs.Head(-1) != rs || rs.Head(1000) != rs {
		t.Error("a head of every row is the result itself")
	}
}

// An explanation shows the start of a long value and its length, never the whole value.
func TestShown_ClipsLongValues(t *testing.T) {
	long := strings.Repeat("é", 1000)
	if got := qeval.Text(long).Shown(); len(got.Str) > qeval.MaxShownValue+40 || !strings.HasSuffix(got.Str, "(2000 bytes in all)") || !utf8.ValidString(got.Str) {
		t.Errorf("long text shown as %q", got.Str)
	}
	blob := qeval.Bytes(make([]byte, 1<<20))
	if got := blob.Shown(); got.Kind != qeval.KindText || !strings.HasPrefix(got.Str, "x'0000") || !strings.HasSuffix(got.Str, "(1048576 bytes in all)") {
		t.Errorf("blob shown as %.60q…", got.Str)
	}
	row := []qeval.Value{qeval.Int(1), qeval.Text("short")}
	if got := qeval.ShownRow(row); &got[0] != &row[0] {
		t.Error("a row of short values is copied")
	}
}
