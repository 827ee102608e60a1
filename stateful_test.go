package qeval_test

import (
	"encoding/json"
	"os"
	"testing"
	"time"

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

type fakeSandbox struct {
	qeval.Sandbox
	closed *int
}

func (f fakeSandbox) Close() error { *f.closed++; return nil }

func TestCloseSandboxes(t *testing.T) {
	closed := 0
	a := qeval.Track(fakeSandbox{closed: &closed})
	qeval.Track(fakeSandbox{closed: &closed})
	a.Close()
	a.Close() // once only
	if n := qeval.CloseSandboxes(time.Second); n != 1 || closed != 2 {
		t.Errorf("CloseSandboxes closed %d (Close called %d times), want 1 and 2", n, closed)
	}
	if n := qeval.CloseSandboxes(time.Second); n != 0 {
		t.Errorf("a second CloseSandboxes closed %d", n)
	}
	if pid, ok := qeval.SandboxOwner(qeval.SandboxName()); !ok || pid != os.Getpid() {
		t.Errorf("SandboxOwner(SandboxName()) = %d, %v", pid, ok)
	}
}
