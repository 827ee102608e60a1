package server_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/server"
)

const goldsSuite = `{"name": "golds", "database": "chinook", "cases": [
  {"id": "second", "expected_query": ["SELECT count(*) FROM Artist", "SELECT count(*) FROM Album"], "generated_query": "SELECT count(*) FROM Album"},
  {"id": "none", "expected_query": ["SELECT count(*) FROM Artist", "SELECT count(*) FROM Album"], "generated_query": "SELECT 1"},
  {"id": "one", "expected_query": "SELECT count(*) FROM Artist", "generated_query": "SELECT count(*) FROM Artist"}]}`

// A run's rows and cases say which gold of a case with several matched (issue 38).
func TestRun_SeveralGolds(t *testing.T) {
	ts := MustServer(t, nil)
	id := startRun(t, ts, []byte(goldsSuite), "application/json")
	waitRun(t, ts, id)
	var table server.Table
	do(t, http.MethodGet, ts.URL+"/api/runs/"+id+"/rows", nil).json(t, &table)
	want := map[string][3]any{"second": {"PASS", 2, 2}, "none": {"FAIL", 0, 2}, "one": {"PASS", 0, 0}}
	for _, r := range table.Rows {
		if got := [3]any{r.Status, r.MatchedGold, r.Golds}; got != want[r.ID] {
			t.Errorf("row %s: status, matched gold, golds = %v, want %v", r.ID, got, want[r.ID])
		}
	}
	var c qeval.CaseResult
	do(t, http.MethodGet, ts.URL+"/api/runs/"+id+"/cases/second", nil).json(t, &c)
	if c.MatchedGold != 2 || len(c.ExpectedQueries) != 2 || c.ExpectedQuery != "SELECT count(*) FROM Album" {
		t.Errorf("case second = matched %d, golds %q, expected %q", c.MatchedGold, c.ExpectedQueries, c.ExpectedQuery)
	}
}

// A posted suite with a bad gold list is refused with every problem named.
func TestRun_BadGoldList(t *testing.T) {
	ts := MustServer(t, nil)
	body := `{"name": "bad", "database": "chinook", "cases": [
  {"id": "empty", "expected_query": []},
  {"id": "num", "expected_query": ["SELECT 1", 2]}]}`
	r := do(t, http.MethodPost, ts.URL+"/api/runs", bytes.NewReader([]byte(body)), "Content-Type: application/json")
	msg := string(r.Body)
	if r.Status != http.StatusBadRequest || !strings.Contains(msg, `case \"empty\": field expected_query is an empty list`) ||
		!strings.Contains(msg, `case \"num\": field expected_query: item 2 must be a string (a query), not a number`) {
		t.Errorf("POST a bad gold list = %d %s", r.Status, msg)
	}
}

// The run page says which gold matched: on the case cards and in a case's details,
// which list every gold.
func TestBrowser_SeveralGolds(t *testing.T) {
	b := MustBrowser(t)
	ts := MustServer(t, nil)
	id := startRun(t, ts, []byte(goldsSuite), "application/json")
	waitRun(t, ts, id)
	if err := chromedp.Do(b.ctx, chromedp.Navigate(ts.URL+"/runs/"+id+"#case-second")); err != nil {
		t.Fatal(err)
	}
	detail := poll[string](t, b, "the case's details", `(() => {
		const d = document.querySelector("#case-rows tr.detail");
		return d && d.textContent;
	})()`)
	for _, want := range []string{"Gold query — gold 2 of 2 matched", "All 2 golds", "SELECT count(*) FROM Artist"} {
		if !strings.Contains(detail, want) {
			t.Errorf("case details lack %q:\n%s", want, detail)
		}
	}
	openSection(t, b, "success", 2)
	openSection(t, b, "error", 1)
	if s := b.text(t, "success-list"); !strings.Contains(s, "Gold 2 of 2 matched") || strings.Count(s, "matched") != 1 {
		t.Errorf("Success section:\n%s", s)
	}
	if e := b.text(t, "error-list"); !strings.Contains(e, "None of the 2 golds matched") {
		t.Errorf("Error section:\n%s", e)
	}
	if p := b.consoleErrors(); len(p) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(p, "\n"))
	}
}
