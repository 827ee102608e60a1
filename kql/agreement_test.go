package kql_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/qeval/qeval/kql"
)

// reference is one line of a *.kusto_language.jsonl file: what Microsoft's parser
// (Kusto.Language) reports for the query on the same line of the corpus.
type reference struct {
	Line        int      `json:"line"`
	ParseErrors int      `json:"parse_errors"`
	Operators   []string `json:"operators"`
	Functions   []string `json:"functions"`
	JoinKinds   []string `json:"join_kinds"`
	Tables      []string `json:"tables"`
	Columns     []string `json:"columns"`
}

func loadReference(tb testing.TB, dir, path string) []reference {
	tb.Helper()
	f, err := os.Open(filepath.Join(dir, path))
	if err != nil {
		tb.Fatalf("open reference: %v", err)
	}
	defer f.Close()
	var out []reference
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for n := 1; sc.Scan(); n++ {
		var r reference
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			tb.Fatalf("%s:%d: %v", path, n, err)
		}
		out = append(out, r)
	}
	return out
}

// lowerSet returns the distinct lower-cased names, sorted.
func lowerSet(names []string) []string {
	out := make([]string, 0, len(names))
	for _, n := range names {
		out = append(out, strings.ToLower(n))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TestTableAgreement compares the tables of ShapeOf with those Kusto.Language
// resolved against the Defender schema; the sets must be equal on at least 98% of the
// queries.
func TestTableAgreement(t *testing.T) {
	dir := dataDir(t)
	qs := loadCorpus(t, dir, "nl2kql/Defender_Evaluation.jsonl", "baseline")
	refs := loadReference(t, dir, "nl2kql/Defender_Evaluation.kusto_language.jsonl")
	if len(qs) != len(refs) {
		t.Fatalf("corpus has %d queries, reference %d lines", len(qs), len(refs))
	}
	agree, colAgree := 0, 0
	for i, q := range qs {
		sh, err := kql.ParseShape(q.KQL)
		if err != nil {
			t.Errorf("%s:%d: %v", q.File, q.Line, err)
			continue
		}
		got, want := lowerSet(sh.Tables), lowerSet(refs[i].Tables)
		if slices.Equal(got, want) {
			agree++
		} else {
			t.Logf("%s:%d: tables %v, reference %v", q.File, q.Line, got, want)
		}
		var cols []string
		for _, c := range sh.Columns {
			cols = append(cols, c.Name)
		}
		if slices.Equal(lowerSet(cols), lowerSet(refs[i].Columns)) {
			colAgree++
		} else if testing.Verbose() {
			t.Logf("%s:%d: columns %v, reference %v", q.File, q.Line, lowerSet(cols), lowerSet(refs[i].Columns))
		}
	}
	rate := float64(agree) / float64(len(qs))
	t.Logf("table agreement %d/%d (%.2f%%); column-set agreement %d/%d (informational)", agree, len(qs), 100*rate, colAgree, len(qs))
	if rate < 0.98 {
		t.Errorf("table agreement %.2f%% < 98%%", 100*rate)
	}
}

// TestOperatorAgreement compares the tabular operators of ShapeOf, in order, with the
// operators Kusto.Language lists for every reference file. The reference also lists
// the let and set statements, which are not tabular operators; they are removed.
func TestOperatorAgreement(t *testing.T) {
	dir := dataDir(t)
	for _, c := range []struct{ corpus, field, ref string }{
		{"samples/community_samples.jsonl", "kql", "samples/community_samples.kusto_language.jsonl"},
		{"samples/stormevents_queries.jsonl", "kql", "samples/stormevents_queries.kusto_language.jsonl"},
		{"nl2kql/Defender_Evaluation.jsonl", "baseline", "nl2kql/Defender_Evaluation.kusto_language.jsonl"},
	} {
		qs := loadCorpus(t, dir, c.corpus, c.field)
		refs := loadReference(t, dir, c.ref)
		agree := 0
		for i, q := range qs {
			sh, _ := kql.ParseShape(q.KQL)
			var want []string
			for _, o := range refs[i].Operators {
				if o != "let" && o != "set" {
					want = append(want, o)
				}
			}
			got := sh.Operators
			if slices.Equal(got, want) {
				agree++
			} else {
				t.Logf("%s:%d: operators %v, reference %v", q.File, q.Line, got, want)
			}
		}
		rate := float64(agree) / float64(len(qs))
		t.Logf("%s: operator agreement %d/%d (%.2f%%)", c.corpus, agree, len(qs), 100*rate)
		if rate < 0.95 {
			t.Errorf("%s: operator agreement %.2f%% < 95%%", c.corpus, 100*rate)
		}
	}
}
