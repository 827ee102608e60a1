package qeval_test

import (
	"testing"

	"github.com/qeval/qeval"
)

func TestSuite_PredictionDatabaseFor(t *testing.T) {
	s := &qeval.Suite{PredictionDatabase: "duckdb:mirror/{db}.duckdb"}
	for db, want := range map[string]string{
		"../spider/database/concert_singer/concert_singer.sqlite": "duckdb:mirror/concert_singer.duckdb",
		"spider/database/pets_1/":                                 "duckdb:mirror/pets_1.duckdb",
		"chinook":                                                 "duckdb:mirror/chinook.duckdb",
		"":                                                        "",
	} {
		if got := s.PredictionDatabaseFor(db); got != want {
			t.Errorf("PredictionDatabaseFor(%q) = %q, want %q", db, got, want)
		}
	}
	fixed := &qeval.Suite{PredictionDatabase: "postgres://x/db"}
	if got := fixed.PredictionDatabaseFor("a.sqlite"); got != "postgres://x/db" {
		t.Errorf("without {db}: %q", got)
	}
}
