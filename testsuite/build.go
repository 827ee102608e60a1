package testsuite

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/compare"
)

// Defaults of Options.
const (
	DefaultPerSchema  = 5
	DefaultCandidates = 32
	DefaultTimeout    = 2 * time.Second
)

// Gold is one gold query of the suite.
type Gold struct {
	DBID string
	SQL  string
	// Ref names the item in messages, e.g. "dev_gold.sql:12".
	Ref string
	// Database is the original database file; "" means DBDir/<DBID>/<DBID>.sqlite.
	Database string
}

// Options configure Build. Open, Create and Check are required.
type Options struct {
	// DBDir holds DBDir/<db_id>/<db_id>.sqlite (for golds without Database).
	DBDir string
	// Out is the suite folder to write; it must not hold the databases already.
	Out string
	// ForeignKeys adds keys the SQLite schemas do not declare (Spider's tables.json).
	ForeignKeys map[string][]ForeignKey
	// PerSchema is the most generated databases kept per database (DefaultPerSchema).
	PerSchema int
	// Candidates is how many usable databases are generated per database before
	// distillation; candidates rejected (a tie at a LIMIT cut, a failed write) are made
	// up for, up to maxAttempts times as many attempts.
	Candidates int
	// Seed makes the suite reproducible.
	Seed uint64
	// Version is the qeval version recorded in the manifest.
	Version string
	// MaxNeighbours caps the neighbours per gold query (DefaultMaxNeighbours).
	MaxNeighbours int
	// Timeout bounds each query run while building (DefaultTimeout).
	Timeout time.Duration
	// Workers is how many databases are built at once (default 2).
	Workers int
	// Mode judges whether a neighbour's result differs from the gold's (spider-ts when
	// zero).
	Mode   compare.Mode
	Open   qeval.Opener
	Create func(path, like string) (TableWriter, error)
	Check  func(path string) error
	Logger *slog.Logger
}

func (o *Options) defaults() error {
	if o.Open == nil || o.Create == nil || o.Check == nil {
		return &qeval.Error{Code: qeval.CodeInvalid, Op: "build test suite", Message: "Options.Open, Create and Check are required"}
	}
	if o.PerSchema <= 0 {
		o.PerSchema = DefaultPerSchema
	}
	if o.Candidates <= 0 {
		o.Candidates = DefaultCandidates
	}
	if o.MaxNeighbours <= 0 {
		o.MaxNeighbours = DefaultMaxNeighbours
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Workers <= 0 {
		o.Workers = 2
	}
	if o.Mode.Equal == nil {
		o.Mode = compare.Default
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return nil
}

// Build writes a test suite for the gold queries: OUT/<db_id>/ with the original
// database and the generated ones kept by distillation, and OUT/manifest.json. A
// database that cannot be built gets its error in the manifest and the others are
// still built; the error returned is for faults of the whole run (the output folder).
func Build(ctx context.Context, golds []Gold, opt Options) (*Manifest, error) {
	if err := opt.defaults(); err != nil {
		return nil, err
	}
	start := time.Now()
	if same(opt.Out, opt.DBDir) {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "build test suite", Message: "the suite folder is the database folder",
			Hint: "write the suite to a new folder: the originals are copied into it"}
	}
	if err := os.MkdirAll(opt.Out, 0o755); err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "create suite folder " + opt.Out, Message: err.Error(), Err: err}
	}
	byDB := map[string][]Gold{}
	var ids []string
	for _, g := range golds {
		if _, ok := byDB[g.DBID]; !ok {
			ids = append(ids, g.DBID)
		}
		byDB[g.DBID] = append(byDB[g.DBID], g)
	}
	sort.Strings(ids)
	// the databases with the most gold queries go first, so the workers end together
	work := append([]string(nil), ids...)
	sort.SliceStable(work, func(i, j int) bool { return len(byDB[work[i]]) > len(byDB[work[j]]) })
	results := make(map[string]*Database, len(ids))
	var mu sync.Mutex
	jobs := make(chan string)
	var wg sync.WaitGroup
	for w := 0; w < opt.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for id := range jobs {
				d := buildDatabase(ctx, id, byDB[id], &opt)
				mu.Lock()
				results[id] = d
				mu.Unlock()
			}
		}()
	}
	for _, id := range work {
		if ctx.Err() != nil {
			break
		}
		jobs <- id
	}
	close(jobs)
	wg.Wait()
	m := &Manifest{Seed: opt.Seed, Version: opt.Version, Mode: opt.Mode.ID(), PerSchema: opt.PerSchema, Candidates: opt.Candidates}
	for _, id := range ids {
		d := results[id]
		if d == nil {
			d = &Database{DBID: id, Error: "not built: the run was canceled"}
		}
		m.Databases = append(m.Databases, d)
		m.Neighbours += d.Neighbours
		m.Equivalent += d.Equivalent
		m.Broken += d.Broken
		m.Killable += d.Killable
		m.Killed += d.Killed
	}
	m.BuildMS = time.Since(start).Milliseconds()
	data, _ := json.MarshalIndent(m, "", "  ")
	if err := os.WriteFile(filepath.Join(opt.Out, "manifest.json"), append(data, '\n'), 0o644); err != nil {
		return m, &qeval.Error{Code: qeval.CodeInternal, Op: "write manifest", Message: err.Error(), Err: err}
	}
	if err := ctx.Err(); err != nil {
		return m, err
	}
	return m, nil
}

