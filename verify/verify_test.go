package verify_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/compare"
	"github.com/qeval/qeval/sqlite"
	"github.com/qeval/qeval/testsuite"
	"github.com/qeval/qeval/verify"
)

// club is a small database: members with an optional age, teams, and a membership
// table whose keys the schema declares.
const clubSchema = `
CREATE TABLE team (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, city TEXT);
CREATE TABLE member (id INTEGER PRIMARY KEY, name TEXT NOT NULL, age INT, team_id INT REFERENCES team(id));`

func mustClub(tb testing.TB) string {
	tb.Helper()
	dir := tb.TempDir()
	path := qeval.BenchmarkFile(dir, "club")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	w, err := sqlite.Create(path, clubSchema)
	if err != nil {
		tb.Fatal(err)
	}
	I, T := qeval.Int, qeval.Text
	if _, err := w.Insert("team", []string{"id", "name", "city"}, [][]qeval.Value{{I(1), T("Owls"), T("Leeds")}, {I(2), T("Cats"), T("York")}}); err != nil {
		tb.Fatal(err)
	}
	if _, err := w.Insert("member", []string{"id", "name", "age", "team_id"}, [][]qeval.Value{
		{I(1), T("Ann"), I(30), I(1)}, {I(2), T("Bob"), I(41), I(2)}, {I(3), T("Cid"), I(25), I(1)}}); err != nil {
		tb.Fatal(err)
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return path
}

func newVerifier(tb testing.TB, out string) *verify.Verifier {
	tb.Helper()
	v, err := verify.New(verify.Options{Mode: compare.SpiderTS, Out: out, Open: sqlite.OfficialOpener, Seed: 1,
		Create: func(p, l string) (testsuite.TableWriter, error) { return sqlite.CreateLike(p, l) }, Check: sqlite.Check})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { v.Close() })
	return v
}

func TestVerify_Counterexample(t *testing.T) {
	db := mustClub(t)
	out := t.TempDir()
	v := newVerifier(t, out)
	cases := []struct{ name, gold, pred string }{
		// equal on the original (every age is above 20), not in general
		{"BoundaryDropped", "SELECT name FROM member WHERE age > 20", "SELECT name FROM member"},
		// NULL ages: count(age) and count(*) differ
		{"NullCount", "SELECT count(age) FROM member", "SELECT count(*) FROM member"},
		// a second member named the same: grouping by name merges them
		{"GroupByName", "SELECT name, count(*) FROM member GROUP BY id", "SELECT name, count(*) FROM member GROUP BY name"},
		// a team without members
		{"InnerJoin", "SELECT name FROM team", "SELECT DISTINCT T1.name FROM team AS T1 JOIN member AS T2 ON T1.id = T2.team_id"},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			id := string(rune('a' + i))
			r := v.Verify(context.Background(), qeval.VerifyPair{ID: id, DBID: "club", Database: db, Gold: c.gold, Pred: c.pred})
			if r.Status != qeval.VerifyCounterexample {
				t.Fatalf("Verify=%s (%s), want counterexample", r.Status, r.Reason)
			}
			if r.Counterexample != filepath.Join(out, id+".sqlite") {
				t.Errorf("counterexample at %q, want %q", r.Counterexample, filepath.Join(out, id+".sqlite"))
			}
			if err := sqlite.Check(r.Counterexample); err != nil {
				t.Errorf("the counterexample fails its checks: %v", err)
			}
			// the official rules, on that database alone, tell the two apart
			ex, err := sqlite.OfficialOpener(r.Counterexample, qeval.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			defer ex.Close()
			g, p, ordered := compare.SpiderTS.Prepare(c.gold, c.pred, compare.Options{})
			gr, err1 := ex.Query(context.Background(), g)
			pr, err2 := ex.Query(context.Background(), p)
			if err1 != nil || err2 != nil || compare.SpiderTS.Equal(gr, pr, ordered) {
				t.Errorf("the queries do not differ on the counterexample (%v, %v)", err1, err2)
			}
			doc, err := verify.ReadCounterexample(r.Counterexample)
			if err != nil {
				t.Fatal(err)
			}
			if doc.Gold != c.gold || doc.Pred != c.pred || doc.RowsAfter == 0 || doc.RowsAfter > 6 || len(doc.Inserts) != doc.RowsAfter {
				t.Errorf("counterexample file: gold %q pred %q, %d rows (%d inserts), want the pair and 1 to 6 rows", doc.Gold, doc.Pred, doc.RowsAfter, len(doc.Inserts))
			}
			if doc.Explanation.Equal {
				t.Errorf("the explanation says the results are equal")
			}
		})
	}
}

