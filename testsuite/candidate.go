package testsuite

import (
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	rq "github.com/rqlite/sql"

	"github.com/qeval/qeval"
)

// maxAttempts bounds the candidates tried per usable one wanted.
const maxAttempts = 3

// maxRepairs bounds the row deletions tried to remove ties from one candidate.
const maxRepairs = 30

// candidate is a generated database that passed its checks, with its row counts and
// the live neighbours it kills ({gold, neighbour} indexes).
type candidate struct {
	path  string
	rows  map[string]int
	kills map[[2]int]bool
}

// candidates generates databases in work until opt.Candidates are usable or the
// attempts run out, and records which live neighbours each kills; the rejected ones
// are counted in d.Rejected by reason.
func (b *dbBuild) candidates(ctx context.Context, work string) ([]*candidate, error) {
	var cands []*candidate
	for c := 0; len(cands) < b.opt.Candidates && c < maxAttempts*b.opt.Candidates && ctx.Err() == nil; c++ {
		cand, reason, err := b.candidate(ctx, work, c)
		if err != nil {
			return nil, err
		}
		if reason != "" {
			b.d.Rejected[reason]++
			continue
		}
		cands = append(cands, cand)
	}
	return cands, nil
}

// candidate generates the database of attempt c, repairs its ties at a LIMIT cut, and
// runs the neighbours on it; it returns the candidate, or why it is rejected. The
// error is a fault of the whole database.
func (b *dbBuild) candidate(ctx context.Context, work string, c int) (*candidate, string, error) {
	path := filepath.Join(work, fmt.Sprintf("%s_c%02d.sqlite", b.id, c))
	rng := rand.New(rand.NewPCG(b.opt.Seed, seedOf(b.id, c)))
	// rows are drawn against a scratch database that says which rows the
	// constraints keep, then written once more as the candidate
	scratch := path + ".draw"
	w, err := b.opt.Create(scratch, b.orig)
	if err != nil {
		return nil, "", fmt.Errorf("create a database like the original: %s", qeval.ErrorMessage(err))
	}
	rows, err := generate(w, b.tables, rng, profiles[c%len(profiles)])
	w.Abort()
	if err != nil {
		return nil, "write failed: " + qeval.ErrorMessage(err), nil
	}
	rows, reason := b.writeChecked(path, rows)
	if reason != "" {
		return nil, reason, nil
	}
	kills, tied, reason := runCandidate(ctx, path, b.states, b.opt, b.limits)
	if reason == "" {
		rows, kills, tied = b.repairTies(ctx, path, rng, rows, kills, tied)
	}
	if reason == "" && len(tied) > 0 {
		reason = "tie at the ORDER BY … LIMIT cut of " + b.states[tied[0]].report.Ref
	}
	if reason != "" {
		return nil, reason, nil
	}
	return &candidate{path: path, rows: countRows(b.tables, rows), kills: kills}, "", nil
}

// repairTies removes ties at a LIMIT cut (the golds in tied) from the candidate at
// path by deleting rows no other row refers to, from the tables of the tied gold
// queries, while the ties do not grow. It returns the candidate's rows, kills and
// ties after the repairs.
func (b *dbBuild) repairTies(ctx context.Context, path string, rng *rand.Rand, rows map[string][][]qeval.Value, kills map[[2]int]bool, tied []int) (map[string][][]qeval.Value, map[[2]int]bool, []int) {
	for try := 0; len(tied) > 0 && try < maxRepairs && ctx.Err() == nil; try++ {
		only := map[string]bool{}
		for _, gi := range tied {
			for t := range b.states[gi].tables {
				only[t] = true
			}
		}
		leaves := leafRows(b.tables, rows, only)
		if len(leaves) == 0 {
			break
		}
		l := leaves[rng.IntN(len(leaves))]
		next := map[string][][]qeval.Value{}
		for k, v := range rows {
			next[k] = v
		}
		t, i := l[0].(string), l[1].(int)
		next[t] = append(append([][]qeval.Value(nil), rows[t][:i]...), rows[t][i+1:]...)
		trial := fmt.Sprintf("%s.r%02d", path, try)
		kept, why := b.writeChecked(trial, next)
		if why != "" {
			os.Remove(trial)
			continue
		}
		k2, tied2, why := runCandidate(ctx, trial, b.states, b.opt, b.limits)
		if why != "" || len(tied2) > len(tied) {
			os.Remove(trial)
			continue
		}
		os.Rename(trial, path)
		rows, kills, tied = kept, k2, tied2
	}
	return rows, kills, tied
}

// writeChecked writes rows as a database at path, like the original, and checks it. It
// returns the rows the constraints kept, or why the database is rejected. A failed
// key check the original shares, because of its schema, is accepted (and noted once).
func (b *dbBuild) writeChecked(path string, rows map[string][][]qeval.Value) (map[string][][]qeval.Value, string) {
	w, err := b.opt.Create(path, b.orig)
	if err != nil {
		return nil, "create failed: " + qeval.ErrorMessage(err)
	}
	kept, err := write(w, b.tables, rows)
	if err != nil {
		w.Abort()
		return nil, "write failed: " + qeval.ErrorMessage(err)
	}
	if err := w.Close(); err != nil {
		return nil, "write failed: " + qeval.ErrorMessage(err)
	}
	if err := b.opt.Check(path); err != nil {
		if !schemaFault(err, b.origCheck) {
			return nil, "integrity or foreign-key check failed: " + qeval.ErrorMessage(err)
		}
		if !b.noted {
			b.noted = true
			b.d.Notes = append(b.d.Notes, "generated databases fail PRAGMA foreign_key_check as the original does, because of its schema ("+qeval.ErrorHint(err)+"); their rows still satisfy the key")
		}
	}
	return kept, ""
}