// goldState is one gold query during a build.
type goldState struct {
	report  *GoldReport
	gold    string // as executed (after the mode's rewrite)
	ordered bool
	ties    []*tieCheck
	nbrs    []Neighbour
	nsql    []string // neighbours as executed
	live    []int    // neighbours that ran on the original and differ from nothing yet
	result  *qeval.ResultSet
	tables  map[string]bool // lower-case names of the tables the gold reads
}

// dbBuild is the build of one database's part of the suite: the original, the states
// of its gold queries, and the report.
type dbBuild struct {
	id        string
	orig, dir string // the original database; the database's suite folder
	opt       *Options
	d         *Database
	limits    qeval.Limits
	tables    []*table
	origCheck error // how the original fails its own checks, if it does
	states    []*goldState
	// noted says d.Notes already tells that generated databases fail the original's
	// key check
	noted bool
}

func buildDatabase(ctx context.Context, id string, golds []Gold, opt *Options) *Database {
	b := &dbBuild{id: id, opt: opt, d: &Database{DBID: id, Rejected: map[string]int{}},
		limits: qeval.Limits{Timeout: opt.Timeout, MaxRows: 100_000, MaxBytes: 256 << 20}}
	d := b.d
	if err := b.copyOriginal(golds); err != nil {
		d.Error = err.Error()
		return d
	}
	ex, err := opt.Open(b.orig, b.limits)
	if err != nil {
		d.Error = "open the original database: " + qeval.ErrorMessage(err)
		return d
	}
	defer ex.Close()
	if err := b.readOriginal(ctx, ex); err != nil {
		d.Error = err.Error()
		return d
	}
	b.runGolds(ctx, ex, golds)

	work := filepath.Join(b.dir, ".work")
	os.RemoveAll(work)
	if err := os.MkdirAll(work, 0o755); err != nil {
		d.Error = "create work folder: " + err.Error()
		return d
	}
	defer os.RemoveAll(work)
	cands, err := b.candidates(ctx, work)
	if err != nil {
		d.Error = err.Error()
		return d
	}
	alive, err := b.distil(cands)
	if err != nil {
		d.Error = err.Error()
		return d
	}
	b.total(alive, cands)
	if len(d.Rejected) == 0 {
		d.Rejected = nil
	}
	return d
}

