package testsuite

import (
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"strings"

	rq "github.com/rqlite/sql"

	"github.com/qeval/qeval"
)

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
