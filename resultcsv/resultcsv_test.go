package resultcsv_test

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/resultcsv"
)

// The types and values below are what pandas.read_csv gives for the same text.
func TestRead_TypesAsPandas(t *testing.T) {
	i, f, s, b, null := qeval.Int, qeval.Float, qeval.Text, qeval.Bool, qeval.Null
	for _, c := range []struct {
		name, in string
		types    []string
		cols     [][]qeval.Value
	}{
		{"Ints", "a\n 12\n13\n", []string{"int64"}, [][]qeval.Value{{i(12), i(13)}}},
		{"BlankLineSkipped", "a\n1\n\n", []string{"int64"}, [][]qeval.Value{{i(1)}}},
		{"BoolsInAnyCase", "a\ntRuE\nFALSE\n", []string{"bool"}, [][]qeval.Value{{b(true), b(false)}}},
		{"BoolsWithSpacesAreText", "a\ntrue \n false\n", []string{"object"}, [][]qeval.Value{{s("true "), s(" false")}}},
		{"InfinityWithSpacesIsText", "a\n inf\n1\n", []string{"object"}, [][]qeval.Value{{s(" inf"), s("1")}}},
		{"NumbersWithSpaces", "a,b\n 1e3\t,\t7 \n", []string{"float64", "int64"}, [][]qeval.Value{{f(1000)}, {i(7)}}},
		{"NonASCIISpaceIsText", "a\n\u00a01\n", []string{"object"}, [][]qeval.Value{{s("\u00a01")}}},
		{"SpacesLineSkipped", " \na,b\n \t\n1,2\n  \r\n", []string{"int64", "int64"}, [][]qeval.Value{{i(1)}, {i(2)}}},
		{"QuotedSpacesAreAValue", "a\n\" \"\n1\n", []string{"object"}, [][]qeval.Value{{s(" "), s("1")}}},
		{"QuotedEmptyIsNull", "a\n \n\"\"\n", []string{"float64"}, [][]qeval.Value{{null}}},
		{"IntsWithNullAreFloats", "a,b\n1,x\n,y\n", []string{"float64", "object"}, [][]qeval.Value{{f(1), null}, {s("x"), s("y")}}},
		{"Bools", "a\nTrue\nfalse\n", []string{"bool"}, [][]qeval.Value{{b(true), b(false)}}},
		{"Floats", "a\n1e5\n2\n.5\n1.\n", []string{"float64"}, [][]qeval.Value{{f(1e5), f(2), f(.5), f(1)}}},
		{"Inf", "a\ninf\nInfinity\n", []string{"float64"}, [][]qeval.Value{{f(posInf()), f(posInf())}}},
		{"MixedIsText", "a\n1\nx\n", []string{"object"}, [][]qeval.Value{{s("1"), s("x")}}},
		{"BoolsAndNumberAreText", "a\nTRUE\nFALSE\n1\n", []string{"object"}, [][]qeval.Value{{s("TRUE"), s("FALSE"), s("1")}}},
		{"NotGoNumbers", "a\n0x10\n1_000\n", []string{"object"}, [][]qeval.Value{{s("0x10"), s("1_000")}}},
		{"NASpellings", "a\nNULL\nNA\nnan\nn/a\n7\n", []string{"float64"}, [][]qeval.Value{{null, null, null, null, f(7)}}},
		{"AllNull", "a\n\"\"\n\"\"\n", []string{"float64"}, [][]qeval.Value{{null, null}}},
		{"Uint64", "a\n9586739058236606680\n0956108016718766611\n", []string{"uint64"}, [][]qeval.Value{{s("9586739058236606680"), s("956108016718766611")}}},
		{"PastUint64IsText", "a\n99999999999999999999\n", []string{"object"}, [][]qeval.Value{{s("99999999999999999999")}}},
		{"BigIntBesideNullKeepsItsSpelling", "a\n12345678901234567890\n\"\"\n", []string{"object"}, [][]qeval.Value{{s("12345678901234567890"), s("")}}},
		{"BigIntBesideMissingFieldIsEmptyText", "b,a\n1,12345678901234567890\n2\n", []string{"int64", "object"}, [][]qeval.Value{{i(1), i(2)}, {s("12345678901234567890"), s("")}}},
		{"BigIntThenFloatIsFloat", "a\n12345678901234567890\n-1\n2.5\n", []string{"float64"}, [][]qeval.Value{{f(12345678901234567890), f(-1), f(2.5)}}},
		{"PastUint64FirstIsText", "a\n99999999999999999999\n2.5\n", []string{"object"}, [][]qeval.Value{{s("99999999999999999999"), s("2.5")}}},
		{"PastUint64AfterAFloatIsFloat", "a\n2.5\n99999999999999999999\n", []string{"float64"}, [][]qeval.Value{{f(2.5), f(99999999999999999999)}}},
		{"BigIntBesideNegativeIsText", "a\n12345678901234567890\n-1\n", []string{"object"}, [][]qeval.Value{{s("12345678901234567890"), s("-1")}}},
		{"PastInt64NegativeIsTextWithNull", "a\n-12345678901234567890\nnan\n", []string{"object"}, [][]qeval.Value{{s("-12345678901234567890"), null}}},
		{"OverflowBeforeJunkIsText", "a\n99999999999999999999x\n1\n", []string{"object"}, [][]qeval.Value{{s("99999999999999999999x"), s("1")}}},
		{"MinInt64BesideNullIsNull", "a\n-9223372036854775808\nNA\n-9223372036854775807\n-9223372036854774784\n", []string{"float64"}, [][]qeval.Value{{null, null, null, f(-9223372036854774784)}}},
		{"NoneIsText", "a\nNone\n1\n", []string{"object"}, [][]qeval.Value{{s("None"), s("1")}}},
		{"MinInt64AloneIsAnInt", "a\n-9223372036854775808\n", []string{"int64"}, [][]qeval.Value{{i(-9223372036854775808)}}},
		{"ShortRowPadded", "a,b\n1,2\n3\n", []string{"int64", "float64"}, [][]qeval.Value{{i(1), i(3)}, {f(2), null}}},
		{"HeaderOnly", "a,b\n", []string{"object", "object"}, [][]qeval.Value{{}, {}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rs, err := resultcsv.Read(strings.NewReader(c.in), "x.csv")
			if err != nil {
				t.Fatal(err)
			}
			var types []string
			for _, col := range rs.Columns {
				types = append(types, col.Type)
			}
			if !reflect.DeepEqual(types, c.types) {
				t.Errorf("types %v, want %v", types, c.types)
			}
			for j, want := range c.cols {
				got := []qeval.Value{}
				for _, r := range rs.Rows {
					got = append(got, r[j])
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("column %d = %v, want %v", j, got, want)
				}
			}
		})
	}
}

