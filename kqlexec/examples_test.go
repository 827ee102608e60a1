package kqlexec_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/kqlexec"
)

type exampleSuite struct {
	Dialect  string `yaml:"dialect"`
	Database string `yaml:"database"`
	Cases    []struct {
		ID        string   `yaml:"id"`
		Expected  string   `yaml:"expected_query"`
		Generated string   `yaml:"generated_query"`
		Tags      []string `yaml:"tags"`
		Validator struct {
			IsValid bool `yaml:"is_valid"`
		} `yaml:"validator"`
	} `yaml:"cases"`
}

func moduleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..")
}

// TestExamples_StormEventsSuite runs every case of examples/kql/suite.yaml on the local
// engine: each expected query runs; each generated query runs unless its validator
// marks it invalid (then it fails as a query error); and the two give the same rows
// exactly when the case carries no mistake-* tag.
func TestExamples_StormEventsSuite(t *testing.T) {
	dir := filepath.Join(moduleRoot(), "examples", "kql")
	b, err := os.ReadFile(filepath.Join(dir, "suite.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var s exampleSuite
	if err := yaml.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if s.Dialect != "kql" || len(s.Cases) < 30 {
		t.Fatalf("suite: dialect %q with %d cases, want kql with at least 30", s.Dialect, len(s.Cases))
	}
	e, err := kqlexec.Open(filepath.Join(dir, s.Database), kqlexec.Options{Now: time.Date(2008, 1, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	for _, c := range s.Cases {
		t.Run(c.ID, func(t *testing.T) {
			gold, err := e.Query(ctx, c.Expected)
			if err != nil {
				t.Fatalf("expected query failed: %v", err)
			}
			if gold.NumRows() == 0 {
				t.Errorf("expected query returned no rows; the case says nothing")
			}
			pred, err := e.Query(ctx, c.Generated)
			if !c.Validator.IsValid {
				if qeval.ErrorCode(err) != qeval.CodeQuery {
					t.Fatalf("generated query: error %v (code %q), want a query error", err, qeval.ErrorCode(err))
				}
				return
			}
			if err != nil {
				t.Fatalf("generated query failed: %v", err)
			}
			mistake := false
			for _, tag := range c.Tags {
				mistake = mistake || strings.HasPrefix(tag, "mistake-")
			}
			if same := sameBag(gold, pred); same == mistake {
				t.Errorf("results equal = %v, but the case is tagged mistake = %v\ngold: %v\npred: %v", same, mistake, gold.Head(3).Rows, pred.Head(3).Rows)
			}
		})
	}
}

// sameBag compares the rows of two results as multisets, ignoring column names.
func sameBag(a, b *qeval.ResultSet) bool {
	if len(a.Columns) != len(b.Columns) || a.NumRows() != b.NumRows() {
		return false
	}
	key := func(rs *qeval.ResultSet) []string {
		out := make([]string, len(rs.Rows))
		for i, r := range rs.Rows {
			parts := make([]string, len(r))
			for j, v := range r {
				parts[j] = v.Kind.String() + ":" + v.String()
			}
			out[i] = strings.Join(parts, "\x1f")
		}
		sort.Strings(out)
		return out
	}
	ka, kb := key(a), key(b)
	for i := range ka {
		if ka[i] != kb[i] {
			return false
		}
	}
	return true
}

// union with a wildcard reads every loaded table whose name matches; a wildcard that
// matches nothing is an error naming it.
func TestExamples_UnionWildcardTables(t *testing.T) {
	e := mustOpen(t, filepath.Join(moduleRoot(), "examples", "kql", "stormevents"))
	checkQueries(t, e, []queryCase{
		{"Prefix", "union Storm* | count", "Count", []string{"5000"}},
		{"Two", "union Storm*, Pop* | count", "Count", []string{"5052"}},
		{"All", "union * | count", "Count", []string{"5052"}},
		// top-nested with others: the top N and one row for the rest, whose aggregate makes
		// up the whole (per parent on a nested level)
		{"TopNestedOthers", `StormEvents | top-nested 3 of State with others="OtherStates" by total = sum(DamageProperty) | summarize n = count(), s = sum(total), o = countif(State == "OtherStates")`,
			"n,s,o", []string{"4|2477706357|1"}},
		{"TopNestedOthersNested", `StormEvents | top-nested 2 of State by c = count(), top-nested 1 of EventType with others="Other" by k = count()
			| summarize rows = count(), total = sum(k), c = max(c) by State | summarize states = count(), whole = countif(rows == 2 and total == c)`, "states,whole", []string{"2|2"}},
		// find over every loaded table, and over a wildcard
		{"FindTerm", `find "Kansas" | count`, "Count", []string{"82"}}, // as union * | where * has "Kansas"
		{"FindWildcard", `find in (Storm*) where State == "KANSAS" project State | summarize count() by source_`, "source_,count_", []string{"StormEvents|81"}},
		// table() of a function's argument (the reference's table-function example)
		{"TableOfArgument", "let foo = (tableName:string) { table(tableName) | count }; foo('StormEvents')", "Count", []string{"5000"}},
	})
	if _, err := e.Query(context.Background(), "union Nothing* | count"); err == nil || !strings.Contains(err.Error(), "Nothing*") {
		t.Errorf("a wildcard matching nothing: %v", err)
	}
}