func TestVerify_GoldAsPrediction(t *testing.T) {
	db := mustClub(t)
	out := t.TempDir()
	v := newVerifier(t, out)
	for i, q := range []string{"SELECT name FROM member WHERE age > 20", "SELECT T1.name, count(*) FROM team AS T1 JOIN member AS T2 ON T1.id = T2.team_id GROUP BY T1.id ORDER BY count(*) DESC LIMIT 1"} {
		pred := " " + q + " ;"
		r := v.Verify(context.Background(), qeval.VerifyPair{ID: string(rune('a' + i)), DBID: "club", Database: db, Gold: q, Pred: pred})
		if r.Status != qeval.VerifyEquivalent || r.Bound != qeval.DefaultVerifyBound {
			t.Errorf("Verify(%q, itself)=%s bound %d (%s), want equivalent_up_to_k bound %d", q, r.Status, r.Bound, r.Reason, qeval.DefaultVerifyBound)
		}
	}
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		if e.Name() != ".work" {
			t.Errorf("%s written for a gold as its own prediction", e.Name())
		}
	}
}

// TestVerify_NoCounterexample: an equivalent pair the search cannot tell apart, with
// no complete check, is no_counterexample_found — never equivalent.
func TestVerify_NoCounterexample(t *testing.T) {
	db := mustClub(t)
	v := newVerifier(t, "")
	r := v.Verify(context.Background(), qeval.VerifyPair{ID: "x", DBID: "club", Database: db,
		Gold: "SELECT name FROM member WHERE age > 20", Pred: "SELECT name FROM member WHERE 20 < age"})
	want := testsuite.DefaultSearchTries + verify.DefaultWideTries
	if r.Status != qeval.VerifyNoCounterexample || r.Bound != 0 || r.Tries != want {
		t.Errorf("Verify=%s bound %d tries %d (%s), want no_counterexample_found after %d tries", r.Status, r.Bound, r.Tries, r.Reason, want)
	}
}

// TestVerify_ModeNotModelled: under a comparison mode the complete check does not
// model (bag@1 compares values normalised), no proof is claimed.
func TestVerify_ModeNotModelled(t *testing.T) {
	db := mustClub(t)
	m, err := compare.Lookup("bag")
	if err != nil {
		t.Fatal(err)
	}
	v, err := verify.New(verify.Options{Mode: m, Open: sqlite.OfficialOpener, Seed: 1, MaxTries: 2, WideTries: -1,
		Create: func(p, l string) (testsuite.TableWriter, error) { return sqlite.CreateLike(p, l) }, Check: sqlite.Check,
		Prover: fakeProver{verify.Proof{Equivalent: true}}})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	r := v.Verify(context.Background(), qeval.VerifyPair{ID: "m", DBID: "club", Database: db,
		Gold: "SELECT name FROM member WHERE age > 20", Pred: "SELECT name FROM member WHERE 20 < age"})
	if r.Status != qeval.VerifyUnsupported || !strings.Contains(r.Reason, "bag@1") {
		t.Errorf("Verify=%s (%s), want unsupported naming the mode", r.Status, r.Reason)
	}
}

