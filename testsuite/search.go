package testsuite

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	rq "github.com/rqlite/sql"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/compare"
)

// DefaultSearchTries bounds the databases Search tries for one pair.
const DefaultSearchTries = 48

// Original is a database read once for the searches of many pairs on it: its tables,
// their keys (the declared ones and tables.json's) and rows. It is safe for concurrent
// use: each search works on its own copy of the tables.
type Original struct {
	// Path is the database file.
	Path   string
	tables []*table
	// Notes say what of the schema could not be modelled (see Build's notes).
	Notes []string
}

// ReadOriginal reads a database's tables, constraints and rows through open, and adds
// the foreign keys of tables.json the schema does not declare.
func ReadOriginal(ctx context.Context, path string, keys []ForeignKey, open qeval.Opener) (*Original, error) {
	ex, err := open(path, qeval.Limits{Timeout: DefaultTimeout * 5, MaxRows: 100_000, MaxBytes: 256 << 20})
	if err != nil {
		return nil, err
	}
	defer ex.Close()
	tables, notes, err := readDatabase(ctx, ex)
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "read database " + path, Message: err.Error()}
	}
	notes = append(notes, addSpiderKeys(tables, keys)...)
	notes = append(notes, resolveKeys(tables)...)
	return &Original{Path: path, tables: tables, Notes: notes}, nil
}

// copyTables copies the tables for one search: the columns anew (their pools and
// flags are the search's own), the rows shared (never changed).
func (o *Original) copyTables() []*table {
	out := make([]*table, len(o.tables))
	for i, t := range o.tables {
		c := *t
		c.cols = make([]*column, len(t.cols))
		for j, col := range t.cols {
			cc := *col
			cc.pool, cc.literal, cc.exact, cc.sortKey = nil, nil, nil, false
			c.cols[j] = &cc
		}
		c.fks = append([]foreignKey(nil), t.fks...)
		out[i] = &c
	}
	return out
}

// SearchOptions configure Original.Search. Open, Create and Work are required.
type SearchOptions struct {
	// Gold and Pred are the queries as executed (after the mode's rewrite).
	Gold, Pred string
	Mode       compare.Mode
	Ordered    bool
	Open       qeval.Opener
	Create     func(path, like string) (TableWriter, error)
	// Work is the folder the databases tried are written to.
	Work string
	// MaxTries bounds the databases tried (DefaultSearchTries); Seed makes the search
	// reproducible; Timeout bounds each query (DefaultTimeout).
	MaxTries int
	Seed     uint64
	Timeout  time.Duration
	// Wide, when set, makes the tries databases the size of a test suite's (tens of
	// rows per table, some columns drawn from one or two values): differences that
	// need more rows than the small databases hold (a count that overtakes another
	// only past a few rows). Such a search is one to run after the small one.
	Wide bool
}

// Found is a database on which the gold and predicted queries differ.
type Found struct {
	// Path is the database file, in SearchOptions.Work.
	Path      string
	Gold      *qeval.ResultSet
	Pred      *qeval.ResultSet
	PredError string
	// Tries is how many databases were tried, this one included.
	Tries int
}

// searchProfiles shape the generated databases of a search: small ones first (a
// difference shows on few rows, and few rows shrink fast), some with empty tables,
// many NULLs, or few distinct values (duplicates, ties, groups of several rows).
var searchProfiles = []profile{
	{minRows: 1, maxRows: 4, nullRate: 0.1, skew: 1},
	{minRows: 2, maxRows: 8, nullRate: 0.05, skew: 2, emptyRate: 0.2},
	{minRows: 2, maxRows: 6, nullRate: 0.3, skew: 1},
	{minRows: 3, maxRows: 8, nullRate: 0.05, skew: 1, narrow: true},
	{minRows: 4, maxRows: 12, nullRate: 0.05, skew: 2},
	{minRows: 0, maxRows: 3, nullRate: 0.2, skew: 1, emptyRate: 0.3},
	{minRows: 6, maxRows: 20, nullRate: 0.1, skew: 3},
	{minRows: 3, maxRows: 10, nullRate: 0, skew: 1, narrow: true},
}