// copyOriginal finds the original database (the golds of one id must name the same
// one) and copies it into the database's suite folder.
func (b *dbBuild) copyOriginal(golds []Gold) error {
	b.orig = qeval.BenchmarkFile(b.opt.DBDir, b.id)
	if golds[0].Database != "" {
		b.orig = golds[0].Database
	}
	for _, g := range golds {
		if g.Database != "" && !same(g.Database, b.orig) {
			return fmt.Errorf("gold %s names database %s, but %s names %s for the same id", g.Ref, g.Database, golds[0].Ref, b.orig)
		}
	}
	b.dir = filepath.Join(b.opt.Out, b.id)
	if err := os.MkdirAll(b.dir, 0o755); err != nil {
		return fmt.Errorf("create folder: %w", err)
	}
	if err := copyFile(b.orig, qeval.BenchmarkFile(b.opt.Out, b.id)); err != nil {
		return fmt.Errorf("copy the original database: %w", err)
	}
	return nil
}

// readOriginal reads the original's tables and checks it, and completes its keys from
// Options.ForeignKeys.
func (b *dbBuild) readOriginal(ctx context.Context, ex qeval.Executor) error {
	tables, notes, err := readDatabase(ctx, ex)
	b.d.Notes = append(b.d.Notes, notes...)
	if err != nil {
		return err
	}
	b.tables = tables
	b.origCheck = b.opt.Check(b.orig)
	if b.origCheck != nil {
		b.d.Notes = append(b.d.Notes, "the original database fails its checks: "+qeval.ErrorMessage(b.origCheck))
	}
	b.d.Notes = append(b.d.Notes, addSpiderKeys(tables, b.opt.ForeignKeys[b.id])...)
	b.d.Notes = append(b.d.Notes, resolveKeys(tables)...)
	return nil
}

// runGolds runs the gold queries and their neighbours on the original, fills the
// value pools with the golds' literals, and lists the original as the first file.
func (b *dbBuild) runGolds(ctx context.Context, ex qeval.Executor, golds []Gold) {
	alts, keys := columnAlternatives(b.tables), keysOf(b.tables)
	lits := map[string][]qeval.Value{}
	b.states = make([]*goldState, len(golds))
	for i, g := range golds {
		st := &goldState{report: &GoldReport{Ref: g.Ref}}
		b.states[i] = st
		b.d.Golds = append(b.d.Golds, st.report)
		b.runGold(ctx, ex, g, st, alts, keys, lits)
	}
	buildPools(b.tables, lits)
	b.d.Files = append(b.d.Files, File{Name: b.id + ".sqlite", Rows: rowCounts(b.tables)})
	for _, st := range b.states {
		b.d.Files[0].Kills += st.report.Killed
	}
}

// runGold runs one gold query on the original and, when its syntax tree prints back to
// the same query, its neighbours; it adds the gold's literals to lits. A failure is
// the gold report's Error.
func (b *dbBuild) runGold(ctx context.Context, ex qeval.Executor, g Gold, st *goldState, alts map[string][]string, keys *keyInfo, lits map[string][]qeval.Value) {
	opt := b.opt
	gq, _, ordered := opt.Mode.Prepare(g.SQL, g.SQL, compare.Options{})
	st.gold, st.ordered = gq, ordered
	rs, err := ex.Query(ctx, gq)
	if err != nil {
		st.report.Error = "gold query fails on the original database: " + qeval.ErrorMessage(err)
		if qeval.ErrorCode(err) == qeval.CodeTimeout {
			st.report.Error = fmt.Sprintf("gold query timed out on the original database (after %s)", opt.Timeout)
		}
		st.gold = ""
		return
	}
	st.result = rs
	s, err := parseSelect(g.SQL)
	if err != nil {
		st.report.Error = "gold query not parsed, so it has no neighbours: " + err.Error()
		return
	}
	literals(s, lits)
	markSortKeys(s, b.tables)
	st.tables = tablesOf(s)
	st.ties = newTieChecks(s)
	_, base, _ := opt.Mode.Prepare(g.SQL, s.String(), compare.Options{})
	brs, err := ex.Query(ctx, base)
	if err != nil || !opt.Mode.Equal(rs, brs, ordered) {
		st.report.Error = "gold query changes meaning when printed from its syntax tree, so it has no neighbours"
		return
	}
	b.runNeighbours(ctx, ex, g, st, neighboursOf(s, alts, keys, opt.MaxNeighbours), base)
}

