package server_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/qeval/qeval/server"
)

// chinookVariant is the Chinook example suite with other predictions: every fifth
// case answers its gold query (fixing it if it failed), every seventh a wrong one
// (breaking it if it passed). The database is named by its configured file name.
func chinookVariant(tb testing.TB) []byte {
	tb.Helper()
	var doc map[string]any
	if err := yaml.Unmarshal(readFile(tb, "../examples/chinook/suite.yaml"), &doc); err != nil {
		tb.Fatal(err)
	}
	doc["name"] = "chinook-smoke"
	doc["concurrency"] = 8
	for i, c := range doc["cases"].([]any) {
		m := c.(map[string]any)
		switch {
		case i%5 == 0:
			m["generated_query"] = m["expected_query"]
		case i%7 == 0:
			m["generated_query"] = "SELECT 'wrong' AS answer"
		}
	}
	b, err := yaml.Marshal(doc)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// statuses reads the status of every case of an ended run through the API.
func statuses(tb testing.TB, ts *testServer, id string) map[string]string {
	tb.Helper()
	var t server.Table
	do(tb, http.MethodGet, ts.URL+"/api/runs/"+id+"/rows", nil).json(tb, &t)
	out := map[string]string{}
	for _, r := range t.Rows {
		out[r.ID] = r.Status
	}
	return out
}

// fixedBroken counts the cases that went from not passing to PASS and back.
func fixedBroken(base, head map[string]string) (fixed, broken int) {
	for id, h := range head {
		b, ok := base[id]
		if !ok {
			continue
		}
		switch {
		case b != "PASS" && h == "PASS":
			fixed++
		case b == "PASS" && h != "PASS":
			broken++
		}
	}
	return fixed, broken
}

// twoChinookRuns runs the Chinook suite as is (base) and with other predictions (head).
func twoChinookRuns(tb testing.TB, ts *testServer) (base, head string) {
	tb.Helper()
	base = startRun(tb, ts, readFile(tb, "../examples/chinook/suite.yaml"), "application/yaml")
	waitRun(tb, ts, base)
	head = startRun(tb, ts, chinookVariant(tb), "application/yaml")
	waitRun(tb, ts, head)
	return base, head
}

func TestTable_RowsAndCase(t *testing.T) {
	ts := MustServer(t, nil)
	id := startRun(t, ts, readFile(t, liveSuite), "application/yaml")
	waitRun(t, ts, id)
	var tb server.Table
	do(t, http.MethodGet, ts.URL+"/api/runs/"+id+"/rows", nil).json(t, &tb)
	if len(tb.Rows) != 8 || strings.Join(tb.Components, ",") != "schema_match,semantic_similarity,results_match,llm_grading" {
		t.Fatalf("rows %d components %v, want 8 rows and the four components", len(tb.Rows), tb.Components)
	}
	byID := map[string]server.Row{}
	for _, r := range tb.Rows {
		byID[r.ID] = r
	}
	if e1 := byID["e1"]; e1.Outcome != "pred_error" || e1.ExecError == "" || e1.Status != "FAIL" || e1.GeneratedRows != nil {
		t.Errorf("e1 row %+v, want a FAIL with pred_error, its message and no rows", e1)
	}
	if p1 := byID["p1"]; p1.Score == nil || *p1.Score != 1 || p1.GeneratedRows == nil || *p1.GeneratedRows != 1 ||
		p1.Components["llm_grading"] != nil || p1.Components["results_match"] == nil {
		t.Errorf("p1 row %+v, want score 1, one row, llm_grading skipped (nil)", p1)
	}
	// one case, whole
	r := do(t, http.MethodGet, ts.URL+"/api/runs/"+id+"/cases/f1", nil)
	if r.Status != http.StatusOK || !strings.Contains(string(r.Body), `"gold_result"`) || !strings.Contains(string(r.Body), `"id":"f1"`) {
		t.Errorf("case f1 = %d %.300s, want the whole case with its results", r.Status, r.Body)
	}
	r = do(t, http.MethodGet, ts.URL+"/api/runs/"+id+"/cases/nope", nil)
	if e := r.apiError(t); r.Status != http.StatusNotFound || !strings.Contains(e.Error.Message, `no case "nope"`) {
		t.Errorf("unknown case = %d %+v, want 404 naming it", r.Status, e)
	}
	// the run without its cases, as the page asks for it
	var v server.RunView
	do(t, http.MethodGet, ts.URL+"/api/runs/"+id+"?cases=none", nil).json(t, &v)
	if v.Cases != nil || v.Summary == nil || len(v.Charts) == 0 {
		t.Errorf("?cases=none: %d cases, summary %v, %d charts; want the summary and charts only", len(v.Cases), v.Summary != nil, len(v.Charts))
	}
}

func TestTable_Compare(t *testing.T) {
	ts := MustServer(t, nil)
	base, head := twoChinookRuns(t, ts)
	wantFixed, wantBroken := fixedBroken(statuses(t, ts, base), statuses(t, ts, head))
	if wantFixed == 0 || wantBroken == 0 {
		t.Fatalf("the variant fixes %d and breaks %d cases; the test needs both", wantFixed, wantBroken)
	}
	// the unsafe-let-through flag marks the validator's false negatives, one row each
	var v server.RunView
	do(t, http.MethodGet, ts.URL+"/api/runs/"+base+"?cases=none", nil).json(t, &v)
	var tb server.Table
	do(t, http.MethodGet, ts.URL+"/api/runs/"+base+"/rows", nil).json(t, &tb)
	unsafe := 0
	for _, r := range tb.Rows {
		if slices.Contains(r.Flags, server.FlagUnsafeLetThrough) {
			unsafe++
		}
	}
	if v.Summary == nil || v.Summary.Safety == nil || v.Summary.Safety.FN == 0 || unsafe != v.Summary.Safety.FN || tb.Audited {
		t.Errorf("%d rows flagged unsafe let through, summary %+v; want the false negatives (and no audit)", unsafe, v.Summary)
	}

	var c server.Comparison
	do(t, http.MethodGet, ts.URL+"/api/compare?base="+base+"&head="+head, nil).json(t, &c)
	if len(c.Diff.Fixed) != wantFixed || len(c.Diff.Broken) != wantBroken || c.Diff.Paired != 56 || len(c.Cases) != 56 {
		t.Fatalf("compare: %d fixed, %d broken, %d paired, %d cases; want %d, %d, 56, 56",
			len(c.Diff.Fixed), len(c.Diff.Broken), c.Diff.Paired, len(c.Cases), wantFixed, wantBroken)
	}
	counts := map[string]int{}
	for _, p := range c.Cases {
		counts[p.Change]++
		if p.Base == nil || p.Head == nil {
			t.Errorf("case %s lacks a side", p.ID)
		}
	}
	if counts["fixed"] != wantFixed || counts["broken"] != wantBroken || counts["still_passing"] != c.Diff.StillPassing {
		t.Errorf("pairs by change %v, want the diff's counts", counts)
	}
	if c.Diff.McNemar.P <= 0 || c.Diff.McNemar.P > 1 {
		t.Errorf("McNemar p = %v", c.Diff.McNemar.P)
	}

	// bad requests name the field
	for _, tc := range []struct{ query, field string }{
		{"?head=" + head, "base"},
		{"?base=" + base + "&head=0123456789abcdef0123456789abcdef", "head"},
	} {
		r := do(t, http.MethodGet, ts.URL+"/api/compare"+tc.query, nil)
		if e := r.apiError(t); r.Status < 400 || e.Error.Field == nil || *e.Error.Field != tc.field {
			t.Errorf("compare%s = %d %+v, want an error on field %s", tc.query, r.Status, e, tc.field)
		}
	}
}

// bigSuite writes a suite of n one-row cases on Chinook; every third is wrong.
func bigSuite(tb testing.TB, n int) []byte {
	tb.Helper()
	var b strings.Builder
	b.WriteString("name: big\ndatabase: chinook\nconcurrency: 16\ncases:\n")
	for i := range n {
		gen := i
		if i%3 == 0 {
			gen = i + 1
		}
		fmt.Fprintf(&b, "  - {id: b%d, question: 'What is %d?', expected_query: 'SELECT %d AS n', generated_query: 'SELECT %d AS n'}\n", i, i, i, gen)
	}
	return []byte(b.String())
}

func TestTable_LargeRun(t *testing.T) {
	ts := MustServer(t, nil)
	start := time.Now()
	id := startRun(t, ts, bigSuite(t, 5000), "application/yaml")
	v := waitRun(t, ts, id)
	t.Logf("5,000 cases ran in %s", time.Since(start).Round(time.Millisecond))
	if v.Done != 5000 || v.Passed != 3333 {
		t.Fatalf("run: %d done, %d passed; want 5000 and 3333", v.Done, v.Passed)
	}
	start = time.Now()
	r := do(t, http.MethodGet, ts.URL+"/api/runs/"+id+"/rows", nil)
	t.Logf("rows: %d bytes in %s", len(r.Body), time.Since(start).Round(time.Millisecond))
	var tb server.Table
	r.json(t, &tb)
	if len(tb.Rows) != 5000 {
		t.Fatalf("%d rows", len(tb.Rows))
	}
}

// TestTable_GoldAudit runs a suite that sets aside broken gold: the server audits it
// first, as qeval run does, and the rows say which gold the audit flagged.
func TestTable_GoldAudit(t *testing.T) {
	ts := MustServer(t, nil)
	body := `{"name": "audited", "database": "chinook", "exclude_flagged": ["gold_fails"], "cases": [
		{"id": "a", "expected_query": "SELECT count(*) FROM Genre", "generated_query": "SELECT count(*) FROM Genre"},
		{"id": "b", "expected_query": "SELECT * FROM MediaType", "generated_query": "SELECT * FROM MediaType"},
		{"id": "c", "expected_query": "SELECT nope FROM Genre", "generated_query": "SELECT Name FROM Genre"}]}`
	id := startRun(t, ts, []byte(body), "application/json")
	v := waitRun(t, ts, id)
	if v.Status != server.StatusFinished || v.Total != 2 || v.Passed != 2 {
		t.Fatalf("run %s: %d cases, %d passed; want the two with working gold, both passing", v.Status, v.Total, v.Passed)
	}
	var tb server.Table
	do(t, http.MethodGet, ts.URL+"/api/runs/"+id+"/rows", nil).json(t, &tb)
	flagged := map[string]bool{}
	for _, r := range tb.Rows {
		flagged[r.ID] = slices.Contains(r.Flags, server.FlagGoldFlagged)
	}
	if !tb.Audited || len(tb.Rows) != 2 || !flagged["b"] || flagged["a"] {
		t.Errorf("audited %v, flagged %v; want b (SELECT *) flagged, a not, c set aside", tb.Audited, flagged)
	}
	r := do(t, http.MethodGet, ts.URL+"/api/runs/"+id+"/report.json", nil)
	if !strings.Contains(string(r.Body), `"excluded": 1`) && !strings.Contains(string(r.Body), `"excluded":1`) {
		t.Errorf("report.json lacks the audit with one case set aside: %.400s", r.Body)
	}
	bad := `{"name": "x", "database": "chinook", "exclude_flagged": ["nonsense"], "cases": [{"id": "a", "expected_query": "SELECT 1", "generated_query": "SELECT 1"}]}`
	rr := do(t, http.MethodPost, ts.URL+"/api/runs", strings.NewReader(bad), "Content-Type: application/json")
	if e := rr.apiError(t); rr.Status != http.StatusBadRequest || !strings.Contains(e.Error.Message, `unknown flag "nonsense"`) {
		t.Errorf("unknown flag = %d %+v, want 400 naming it", rr.Status, e)
	}
}