// Search tries small databases with the schema of the original, made for the two
// queries, until the queries give different results on one (under opt.Mode) or the
// tries run out. Values come from the original's rows, the literals of both queries
// and their neighbours (±1, another case, the day before and after), NULL and the
// empty string; tables get a few rows, none, or rows from the original. A database on
// which the gold query has a tie at its LIMIT cut, or orders tied rows that the
// prediction orders otherwise, is not a difference. It returns nil when no database
// told them apart; the error is for faults of the search (the work folder).
func (o *Original) Search(ctx context.Context, opt SearchOptions) (*Found, int, error) {
	if opt.Open == nil || opt.Create == nil || opt.Work == "" {
		return nil, 0, &qeval.Error{Code: qeval.CodeInvalid, Op: "search", Message: "SearchOptions.Open, Create and Work are required"}
	}
	if opt.Mode.Equal == nil {
		opt.Mode = compare.Default
	}
	if opt.MaxTries <= 0 {
		opt.MaxTries = DefaultSearchTries
	}
	if opt.Timeout <= 0 {
		opt.Timeout = DefaultTimeout
	}
	s := &search{o: o, opt: opt, limits: qeval.Limits{Timeout: opt.Timeout, MaxRows: 100_000, MaxBytes: 64 << 20}}
	s.prepare()
	for c := 0; c < opt.MaxTries && ctx.Err() == nil; c++ {
		f, err := s.try(ctx, c)
		if err != nil {
			return nil, c + 1, err
		}
		if f != nil {
			f.Tries = c + 1
			return f, c + 1, nil
		}
	}
	return nil, opt.MaxTries, nil
}

// search is one pair's search.
type search struct {
	o      *Original
	opt    SearchOptions
	limits qeval.Limits
	// tables hold the pools of the search (sortKeys marks the columns a LIMIT orders
	// by: generated distinct in half of the tries)
	tables, sorted []*table
	ties           []*tieCheck
	order          *tieCheck // the gold's ORDER BY keys beside its rows, without LIMIT
}

// prepare fills the pools with the literals of both queries, and builds the gold's
// tie checks.
func (s *search) prepare() {
	lits := map[string][]qeval.Value{}
	var parsed []*rq.SelectStatement
	for _, q := range []string{s.opt.Gold, s.opt.Pred} {
		if st, err := parseSelect(q); err == nil {
			literals(st, lits)
			parsed = append(parsed, st)
		}
	}
	s.tables = s.o.copyTables()
	buildPools(s.tables, lits)
	s.sorted = s.o.copyTables()
	buildPools(s.sorted, lits)
	for _, st := range parsed {
		markSortKeys(st, s.sorted)
	}
	if g, err := parseSelect(s.opt.Gold); err == nil {
		s.ties = newTieChecks(g)
		s.order = newOrderCheck(g)
	}
}

// try builds and runs the database of try c: rows from the original for every fourth
// try, else generated by a profile.
func (s *search) try(ctx context.Context, c int) (*Found, error) {
	seed := s.opt.Seed
	if s.opt.Wide {
		seed = ^seed
	}
	rng := rand.New(rand.NewPCG(seed, seedOf(s.opt.Gold+"\x00"+s.opt.Pred, c)))
	path := filepath.Join(s.opt.Work, fmt.Sprintf("s%03d.sqlite", c))
	var rows map[string][][]qeval.Value
	if c%4 == 3 && hasRows(s.tables) {
		rows = sampleOriginal(s.tables, rng)
	} else {
		tables := s.tables
		if c%2 == 0 {
			tables = s.sorted
		}
		// the rows are drawn into the database itself: it keeps those the
		// constraints allow
		w, err := s.opt.Create(path, s.o.Path)
		if err != nil {
			return nil, fmt.Errorf("create a database like %s: %s", s.o.Path, qeval.ErrorMessage(err))
		}
		p := searchProfiles[(c/4*3+c%4)%len(searchProfiles)]
		if s.opt.Wide {
			p = profiles[(c/4*3+c%4)%len(profiles)]
		}
		if _, err := generate(w, tables, rng, p); err != nil {
			w.Abort()
			return nil, nil
		}
		if err := w.Close(); err != nil {
			os.Remove(path)
			return nil, nil
		}
	}
	if rows != nil {
		w, err := s.opt.Create(path, s.o.Path)
		if err != nil {
			return nil, fmt.Errorf("create a database like %s: %s", s.o.Path, qeval.ErrorMessage(err))
		}
		if _, err := write(w, s.tables, rows); err != nil {
			w.Abort()
			return nil, nil
		}
		if err := w.Close(); err != nil {
			os.Remove(path)
			return nil, nil
		}
	}
	f := s.differ(ctx, path)
	if f == nil {
		os.Remove(path)
	}
	return f, nil
}

