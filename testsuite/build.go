package testsuite

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
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

// maxAttempts bounds the candidates tried per usable one wanted.
const maxAttempts = 3

// maxRepairs bounds the row deletions tried to remove ties from one candidate.
const maxRepairs = 30

func buildDatabase(ctx context.Context, id string, golds []Gold, opt *Options) *Database {
	d := &Database{DBID: id, Rejected: map[string]int{}}
	orig := qeval.BenchmarkFile(opt.DBDir, id)
	if golds[0].Database != "" {
		orig = golds[0].Database
	}
	for _, g := range golds {
		if g.Database != "" && !same(g.Database, orig) {
			d.Error = fmt.Sprintf("gold %s names database %s, but %s names %s for the same id", g.Ref, g.Database, golds[0].Ref, orig)
			return d
		}
	}
	dir := filepath.Join(opt.Out, id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		d.Error = "create folder: " + err.Error()
		return d
	}
	if err := copyFile(orig, qeval.BenchmarkFile(opt.Out, id)); err != nil {
		d.Error = "copy the original database: " + err.Error()
		return d
	}
	limits := qeval.Limits{Timeout: opt.Timeout, MaxRows: 100_000, MaxBytes: 256 << 20}
	ex, err := opt.Open(orig, limits)
	if err != nil {
		d.Error = "open the original database: " + qeval.ErrorMessage(err)
		return d
	}
	defer ex.Close()
	tables, notes, err := readDatabase(ctx, ex)
	d.Notes = append(d.Notes, notes...)
	if err != nil {
		d.Error = err.Error()
		return d
	}
	origCheck := opt.Check(orig)
	if origCheck != nil {
		d.Notes = append(d.Notes, "the original database fails its checks: "+qeval.ErrorMessage(origCheck))
	}
	d.Notes = append(d.Notes, addSpiderKeys(tables, opt.ForeignKeys[id])...)
	d.Notes = append(d.Notes, resolveKeys(tables)...)
	alts, keys := columnAlternatives(tables), keysOf(tables)
	lits := map[string][]qeval.Value{}
	states := make([]*goldState, len(golds))
	for i, g := range golds {
		st := &goldState{report: &GoldReport{Ref: g.Ref}}
		states[i] = st
		d.Golds = append(d.Golds, st.report)
		gq, _, ordered := opt.Mode.Prepare(g.SQL, g.SQL, compare.Options{})
		st.gold, st.ordered = gq, ordered
		rs, err := ex.Query(ctx, gq)
		if err != nil {
			st.report.Error = "gold query fails on the original database: " + qeval.ErrorMessage(err)
			if qeval.ErrorCode(err) == qeval.CodeTimeout {
				st.report.Error = fmt.Sprintf("gold query timed out on the original database (after %s)", opt.Timeout)
			}
			st.gold = ""
			continue
		}
		st.result = rs
		s, err := parseSelect(g.SQL)
		if err != nil {
			st.report.Error = "gold query not parsed, so it has no neighbours: " + err.Error()
			continue
		}
		literals(s, lits)
		markSortKeys(s, tables)
		st.tables = tablesOf(s)
		st.ties = newTieChecks(s)
		_, base, _ := opt.Mode.Prepare(g.SQL, s.String(), compare.Options{})
		brs, err := ex.Query(ctx, base)
		if err != nil || !opt.Mode.Equal(rs, brs, ordered) {
			st.report.Error = "gold query changes meaning when printed from its syntax tree, so it has no neighbours"
			continue
		}
		for _, n := range neighboursOf(s, alts, keys, opt.MaxNeighbours) {
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
	buildPools(tables, lits)
	d.Files = append(d.Files, File{Name: id + ".sqlite", Rows: rowCounts(tables)})
	for _, st := range states {
		d.Files[0].Kills += st.report.Killed
	}

	// generate candidates and record which live neighbours each kills
	type cand struct {
		path  string
		rows  map[string]int
		kills map[[2]int]bool
	}
	work := filepath.Join(dir, ".work")
	os.RemoveAll(work)
	if err := os.MkdirAll(work, 0o755); err != nil {
		d.Error = "create work folder: " + err.Error()
		return d
	}
	defer os.RemoveAll(work)
	var cands []*cand
	noted := false
	write := func(path string, rows map[string][][]qeval.Value) (map[string][][]qeval.Value, string) {
		w, err := opt.Create(path, orig)
		if err != nil {
			return nil, "create failed: " + qeval.ErrorMessage(err)
		}
		kept, err := write(w, tables, rows)
		if err != nil {
			w.Abort()
			return nil, "write failed: " + qeval.ErrorMessage(err)
		}
		if err := w.Close(); err != nil {
			return nil, "write failed: " + qeval.ErrorMessage(err)
		}
		if err := opt.Check(path); err != nil {
			if !schemaFault(err, origCheck) {
				return nil, "integrity or foreign-key check failed: " + qeval.ErrorMessage(err)
			}
			if !noted {
				noted = true
				d.Notes = append(d.Notes, "generated databases fail PRAGMA foreign_key_check as the original does, because of its schema ("+qeval.ErrorHint(err)+"); their rows still satisfy the key")
			}
		}
		return kept, ""
	}
	for c := 0; len(cands) < opt.Candidates && c < maxAttempts*opt.Candidates && ctx.Err() == nil; c++ {
		path := filepath.Join(work, fmt.Sprintf("%s_c%02d.sqlite", id, c))
		rng := rand.New(rand.NewPCG(opt.Seed, seedOf(id, c)))
		// rows are drawn against a scratch database that says which rows the
		// constraints keep, then written once more as the candidate
		scratch := path + ".draw"
		w, err := opt.Create(scratch, orig)
		if err != nil {
			d.Error = "create a database like the original: " + qeval.ErrorMessage(err)
			return d
		}
		rows, err := generate(w, tables, rng, profiles[c%len(profiles)])
		if err != nil {
			w.Abort()
			d.Rejected["write failed: "+qeval.ErrorMessage(err)]++
			continue
		}
		w.Abort()
		rows, reason := write(path, rows)
		if reason != "" {
			d.Rejected[reason]++
			continue
		}
		kills, tied, reason := runCandidate(ctx, path, states, opt, limits)
		// repair ties at a LIMIT cut by deleting rows no other row refers to, from
		// the tables of the tied gold queries, while the ties do not grow
		for try := 0; reason == "" && len(tied) > 0 && try < maxRepairs && ctx.Err() == nil; try++ {
			only := map[string]bool{}
			for _, gi := range tied {
				for t := range states[gi].tables {
					only[t] = true
				}
			}
			leaves := leafRows(tables, rows, only)
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
			kept, why := write(trial, next)
			if why != "" {
				os.Remove(trial)
				continue
			}
			k2, tied2, why := runCandidate(ctx, trial, states, opt, limits)
			if why != "" || len(tied2) > len(tied) {
				os.Remove(trial)
				continue
			}
			os.Rename(trial, path)
			rows, kills, tied = kept, k2, tied2
		}
		if reason == "" && len(tied) > 0 {
			reason = "tie at the ORDER BY … LIMIT cut of " + states[tied[0]].report.Ref
		}
		if reason != "" {
			d.Rejected[reason]++
			continue
		}
		cands = append(cands, &cand{path: path, rows: countRows(tables, rows), kills: kills})
	}

	// distil: greedily keep the candidate that kills the most neighbours still alive
	alive := map[[2]int]bool{}
	for gi, st := range states {
		for _, ni := range st.live {
			alive[[2]int{gi, ni}] = true
		}
	}
	killable := map[[2]int]bool{}
	for _, c := range cands {
		for k := range c.kills {
			killable[k] = true
		}
	}
	used := map[int]bool{}
	for len(d.Files)-1 < opt.PerSchema {
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
		name := fmt.Sprintf("%s_ts%02d.sqlite", id, len(d.Files))
		if err := os.Rename(c.path, filepath.Join(dir, name)); err != nil {
			d.Error = "move a generated database: " + err.Error()
			return d
		}
		for k := range c.kills {
			if alive[k] {
				delete(alive, k)
				states[k[0]].report.Killed++
			}
		}
		d.Files = append(d.Files, File{Name: name, Generated: true, Rows: c.rows, Kills: bestN})
	}
	for gi, st := range states {
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
	// neighbours no candidate told apart are not counted as killable
	for k := range alive {
		if killable[k] {
			d.Killable++
		}
	}
	if len(d.Rejected) == 0 {
		d.Rejected = nil
	}
	return d
}
