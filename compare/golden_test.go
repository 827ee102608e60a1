package compare_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/compare"
)

// A golden case is a txtar file under testdata/<mode>/:
//
//	{"order_matters": true}        the header: one JSON object on the first line
//	free prose saying what the case shows
//	-- gold --
//	[1, 1.0, "a", null]            one JSON array per row
//	-- pred --
//	...
//	-- want --
//	match                          or mismatch
//
// Values are typed by their JSON spelling: 1 is an int, 1.0 or 1e3 a float, "a" text,
// null NULL, true/false a bool, {"bytes": "ab"} a blob and {"float": "inf"} a float JSON
// cannot spell. Lines starting with # in a section are comments.

type goldenHeader struct {
	OrderMatters bool `json:"order_matters"`
}

type goldenCase struct {
	path   string
	header goldenHeader
	gold   *qeval.ResultSet
	pred   *qeval.ResultSet
	want   bool
}

// TestGolden walks testdata/<mode>/*.txt and checks each case with the mode named by
// its folder. Every mode in the table must have cases.
func TestGolden(t *testing.T) {
	for _, m := range compare.Modes() {
		t.Run(m.Name, func(t *testing.T) {
			files, err := filepath.Glob(filepath.Join("testdata", m.Name, "*.txt"))
			if err != nil {
				t.Fatal(err)
			}
			if len(files) == 0 {
				t.Fatalf("mode %s has no golden cases in testdata/%s/", m.ID(), m.Name)
			}
			for _, f := range files {
				c := mustReadGolden(t, f)
				name := strings.TrimSuffix(filepath.Base(f), ".txt")
				t.Run(name, func(t *testing.T) {
					got := m.Equal(c.gold, c.pred, c.header.OrderMatters)
					if got != c.want {
						t.Errorf("%s: %s.Equal(gold, pred, order_matters=%v)=%v, want %v\n gold: %v\n pred: %v",
							c.path, m.ID(), c.header.OrderMatters, got, c.want, c.gold.Rows, c.pred.Rows)
					}
				})
			}
		})
	}
}

// TestGolden_NoStrayFolders checks that every folder under testdata names a mode, so a
// misspelt folder does not silently go unchecked.
func TestGolden_NoStrayFolders(t *testing.T) {
	entries, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() || e.Name() == "fuzz" {
			continue
		}
		if _, err := compare.Lookup(e.Name()); err != nil {
			t.Errorf("testdata/%s: %v", e.Name(), err)
		}
	}
}

func mustReadGolden(tb testing.TB, path string) goldenCase {
	tb.Helper()
	a, err := txtar.ParseFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	c := goldenCase{path: path}
	head, _, _ := strings.Cut(strings.TrimSpace(string(a.Comment)), "\n")
	if err := json.Unmarshal([]byte(head), &c.header); err != nil {
		tb.Fatalf("%s:1: header: %v", path, err)
	}
	sections := map[string][]byte{}
	for _, f := range a.Files {
		if _, dup := sections[f.Name]; dup {
			tb.Fatalf("%s: section %q twice", path, f.Name)
		}
		sections[f.Name] = f.Data
	}
	for _, name := range []string{"gold", "pred", "want"} {
		if _, ok := sections[name]; !ok {
			tb.Fatalf("%s: no -- %s -- section", path, name)
		}
	}
	c.gold, err = parseRows(sections["gold"])
	if err != nil {
		tb.Fatalf("%s: gold: %v", path, err)
	}
	c.pred, err = parseRows(sections["pred"])
	if err != nil {
		tb.Fatalf("%s: pred: %v", path, err)
	}
	switch w := strings.TrimSpace(string(sections["want"])); w {
	case "match":
		c.want = true
	case "mismatch":
	default:
		tb.Fatalf("%s: want: %q, want match or mismatch", path, w)
	}
	return c
}

// parseRows reads one JSON array per line into a result set with columns c1..cn.
func parseRows(data []byte) (*qeval.ResultSet, error) {
	rs := &qeval.ResultSet{}
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		row, err := parseRow(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		if len(rs.Rows) > 0 && len(row) != len(rs.Rows[0]) {
			return nil, fmt.Errorf("line %d: %d values, the first row has %d", i+1, len(row), len(rs.Rows[0]))
		}
		rs.Rows = append(rs.Rows, row)
	}
	if len(rs.Rows) > 0 {
		for j := range rs.Rows[0] {
			rs.Columns = append(rs.Columns, qeval.Column{Name: "c" + strconv.Itoa(j+1)})
		}
	}
	return rs, nil
}

func parseRow(line string) ([]qeval.Value, error) {
	d := json.NewDecoder(bytes.NewReader([]byte(line)))
	d.UseNumber()
	var raw []any
	if err := d.Decode(&raw); err != nil {
		return nil, err
	}
	row := make([]qeval.Value, len(raw))
	for j, x := range raw {
		v, err := parseValue(x)
		if err != nil {
			return nil, fmt.Errorf("value %d: %w", j+1, err)
		}
		row[j] = v
	}
	return row, nil
}

func parseValue(x any) (qeval.Value, error) {
	switch t := x.(type) {
	case nil:
		return qeval.Null, nil
	case bool:
		return qeval.Bool(t), nil
	case string:
		return qeval.Text(t), nil
	case json.Number:
		s := string(t)
		if strings.ContainsAny(s, ".eE") {
			f, err := strconv.ParseFloat(s, 64)
			return qeval.Float(f), err
		}
		i, err := strconv.ParseInt(s, 10, 64)
		return qeval.Int(i), err
	case map[string]any:
		if b, ok := t["bytes"].(string); ok && len(t) == 1 {
			return qeval.Bytes([]byte(b)), nil
		}
		if f, ok := t["float"].(string); ok && len(t) == 1 {
			switch f {
			case "inf":
				return qeval.Float(math.Inf(1)), nil
			case "-inf":
				return qeval.Float(math.Inf(-1)), nil
			case "nan":
				return qeval.Float(math.NaN()), nil
			}
		}
	}
	return qeval.Value{}, fmt.Errorf("cannot read %v as a value", x)
}

// rows builds a result set from Go values: nil, int, float64, string, []byte, bool.
func rows(rs ...[]any) *qeval.ResultSet {
	out := &qeval.ResultSet{}
	for _, r := range rs {
		row := make([]qeval.Value, len(r))
		for j, x := range r {
			row[j] = val(x)
		}
		out.Rows = append(out.Rows, row)
	}
	if len(rs) > 0 {
		for j := range rs[0] {
			out.Columns = append(out.Columns, qeval.Column{Name: "c" + strconv.Itoa(j+1)})
		}
	}
	return out
}

func row(vals ...any) []any { return vals }

func val(x any) qeval.Value {
	switch t := x.(type) {
	case nil:
		return qeval.Null
	case int:
		return qeval.Int(int64(t))
	case int64:
		return qeval.Int(t)
	case float64:
		return qeval.Float(t)
	case string:
		return qeval.Text(t)
	case []byte:
		return qeval.Bytes(t)
	case bool:
		return qeval.Bool(t)
	case qeval.Value:
		return t
	}
	panic(fmt.Sprintf("val: unsupported %T", x))
}