// differ runs both queries on the database at path and returns how they differ, nil
// when they do not (or the difference does not count: see Search).
func (s *search) differ(ctx context.Context, path string) *Found {
	ex, err := s.opt.Open(path, s.limits)
	if err != nil {
		return nil
	}
	defer ex.Close()
	d, ok := differ(ctx, ex, s.opt.Gold, s.opt.Pred, s.opt.Mode, s.opt.Ordered, s.ties, s.order)
	if !ok {
		return nil
	}
	return &Found{Path: path, Gold: d.gold, Pred: d.pred, PredError: d.predErr}
}

// differ runs the gold and predicted queries on ex and reports whether they differ in a
// way that counts: the gold runs, has no tie at a LIMIT cut, and either the prediction
// fails (not by a timeout), or the results differ other than by the order of rows the
// gold's ORDER BY leaves tied.
func differ(ctx context.Context, ex qeval.Executor, gold, pred string, m compare.Mode, ordered bool, ties []*tieCheck, order *tieCheck) (outcome, bool) {
	g, err := ex.Query(ctx, gold)
	if err != nil {
		return outcome{}, false
	}
	for _, tc := range ties {
		if trs, err := ex.Query(ctx, tc.query); err == nil && tc.tied(trs) {
			return outcome{}, false
		}
	}
	p, err := ex.Query(ctx, pred)
	if err != nil {
		if qeval.ErrorCode(err) == qeval.CodeTimeout || qeval.ErrorCode(err) == qeval.CodeCanceled || ctx.Err() != nil {
			return outcome{}, false
		}
		return outcome{gold: g, predErr: qeval.ErrorMessage(err)}, true
	}
	if m.Equal(g, p, ordered) {
		return outcome{}, false
	}
	if ordered && m.Equal(g, p, false) {
		// the same rows in another order: a difference only if the gold's order of
		// them is not a tie
		if order == nil {
			return outcome{}, false
		}
		rs, err := ex.Query(ctx, order.query)
		if err != nil || order.anyTie(rs) {
			return outcome{}, false
		}
	}
	return outcome{gold: g, pred: p}, true
}

// newOrderCheck is the gold's ORDER BY keys beside its result columns, with no LIMIT, to
// find rows whose order the keys leave open; nil when the query has no ORDER BY or the
// keys cannot be added.
func newOrderCheck(s *rq.SelectStatement) *tieCheck {
	if len(s.OrderingTerms) == 0 {
		return nil
	}
	c := rq.CloneStatement(s).(*rq.SelectStatement)
	c.LimitExpr, c.OffsetExpr = nil, nil
	tc := &tieCheck{width: len(s.Columns), limit: -1}
	for _, t := range s.OrderingTerms {
		if i := resultIndex(s, t.X); i >= 0 {
			tc.keys = append(tc.keys, i)
			continue
		}
		if s.Compound != nil || s.Distinct.IsValid() || hasStar(s) {
			return nil
		}
		tc.keys = append(tc.keys, len(c.Columns))
		c.Columns = append(c.Columns, &rq.ResultColumn{Expr: rq.CloneExpr(t.X)})
	}
	tc.query = c.String()
	return tc
}

// anyTie reports whether two rows next to each other have the same sort keys but
// different values.
func (tc *tieCheck) anyTie(rs *qeval.ResultSet) bool {
	for i := 1; i < len(rs.Rows); i++ {
		a, b := rs.Rows[i-1], rs.Rows[i]
		if tc.sameKeys(a, b) && !tc.sameOutput(a, b) {
			return true
		}
	}
	return false
}

func hasRows(tables []*table) bool {
	for _, t := range tables {
		if len(t.rows) > 0 {
			return true
		}
	}
	return false
}

