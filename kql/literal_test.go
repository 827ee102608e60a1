package kql_test

import (
	"testing"

	"github.com/qeval/qeval/kql"
)

// printValue parses "print v = <lit>" and returns the printed value expression.
func printValue(t *testing.T, lit string) kql.Expr {
	t.Helper()
	s, err := kql.Parse("print v = " + lit)
	if err != nil {
		t.Fatalf("Parse(print v = %s): %v", lit, err)
	}
	q := s.Stmts[0].(*kql.QueryStmt)
	p, ok := q.Query.(*kql.PrintOp)
	if !ok {
		t.Fatalf("Parse(print v = %s): query is %T, want *kql.PrintOp", lit, q.Query)
	}
	return p.Items[0].(*kql.NamedExpr).Value
}

func TestLiterals(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		kind  kql.LitKind
		value string
		null  bool
	}{
		{"SingleQuoted", `'abc'`, kql.LitString, "abc", false},
		{"DoubleQuotedEscape", `"a\"b\\c"`, kql.LitString, `a"b\c`, false},
		{"EscapeNewlineTab", `'a\nb\tc'`, kql.LitString, "a\nb\tc", false},
		{"EscapeUnicode", `'\u00e9'`, kql.LitString, "é", false},
		{"VerbatimSingle", `@'C:\Windows\'`, kql.LitString, `C:\Windows\`, false},
		{"VerbatimDoubledQuote", `@"say ""hi"""`, kql.LitString, `say "hi"`, false},
		{"Obfuscated", `h'secret'`, kql.LitString, "secret", false},
		{"ObfuscatedUpper", `H"secret"`, kql.LitString, "secret", false},
		{"ObfuscatedVerbatim", `h@'x\y'`, kql.LitString, `x\y`, false},
		{"MultiLineBackticks", "```line1\nline2```", kql.LitString, "line1\nline2", false},
		{"MultiLineTildes", "~~~a 'b' \"c\"~~~", kql.LitString, `a 'b' "c"`, false},
		{"AdjacentStrings", `"ab" 'cd' @"ef"`, kql.LitString, "abcdef", false},
		{"Long", `42`, kql.LitLong, "42", false},
		{"Hex", `0x1F`, kql.LitLong, "0x1F", false},
		{"Real", `1.5`, kql.LitReal, "1.5", false},
		{"Exponent", `1e-3`, kql.LitReal, "1e-3", false},
		{"TrailingDot", `2.`, kql.LitReal, "2.", false},
		{"TimespanHours", `1h`, kql.LitTimespan, "1h", false},
		{"TimespanFraction", `1.5d`, kql.LitTimespan, "1.5d", false},
		{"TimespanMillis", `10ms`, kql.LitTimespan, "10ms", false},
		{"TimespanLongUnit", `5microseconds`, kql.LitTimespan, "5microseconds", false},
		{"TimespanTicks", `3tick`, kql.LitTimespan, "3tick", false},
		{"TimespanClock", `time(0.12:34:56.7)`, kql.LitTimespan, "0.12:34:56.7", false},
		{"TimespanTyped", `timespan(2d)`, kql.LitTimespan, "2d", false},
		{"TimespanNull", `timespan(null)`, kql.LitTimespan, "null", true},
		{"DatetimeDate", `datetime(2017-01-01)`, kql.LitDatetime, "2017-01-01", false},
		{"DatetimeSpace", `datetime(2017-01-01 10:20)`, kql.LitDatetime, "2017-01-01 10:20", false},
		{"DatetimeQuoted", `datetime(" 2022-10-05T20:54:33Z")`, kql.LitDatetime, "2022-10-05T20:54:33Z", false},
		{"DatetimeNull", `datetime(null)`, kql.LitDatetime, "null", true},
		{"DateAlias", `date(2020-02-29)`, kql.LitDatetime, "2020-02-29", false},
		{"Guid", `guid(74be27de-1e4e-49d9-b579-fe0b331d3642)`, kql.LitGuid, "74be27de-1e4e-49d9-b579-fe0b331d3642", false},
		{"RawGuid", `74be27de-1e4e-49d9-b579-fe0b331d3642`, kql.LitGuid, "74be27de-1e4e-49d9-b579-fe0b331d3642", false},
		{"Int", `int(5)`, kql.LitInt, "5", false},
		{"LongNull", `long(null)`, kql.LitLong, "null", true},
		{"RealNaN", `real(nan)`, kql.LitReal, "nan", false},
		{"RealNegative", `real(-73.95)`, kql.LitReal, "-73.95", false},
		{"Decimal", `decimal(1.25)`, kql.LitDecimal, "1.25", false},
		{"BoolTyped", `bool(true)`, kql.LitBool, "true", false},
		{"True", `true`, kql.LitBool, "true", false},
		{"False", `false`, kql.LitBool, "false", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lit, ok := printValue(t, tt.src).(*kql.Literal)
			if !ok {
				t.Fatalf("Parse(%s) gave %T, want *kql.Literal", tt.src, printValue(t, tt.src))
			}
			if lit.Kind != tt.kind || lit.Value != tt.value || lit.Null != tt.null {
				t.Errorf("Parse(%s) = {%v %q null=%v}, want {%v %q null=%v}", tt.src, lit.Kind, lit.Value, lit.Null, tt.kind, tt.value, tt.null)
			}
		})
	}
}

func TestLiterals_Dynamic(t *testing.T) {
	d, ok := printValue(t, `dynamic([1, -2.5, "a", {"k": null, 'x': [true]}, datetime(2020-01-01)])`).(*kql.DynamicLit)
	if !ok {
		t.Fatal("dynamic(...) did not give *kql.DynamicLit")
	}
	arr, ok := d.Value.(*kql.ArrayLit)
	if !ok || len(arr.Elems) != 5 {
		t.Fatalf("dynamic array = %#v, want 5 elements", d.Value)
	}
	if l := arr.Elems[1].(*kql.Literal); l.Value != "-2.5" || l.Kind != kql.LitReal {
		t.Errorf("element 1 = %v %q, want real -2.5", l.Kind, l.Value)
	}
	obj, ok := arr.Elems[3].(*kql.ObjectLit)
	if !ok || len(obj.Keys) != 2 || obj.Keys[0] != "k" || obj.Keys[1] != "x" {
		t.Fatalf("element 3 = %#v, want a bag with keys k, x", arr.Elems[3])
	}
	if l := obj.Values[0].(*kql.Literal); l.Kind != kql.LitNull {
		t.Errorf("k = %v, want null", l.Kind)
	}
	if got, want := kql.Format(d), `dynamic([1, -2.5, "a", {"k": null, "x": [true]}, datetime(2020-01-01T00:00:00Z)])`; got != want {
		t.Errorf("Format = %s, want %s", got, want)
	}
}

func TestNames(t *testing.T) {
	tests := []struct {
		src       string
		name      string
		bracketed bool
	}{
		{`['my column']`, "my column", true},
		{`["where"]`, "where", true},
		{`Col_1`, "Col_1", false},
		{`5MinuteBin`, "5MinuteBin", false},
		{`Été`, "Été", false},
	}
	for _, tt := range tests {
		id, ok := printValue(t, tt.src).(*kql.Ident)
		if !ok || id.Name != tt.name || id.Bracketed != tt.bracketed {
			t.Errorf("Parse(%s) = %#v, want Ident %q bracketed=%v", tt.src, printValue(t, tt.src), tt.name, tt.bracketed)
		}
	}
	m, ok := printValue(t, `$left.['Device Id']`).(*kql.Member)
	if !ok || m.X.(*kql.Ident).Name != "$left" || m.Name.Name != "Device Id" {
		t.Errorf("$left.['Device Id'] = %#v", printValue(t, `$left.['Device Id']`))
	}
}

func TestComments(t *testing.T) {
	s, err := kql.Parse("// leading\nT // after T\n| where x > 1 // trailing\n// last")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := kql.Format(s), "T | where x > 1"; got != want {
		t.Errorf("Format = %q, want %q", got, want)
	}
}

func TestCanonicalTimespan(t *testing.T) {
	tests := []struct{ in, want string }{
		{"1h", "1h"}, {"60m", "1h"}, {"3600s", "1h"}, {"90m", "90m"}, {"1.5h", "90m"},
		{"0.5d", "12h"}, {"24h", "1d"}, {"1000ms", "1s"}, {"7d", "7d"}, {"1.5s", "1500ms"},
		{"15 seconds", "15s"}, {"2", "2d"}, {"0.12:34:56.7", "45296700ms"}, {"00:01:00", "1m"},
		{"-1h", "-1h"}, {"10microseconds", "10microsecond"}, {"300nanoseconds", "3tick"},
		{"0s", "0s"}, {"0h", "0s"},
	}
	for _, tt := range tests {
		got, ok := kql.CanonicalTimespan(tt.in)
		if !ok || got != tt.want {
			t.Errorf("CanonicalTimespan(%q) = %q, %v; want %q, true", tt.in, got, ok, tt.want)
		}
	}
	for _, bad := range []string{"", "abc", "1w", "1.00000000001tick"} {
		if got, ok := kql.CanonicalTimespan(bad); ok {
			t.Errorf("CanonicalTimespan(%q) = %q, true; want false", bad, got)
		}
	}
}

func TestCanonicalDatetime(t *testing.T) {
	for _, in := range []string{"2017-01-01", "2017-01-01 00:00", "2017-01-01T00:00:00Z", "2017-01-01 00:00:00"} {
		if got, ok := kql.CanonicalDatetime(in); !ok || got != "2017-01-01T00:00:00Z" {
			t.Errorf("CanonicalDatetime(%q) = %q, %v; want 2017-01-01T00:00:00Z", in, got, ok)
		}
	}
	if got, _ := kql.CanonicalDatetime("2022-10-05T20:54:33.1234567+02:00"); got != "2022-10-05T18:54:33.1234567Z" {
		t.Errorf("CanonicalDatetime with offset = %q", got)
	}
	if _, ok := kql.CanonicalDatetime("null"); ok {
		t.Error("CanonicalDatetime(null) reported ok")
	}
}
