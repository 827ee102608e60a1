package exactmatch_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/exactmatch"
	"github.com/qeval/qeval/internal/testdata"
	"github.com/qeval/qeval/sqlite"
)

var parsitySets = []string{"gold_as_pred", "dailsql_gpt4", "c3_chatgpt", "graphix", "dinsql_gpt4_zero_shot", "spider_pred_example"}

type oracleLine struct {
	DBID       string `json:"db_id"`
	Exact      int    `json:"exact"`
	PredParsed bool   `json:"pred_parsed"`
	Pred       string `json:"pred"`
	Gold       string `json:"gold"`
	Hardness   string `json:"hardness"`
}

type oracleEM struct {
	Index    int                           `json:"index"`
	Exact    int                           `json:"exact"`
	Hardness string                        `json:"hardness"`
	Partial  map[string]map[string]float64 `json:"partial"`
}

// schemas reads each Spider database's schema once.
type schemas struct {
	dir string
	m   map[string]*exactmatch.Schema
}

func (s *schemas) get(t testing.TB, db string) *exactmatch.Schema {
	if sc, ok := s.m[db]; ok {
		return sc
	}
	e, err := sqlite.Open(filepath.Join(s.dir, db, db+".sqlite"), qeval.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	qs, err := e.Schema(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	sc := exactmatch.NewSchema(qs)
	s.m[db] = sc
	return sc
}

// spiderSchemas reads the Spider foreign keys and readies the schemas of its
// databases (each read on first use) under the shared data folder.
func spiderSchemas(tb testing.TB, data string) (exactmatch.ForeignKeys, *schemas) {
	tb.Helper()
	fks, err := exactmatch.LoadForeignKeys(filepath.Join(data, "spider", "tables.json"))
	if err != nil {
		tb.Fatal(err)
	}
	return fks, &schemas{dir: filepath.Join(data, "spider", "database"), m: map[string]*exactmatch.Schema{}}
}

// TestParity checks every per-item exact-set-match verdict, parse outcome and partial
// score against the official evaluator's own output on the shared prediction sets.
func TestParity(t *testing.T) {
	data := testdata.SharedDir(t)
	fks, dbs := spiderSchemas(t, data)
	for _, set := range parsitySets {
		t.Run(set, func(t *testing.T) {
			lines := testdata.ReadJSONL[oracleLine](t, filepath.Join(data, "spider", "oracle", set+".jsonl"))
			em := testdata.ReadJSONL[oracleEM](t, filepath.Join(data, "spider", "oracle_em", set+".jsonl"))
			if len(lines) != 972 || len(em) != 972 {
				t.Fatalf("%d oracle lines and %d exact-match lines, want 972 each", len(lines), len(em))
			}
			bad, right := 0, 0
			for i, o := range lines {
				if g, err := exactmatch.Parse(dbs.get(t, o.DBID), o.Gold); err != nil {
					t.Errorf("item %d: gold: %v", i, err)
				} else if h := exactmatch.Hardness(g); h != o.Hardness {
					t.Errorf("item %d: hardness %s, official %s", i, h, o.Hardness)
				}
				r, err := exactmatch.Match(dbs.get(t, o.DBID), fks[o.DBID], o.Gold, o.Pred)
				if err != nil {
					t.Errorf("item %d: gold: %v", i, err)
					continue
				}
				if r.Exact {
					right++
				}
				diff := ""
				if (em[i].Exact == 1) != r.Exact {
					diff += fmt.Sprintf(" exact %v, official %d;", r.Exact, em[i].Exact)
				}
				if o.PredParsed != (r.ParseError == "") {
					diff += fmt.Sprintf(" parsed %v (%s), official %v;", r.ParseError == "", r.ParseError, o.PredParsed)
				}
				for _, c := range exactmatch.Components {
					got, want := r.Partial[c], em[i].Partial[c]
					if got.Acc != want["acc"] || got.Rec != want["rec"] || got.F1 != want["f1"] {
						diff += fmt.Sprintf(" %s %v/%v/%v, official %v/%v/%v;", c, got.Acc, got.Rec, got.F1, want["acc"], want["rec"], want["f1"])
					}
				}
				if diff != "" {
					bad++
					if bad <= 15 {
						t.Errorf("item %d (%s):%s\n  pred: %s\n  gold: %s", i, o.DBID, diff, o.Pred, o.Gold)
					}
				}
			}
			if bad > 0 {
				t.Errorf("%d of 972 items differ from the official evaluator", bad)
			}
			t.Logf("%s: %d/972 exact", set, right)
		})
	}
}

// TestParity_Mutations checks the exact-set-match verdicts, parse outcomes, hardness
// and partial scores against the official evaluator's on 1,405 predictions made by
// editing real ones at random (internal/testdata.Mutation): the rarer paths of its
// tokenizer and parser that the model sets do not reach.
func TestParity_Mutations(t *testing.T) {
	data := testdata.SharedDir(t)
	fks, dbs := spiderSchemas(t, data)
	ms := testdata.SpiderMutations(t)
	bad, unparsed := 0, 0
	for i, m := range ms {
		r, err := exactmatch.Match(dbs.get(t, m.DBID), fks[m.DBID], m.Gold, m.Pred)
		if err != nil {
			t.Errorf("item %d: gold: %v", i, err)
			continue
		}
		if !m.Parsed {
			unparsed++
		}
		diff := ""
		if (m.Exact == 1) != r.Exact {
			diff += fmt.Sprintf(" exact %v, official %d;", r.Exact, m.Exact)
		}
		if m.Parsed != (r.ParseError == "") {
			diff += fmt.Sprintf(" parsed %v (%s), official %v;", r.ParseError == "", r.ParseError, m.Parsed)
		}
		if r.Hardness != m.Hardness {
			diff += fmt.Sprintf(" hardness %s, official %s;", r.Hardness, m.Hardness)
		}
		for _, c := range exactmatch.Components {
			got, want := r.Partial[c], m.Partial[c]
			if got.Acc != want[0] || got.Rec != want[1] || got.F1 != want[2] {
				diff += fmt.Sprintf(" %s %v/%v/%v, official %v;", c, got.Acc, got.Rec, got.F1, want)
			}
		}
		if diff != "" {
			if bad++; bad <= 15 {
				t.Errorf("item %d (%s):%s\n  pred: %s\n  gold: %s", i, m.DBID, diff, m.Pred, m.Gold)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d items differ from the official evaluator", bad, len(ms))
	}
	t.Logf("%d items, %d unreadable to the official parser", len(ms), unparsed)
}