// sampleOriginal picks a few rows of each table of the original (none, for some), and
// drops the rows whose foreign keys then name no row.
func sampleOriginal(tables []*table, rng *rand.Rand) map[string][][]qeval.Value {
	rows := map[string][][]qeval.Value{}
	for _, t := range tables {
		n := len(t.rows)
		if n == 0 {
			continue
		}
		k := 1 + rng.IntN(min(n, 12))
		if rng.IntN(8) == 0 {
			k = 0
		}
		for _, i := range rng.Perm(n)[:k] {
			rows[strings.ToLower(t.name)] = append(rows[strings.ToLower(t.name)], t.rows[i])
		}
	}
	// children first, each adding the parent rows it names (which then add theirs);
	// the rows whose parent is still missing (the original breaks a key) are dropped
	ordered := order(tables)
	for i := len(ordered) - 1; i >= 0; i-- {
		t := ordered[i]
		for _, fk := range t.fks {
			p := findTable(tables, fk.parent)
			if p == nil || p == t {
				continue
			}
			have := map[string]bool{}
			for _, r := range rows[strings.ToLower(p.name)] {
				have[keyText(fk.pidx, r, nil, nil)] = true
			}
			for _, r := range rows[strings.ToLower(t.name)] {
				k := keyText(nil, nil, fk.cols, r)
				if have[k] {
					continue
				}
				for _, pr := range p.rows {
					if keyText(fk.pidx, pr, nil, nil) == k {
						rows[strings.ToLower(p.name)] = append(rows[strings.ToLower(p.name)], pr)
						have[k] = true
						break
					}
				}
			}
		}
	}
	return cascade(tables, rows)
}

func findTable(tables []*table, name string) *table {
	for _, t := range tables {
		if strings.EqualFold(t.name, name) {
			return t
		}
	}
	return nil
}

// TableInfo describes one table of an Original as generation models it: its columns,
// keys and foreign keys (the declared ones and tables.json's).
type TableInfo struct {
	Name        string
	Columns     []ColumnInfo
	PrimaryKey  []int
	Unique      [][]int // UNIQUE column sets, the primary key included
	ForeignKeys []ForeignKeyInfo
	// Rows are the original's rows, a value per column (shared: not to be changed).
	Rows [][]qeval.Value
}

// ColumnInfo is one column of a TableInfo.
type ColumnInfo struct {
	Name, Type string
	// Affinity is SQLite's type affinity: 'i' integer, 'r' real, 't' text, 'n'
	// numeric, 'b' blob (none).
	Affinity  byte
	NotNull   bool
	Generated bool
}

// ForeignKeyInfo links columns of a table to the columns of its parent.
type ForeignKeyInfo struct {
	Columns       []int
	Parent        string
	ParentColumns []int
}

// Tables describes the original's tables.
func (o *Original) Tables() []TableInfo {
	out := make([]TableInfo, len(o.tables))
	for i, t := range o.tables {
		ti := TableInfo{Name: t.name, PrimaryKey: append([]int(nil), t.pk...), Rows: t.rows}
		for _, u := range t.uniques {
			ti.Unique = append(ti.Unique, append([]int(nil), u...))
		}
		for _, c := range t.cols {
			ti.Columns = append(ti.Columns, ColumnInfo{Name: c.name, Type: c.typ, Affinity: c.affinity, NotNull: c.notNull, Generated: c.generated})
		}
		for _, fk := range t.fks {
			ti.ForeignKeys = append(ti.ForeignKeys, ForeignKeyInfo{Columns: append([]int(nil), fk.cols...), Parent: fk.parent, ParentColumns: append([]int(nil), fk.pidx...)})
		}
		out[i] = ti
	}
	return out
}

// Write writes a database with the original's schema and the given rows (by
// lower-case table name, a value per column; generated columns are left to SQLite), and
// reports how many rows the constraints refused.
func (o *Original) Write(path string, rows map[string][][]qeval.Value, create func(path, like string) (TableWriter, error)) (int, error) {
	w, err := create(path, o.Path)
	if err != nil {
		return 0, err
	}
	kept, err := write(w, o.tables, rows)
	if err != nil {
		w.Abort()
		return 0, err
	}
	if err := w.Close(); err != nil {
		return 0, err
	}
	refused := 0
	for t, rs := range rows {
		refused += len(rs) - len(kept[t])
	}
	return refused, nil
}
