package server_test

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qeval/qeval/server"
	"github.com/qeval/qeval/sqlite"
)

// A case the store cannot hold, and a report it cannot hold, do not leave the run
// "running" forever: the case is kept as an ERROR saying why, the others are kept,
// and the run ends saying the report could not be stored.
func TestRuns_StoreRefuses(t *testing.T) {
	ts := MustServer(t, nil)
	db, err := sqlite.OpenStore(filepath.Join(ts.cfg.DataDir, "runs.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		// what SQLite says of a value past its length limit, for one case and for reports
		`CREATE TRIGGER refuse_case BEFORE INSERT ON cases WHEN instr(CAST(NEW.result AS TEXT), 'FROM Artist') > 0
		 BEGIN SELECT RAISE(ABORT, 'string or blob too big'); END`,
		`CREATE TRIGGER refuse_report BEFORE UPDATE OF report ON runs WHEN NEW.report IS NOT NULL
		 BEGIN SELECT RAISE(ABORT, 'string or blob too big'); END`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	body := `{"name": "store", "database": "chinook", "cases": [
		{"id": "a", "expected_query": "SELECT count(*) FROM Genre", "generated_query": "SELECT count(*) FROM Genre"},
		{"id": "poison", "expected_query": "SELECT count(*) FROM Artist", "generated_query": "SELECT count(*) FROM Artist"},
		{"id": "c", "expected_query": "SELECT count(*) FROM Album", "generated_query": "SELECT count(*) FROM Album"}]}`
	id := startRun(t, ts, []byte(body), "application/json")
	v := waitRun(t, ts, id)
	if v.Status != server.StatusFailed || !strings.Contains(v.Error, "the report could not be stored") {
		t.Fatalf("run: status %s, error %q; want failed, saying the report could not be stored", v.Status, v.Error)
	}
	// a new server on the same store sees the run ended, with its three cases
	ts.Server.Close()
	s2, err := server.New(ts.cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	hs := httptest.NewServer(s2.Handler())
	defer hs.Close()
	r := do(t, http.MethodGet, hs.URL+"/api/runs/"+id, nil)
	var got server.RunView
	r.json(t, &got)
	if got.Status != server.StatusFailed || len(got.Cases) != 3 {
		t.Fatalf("stored run: status %s, %d cases: %s", got.Status, len(got.Cases), r.Body)
	}
	byID := map[string]string{}
	for _, c := range got.Cases {
		for _, id := range []string{"a", "poison", "c"} {
			if strings.Contains(string(c), `"id":"`+id+`"`) {
				byID[id] = string(c)
			}
		}
	}
	if p := byID["poison"]; !strings.Contains(p, `"status":"ERROR"`) || !strings.Contains(p, "could not be stored: string or blob too big") {
		t.Errorf("the case the store refused: %s", p)
	}
	for _, id := range []string{"a", "c"} {
		if !strings.Contains(byID[id], `"status":"PASS"`) {
			t.Errorf("case %s: %s", id, byID[id])
		}
	}
}