// runNeighbours runs the neighbours of a gold query on the original, and counts each
// as equivalent (the same text as base, the gold printed from its tree, or the same
// result by the keys), broken (it fails), killed (the original tells it apart) or
// live (left to the generated databases).
func (b *dbBuild) runNeighbours(ctx context.Context, ex qeval.Executor, g Gold, st *goldState, nbrs []Neighbour, base string) {
	opt, rs, ordered := b.opt, st.result, st.ordered
	for _, n := range nbrs {
		_, nq, _ := opt.Mode.Prepare(g.SQL, n.SQL, compare.Options{})
		st.report.Neighbours++
		if sameText(nq, base) {
			st.report.Equivalent++
			continue
		}
		nrs, err := ex.Query(ctx, nq)
		if err != nil {
			st.report.Broken++
			continue
		}
		// an equivalence that rests on the keys holds on every generated database;
		// the original may break its keys, and then tells the two apart
		if n.Equivalent && opt.Mode.Equal(rs, nrs, ordered) {
			st.report.Equivalent++
			continue
		}
		st.nbrs = append(st.nbrs, n)
		st.nsql = append(st.nsql, nq)
		if !opt.Mode.Equal(rs, nrs, ordered) {
			st.report.Killed++
			continue
		}
		st.live = append(st.live, len(st.nsql)-1)
	}
}

// distil greedily keeps the candidate that kills the most neighbours still alive (the
// first one kept even if it kills none), up to opt.PerSchema, and moves it into the
// suite folder. It returns the neighbours ({gold, neighbour}) left alive.
func (b *dbBuild) distil(cands []*candidate) (map[[2]int]bool, error) {
	d := b.d
	alive := map[[2]int]bool{}
	for gi, st := range b.states {
		for _, ni := range st.live {
			alive[[2]int{gi, ni}] = true
		}
	}
	used := map[int]bool{}
	for len(d.Files)-1 < b.opt.PerSchema {
		best, bestN := -1, 0
		for ci, c := range cands {
			if used[ci] {
				continue
			}
			n := 0
			for k := range c.kills {
				if alive[k] {
					n++
				}
			}
			if n > bestN || best < 0 && !used[ci] && len(d.Files) == 1 {
				best, bestN = ci, n
			}
		}
		if best < 0 || bestN == 0 && len(d.Files) > 1 {
			break
		}
		used[best] = true
		c := cands[best]
		name := fmt.Sprintf("%s_ts%02d.sqlite", b.id, len(d.Files))
		if err := os.Rename(c.path, filepath.Join(b.dir, name)); err != nil {
			return nil, fmt.Errorf("move a generated database: %w", err)
		}
		for k := range c.kills {
			if alive[k] {
				delete(alive, k)
				b.states[k[0]].report.Killed++
			}
		}
		d.Files = append(d.Files, File{Name: name, Generated: true, Rows: c.rows, Kills: bestN})
	}
	return alive, nil
}

// total lists the first surviving neighbours of each gold and adds the gold reports
// up into d; a neighbour left alive counts as killable only if some candidate killed
// it.
func (b *dbBuild) total(alive map[[2]int]bool, cands []*candidate) {
	d := b.d
	for gi, st := range b.states {
		for _, ni := range st.live {
			if alive[[2]int{gi, ni}] && len(st.report.Survivors) < 5 {
				st.report.Survivors = append(st.report.Survivors, st.nbrs[ni])
			}
		}
		d.Neighbours += st.report.Neighbours
		d.Equivalent += st.report.Equivalent
		d.Broken += st.report.Broken
		d.Killed += st.report.Killed
		d.Killable += st.report.Killed
	}
	killable := map[[2]int]bool{}
	for _, c := range cands {
		for k := range c.kills {
			killable[k] = true
		}
	}
	for k := range alive {
		if killable[k] {
			d.Killable++
		}
	}
}
