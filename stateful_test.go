package qeval_test

import (
	"encoding/json"
	"testing"

	"github.com/qeval/qeval"
)

func TestStateCompare_JSONRoundTrip(t *testing.T) {
	for _, text := range []string{`"all"`, `["a","b"]`, `{"tables":"all","ordered":true}`, `{"tables":["t"],"ordered":true}`} {
		var sc qeval.StateCompare
		if err := json.Unmarshal([]byte(text), &sc); err != nil {
			t.Fatalf("Unmarshal(%s): %v", text, err)
		}
		out, err := json.Marshal(sc)
		if err != nil || string(out) != text {
			t.Errorf("Marshal(Unmarshal(%s)) = %s, %v", text, out, err)
		}
	}
	for _, bad := range []string{`"some"`, `[]`, `[1]`, `{"ordered":true}`, `{"tables":"all","ordered":"yes"}`, `7`} {
		var sc qeval.StateCompare
		if err := json.Unmarshal([]byte(bad), &sc); err == nil {
			t.Errorf("Unmarshal(%s) = %+v, want an error", bad, sc)
		}
	}
}

func TestCase_Stateful(t *testing.T) {
	plain := qeval.Case{ExpectedQuery: "SELECT 1"}
	if plain.Stateful() || plain.CheckStateful() != nil {
		t.Errorf("a plain case is stateful")
	}
	c := qeval.Case{ExpectedQuery: "DELETE FROM t", Efficiency: &qeval.Efficiency{MaxRatio: -1}, Checks: qeval.Statements{" "}}
	if !c.Stateful() || len(c.CheckStateful()) != 2 {
		t.Errorf("CheckStateful() = %q, want 2 problems", c.CheckStateful())
	}
}