// runCandidate runs every gold query on a generated database and checks the ties at
// the LIMIT cuts. With no tie it also runs the live neighbours and returns those it
// kills; with ties it returns the tied gold queries. reason says why the database
// cannot be used at all.
func runCandidate(ctx context.Context, path string, states []*goldState, opt *Options, limits qeval.Limits) (kills map[[2]int]bool, tied []int, reason string) {
	ex, err := opt.Open(path, limits)
	if err != nil {
		return nil, nil, "open failed: " + qeval.ErrorMessage(err)
	}
	defer ex.Close()
	results := make([]*qeval.ResultSet, len(states))
	for gi, st := range states {
		if st.gold == "" {
			continue
		}
		rs, err := ex.Query(ctx, st.gold)
		if err != nil {
			return nil, nil, "gold query " + st.report.Ref + " fails on it: " + qeval.ErrorMessage(err)
		}
		results[gi] = rs
		for _, tc := range st.ties {
			trs, err := ex.Query(ctx, tc.query)
			if err == nil && tc.tied(trs) {
				tied = append(tied, gi)
				break
			}
		}
	}
	if len(tied) > 0 {
		return nil, tied, ""
	}
	kills = map[[2]int]bool{}
	for gi, st := range states {
		for _, ni := range st.live {
			nrs, err := ex.Query(ctx, st.nsql[ni])
			if err != nil || !opt.Mode.Equal(results[gi], nrs, st.ordered) {
				kills[[2]int{gi, ni}] = true
			}
		}
	}
	return kills, nil, ""
}

// markSortKeys flags the columns a query with LIMIT orders by.
func markSortKeys(s *rq.SelectStatement, tables []*table) {
	visit(s, func(n rq.Node) {
		sel, ok := n.(*rq.SelectStatement)
		if !ok || sel.LimitExpr == nil {
			return
		}
		for _, t := range sel.OrderingTerms {
			name := columnName(t.X)
			if name == "" {
				continue
			}
			for _, tb := range tables {
				if i := tb.col(name); i >= 0 {
					tb.cols[i].sortKey = true
				}
			}
		}
	})
}

// readDatabase reads the tables of the original database, their constraints and rows.
func readDatabase(ctx context.Context, ex qeval.Executor) ([]*table, []string, error) {
	sr, ok := ex.(qeval.SchemaReader)
	if !ok {
		return nil, nil, fmt.Errorf("the executor cannot read the schema")
	}
	sch, err := sr.Schema(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("read schema: %s", qeval.ErrorMessage(err))
	}
	var tables []*table
	var notes []string
	empty := 0
	for _, ts := range sch.Tables {
		if strings.HasPrefix(strings.ToUpper(strings.TrimSpace(ts.DDL)), "CREATE VIEW") {
			notes = append(notes, fmt.Sprintf("view %s: not generated, SQLite computes it from its tables", ts.Name))
			continue
		}
		t, n := parseTable(ts)
		notes = append(notes, n...)
		rs, err := ex.Query(ctx, "SELECT * FROM "+quote(ts.Name)+" LIMIT 20000")
		if err != nil {
			return nil, notes, fmt.Errorf("read table %s: %s", ts.Name, qeval.ErrorMessage(err))
		}
		if len(rs.Columns) == len(t.cols) {
			t.rows = rs.Rows
		} else {
			notes = append(notes, fmt.Sprintf("table %s: %d columns read, %d declared: values generated from types", ts.Name, len(rs.Columns), len(t.cols)))
		}
		if len(t.rows) == 0 {
			empty++
			notes = append(notes, fmt.Sprintf("table %s: no rows: values generated from the declared types and the gold literals", ts.Name))
		}
		tables = append(tables, t)
	}
	if len(tables) == 0 {
		return nil, notes, fmt.Errorf("no tables")
	}
	return tables, notes, nil
}

func rowCounts(tables []*table) map[string]int {
	out := map[string]int{}
	for _, t := range tables {
		out[t.name] = len(t.rows)
	}
	return out
}

func quote(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

func seedOf(id string, c int) uint64 {
	h := fnv.New64a()
	h.Write([]byte(id))
	return h.Sum64() ^ uint64(c)*0x9e3779b97f4a7c15
}

// same reports whether two paths name the same file or folder.
func same(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	if err1 == nil && err2 == nil {
		return os.SameFile(sa, sb)
	}
	aa, _ := filepath.Abs(a)
	ab, _ := filepath.Abs(b)
	return aa == ab
}

func copyFile(from, to string) error {
	if same(from, to) {
		return fmt.Errorf("%s is the original itself", to)
	}
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// sameText compares two queries ignoring white space (the mode's rewrite can leave a
// space where it removed a keyword, e.g. "count( x)"; no mutation changes spaces in a
// literal).
func sameText(a, b string) bool {
	return strings.Join(strings.Fields(a), "") == strings.Join(strings.Fields(b), "")
}

// schemaFault reports whether a generated database's check failure comes from the
// schema itself: the original fails the same way (a foreign key SQLite cannot check).
func schemaFault(err, orig error) bool {
	return orig != nil && qeval.ErrorHint(err) != "" && qeval.ErrorHint(err) == qeval.ErrorHint(orig)
}

// tablesOf returns the lower-case names of the tables a query reads.
func tablesOf(s *rq.SelectStatement) map[string]bool {
	out := map[string]bool{}
	visit(s, func(n rq.Node) {
		if t, ok := n.(*rq.QualifiedTableName); ok && t.Name != nil {
			out[strings.ToLower(t.Name.Name)] = true
		}
	})
	return out
}