func TestRead_Header(t *testing.T) {
	rs, err := resultcsv.Read(strings.NewReader("\xef\xbb\xbfa,a,b,a\n1,2,3,4\n"), "x.csv")
	if err != nil {
		t.Fatal(err)
	}
	if got := rs.ColumnNames(); !reflect.DeepEqual(got, []string{"a", "a.1", "b", "a.2"}) {
		t.Errorf("names %v, want pandas' a, a.1, b, a.2", got)
	}
}

func TestRead_Errors(t *testing.T) {
	for in, msg := range map[string]string{
		"":                  "x.csv: no columns to parse",
		"a,b\n1,2\n1,2,3\n": "x.csv:3: expected 2 fields, saw 3",
	} {
		if _, err := resultcsv.Read(strings.NewReader(in), "x.csv"); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("Read(%q) = %v, want %q", in, err, msg)
		}
	}
}

// TestWrite_RoundTrip: a result written as pandas writes it reads back with pandas'
// types: an integer column with a NULL turns float, a lone NULL stays a row.
func TestWrite_RoundTrip(t *testing.T) {
	rs := &qeval.ResultSet{Columns: []qeval.Column{{Name: "n"}, {Name: "m"}, {Name: "s"}}, Rows: [][]qeval.Value{
		{qeval.Int(1), qeval.Int(5), qeval.Text("a, b")},
		{qeval.Null, qeval.Int(6), qeval.Text("say \"hi\"")},
	}}
	var buf bytes.Buffer
	if err := resultcsv.Write(&buf, rs); err != nil {
		t.Fatal(err)
	}
	back, err := resultcsv.Read(&buf, "x.csv")
	if err != nil {
		t.Fatal(err)
	}
	want := [][]qeval.Value{{qeval.Float(1), qeval.Int(5), qeval.Text("a, b")}, {qeval.Null, qeval.Int(6), qeval.Text("say \"hi\"")}}
	if !reflect.DeepEqual(back.Rows, want) {
		t.Errorf("round trip %v, want %v", back.Rows, want)
	}
	buf.Reset()
	one := &qeval.ResultSet{Columns: []qeval.Column{{Name: "x"}}, Rows: [][]qeval.Value{{qeval.Null}}}
	if err := resultcsv.Write(&buf, one); err != nil {
		t.Fatal(err)
	}
	if buf.String() != "x\n\"\"\n" {
		t.Errorf("one NULL written as %q, want %q", buf.String(), "x\n\"\"\n")
	}
}

func posInf() float64 { return float64(1) / zero }

var zero float64
