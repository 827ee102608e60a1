package validate_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qeval/qeval/internal/testdata"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/validate"
)

var stormSchema = &qeval.Schema{Tables: []qeval.TableSchema{
	{Name: "StormEvents", Columns: []qeval.Column{{Name: "StartTime", Type: "datetime"}, {Name: "State", Type: "string"}, {Name: "Tags", Type: "dynamic"}}},
	{Name: "PopulationData", Columns: []qeval.Column{{Name: "State", Type: "string"}, {Name: "Population", Type: "long"}}},
}}

// Each KQL rule fires on what it names, at the right place, and not on a safe query.
func TestKQL_Rules(t *testing.T) {
	for _, c := range []struct {
		query     string
		valid     bool
		rule      string // the first problem's or warning's rule id
		line, col int
	}{
		{"StormEvents | where StartTime > ago(7d) | summarize count() by State", true, "", 0, 0},
		{".drop table StormEvents", false, "KQL001", 1, 1},
		{"// clean up\n  .set-or-append T <| StormEvents | take 1", false, "KQL001", 2, 3},
		{"externaldata(x:string)[@'https://example.com/x.csv'] | take 1", false, "KQL002", 1, 1},
		{"StormEvents | take 1 | evaluate http_request('https://example.com')", false, "KQL002", 1, 24},
		{"print external_table('t')", false, "KQL002", 1, 7},
		{"cluster('help').database('Samples').StormEvents | take 1", true, "KQL003", 1, 1},
		{"search 'flood' | take 5", true, "KQL004", 1, 1},
		{"union * | take 5", true, "KQL004", 1, 1},
		{"StormEvents | where StartTime > ago(1d) | mv-expand Tags | take 5", true, "KQL005", 1, 43},
		{"StormEvents | summarize count() by State", true, "KQL006", 1, 1},
		{"PopulationData | project State", true, "KQL007", 1, 1},
		{"let recent = StormEvents | where StartTime > ago(1d); recent | project State", true, "", 0, 0},
		{"PopulationData | take 10", true, "", 0, 0},
		{"StormEvents | where State ==", false, "", 0, 0},
	} {
		v := validate.Check(c.query, validate.Options{Dialect: "kql", Schema: stormSchema})
		if v.Valid != c.valid {
			t.Errorf("%q: valid %v, want %v (%+v)", c.query, v.Valid, c.valid, v)
			continue
		}
		found := append(append([]validate.Problem{}, v.Problems...), v.Warnings...)
		if c.rule == "" {
			if c.valid && len(found) > 0 {
				t.Errorf("%q: %+v, want nothing", c.query, found)
			}
			if !c.valid && (len(v.Problems) == 0 || v.Problems[0].Category != validate.Syntax) {
				t.Errorf("%q: %+v, want a syntax problem", c.query, v.Problems)
			}
			continue
		}
		if len(found) == 0 || !strings.HasPrefix(found[0].Rule, c.rule+" ") || found[0].Line != c.line || found[0].Col != c.col {
			t.Errorf("%q: %+v, want %s at %d:%d", c.query, found, c.rule, c.line, c.col)
		}
	}
}

// Read-only queries written by people raise no error-level problem: the StormEvents
// queries of the KQL documentation and the example suite's 36 generated queries.
func TestKQL_DocsQueriesPass(t *testing.T) {
	path := filepath.Join(testdata.SharedDir(t), "kql", "samples", "stormevents_queries.jsonl")
	f, err := os.Open(path)
	if err != nil {
		t.Skipf("the shared KQL samples are not here (%v)", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n, warned := 0, map[string]int{}
	for sc.Scan() {
		var rec struct{ KQL string }
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		v := validate.Check(rec.KQL, validate.Options{Dialect: "kql", Schema: stormSchema})
		n++
		for _, p := range v.Problems {
			if p.Category != validate.Syntax && p.Category != validate.Other {
				t.Errorf("%q: %+v", rec.KQL, p)
			}
		}
		for _, w := range v.Warnings {
			warned[w.Rule]++
		}
	}
	if n < 100 {
		t.Fatalf("%d queries read", n)
	}
	t.Logf("%d queries; warnings by rule: %v", n, warned)
}