// TestVerify_Wide: a difference that needs more rows than the bound (the city of the
// team with most members against the city with most members: two teams of one city
// must together overtake a third, 7 members at least) is found by the search on
// databases of a test suite's size, after the small ones (4 here, of 1 to 4 rows
// per table) and before the proof.
func TestVerify_Wide(t *testing.T) {
	db := mustClub(t)
	gold := "SELECT T2.city FROM member AS T1 JOIN team AS T2 ON T1.team_id = T2.id GROUP BY T1.team_id ORDER BY count(*) DESC LIMIT 1"
	pred := "SELECT T2.city FROM member AS T1 JOIN team AS T2 ON T1.team_id = T2.id GROUP BY T2.city ORDER BY count(*) DESC LIMIT 1"
	for _, c := range []struct {
		wide int
		want qeval.VerifyStatus
	}{{-1, qeval.VerifyEquivalent}, {0, qeval.VerifyCounterexample}} {
		v, err := verify.New(verify.Options{Mode: compare.SpiderTS, Open: sqlite.OfficialOpener, Seed: 1, MaxTries: 4, WideTries: c.wide,
			Create: func(p, l string) (testsuite.TableWriter, error) { return sqlite.CreateLike(p, l) }, Check: sqlite.Check,
			Prover: fakeProver{verify.Proof{Equivalent: true}}})
		if err != nil {
			t.Fatal(err)
		}
		r := v.Verify(context.Background(), qeval.VerifyPair{ID: "w", DBID: "club", Database: db, Gold: gold, Pred: pred})
		v.Close()
		if r.Status != c.want {
			t.Errorf("WideTries %d: Verify=%s (%s), want %s", c.wide, r.Status, r.Reason, c.want)
		}
	}
}

// fakeProver answers every pair the same.
type fakeProver struct{ proof verify.Proof }

func (f fakeProver) Prove(context.Context, verify.ProveRequest) verify.Proof { return f.proof }

// TestVerify_Prover: after a search that finds nothing, the complete check decides;
// a difference the solver found becomes a counterexample once the queries differ on
// its rows for real, and stays no_counterexample_found otherwise.
func TestVerify_Prover(t *testing.T) {
	db := mustClub(t)
	I, T := qeval.Int, qeval.Text
	// equal on every database the search makes from the pools: the text literal
	// 'Zed' and the age 99 never meet in one row
	gold, pred := "SELECT id FROM member WHERE name = 'Zed' AND age = 99", "SELECT id FROM member WHERE 1 = 0"
	rows := map[string][][]qeval.Value{"team": {{I(1), T("Owls"), qeval.Null}}, "member": {{I(5), T("Zed"), I(99), I(1)}}}
	wrong := map[string][][]qeval.Value{"team": {{I(1), T("Owls"), qeval.Null}}, "member": {{I(5), T("Zed"), I(98), I(1)}}}
	cases := []struct {
		name  string
		proof verify.Proof
		want  qeval.VerifyStatus
		bound int
	}{
		{"Equivalent", verify.Proof{Equivalent: true}, qeval.VerifyEquivalent, qeval.DefaultVerifyBound},
		{"Unsupported", verify.Proof{Unsupported: "function lower()"}, qeval.VerifyUnsupported, 0},
		{"DifferRealized", verify.Proof{Differ: true, Rows: rows}, qeval.VerifyCounterexample, 0},
		{"DifferNotReproduced", verify.Proof{Differ: true, Rows: wrong}, qeval.VerifyNoCounterexample, 0},
		{"SolverGaveUp", verify.Proof{Error: "memory"}, qeval.VerifyNoCounterexample, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := verify.New(verify.Options{Mode: compare.SpiderTS, Out: t.TempDir(), Open: sqlite.OfficialOpener, Seed: 1, MaxTries: 4, WideTries: -1,
				Create: func(p, l string) (testsuite.TableWriter, error) { return sqlite.CreateLike(p, l) }, Check: sqlite.Check, Prover: fakeProver{c.proof}})
			if err != nil {
				t.Fatal(err)
			}
			defer v.Close()
			r := v.Verify(context.Background(), qeval.VerifyPair{ID: "p", DBID: "club", Database: db, Gold: gold, Pred: pred})
			if r.Status != c.want || r.Bound != c.bound {
				t.Errorf("Verify=%s bound %d (%s), want %s bound %d", r.Status, r.Bound, r.Reason, c.want, c.bound)
			}
			if c.want == qeval.VerifyCounterexample {
				if err := sqlite.Check(r.Counterexample); err != nil {
					t.Error(err)
				}
			}
		})
	}
}
