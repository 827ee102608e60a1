// Package audit checks gold queries before their verdicts are trusted: a gold that
// fails, whose result depends on the engine's scan order or on a tie at a LIMIT cut,
// that returns nothing or a value most of its near misses also return, that selects *,
// returns floats only rounding tells apart, mixes text and numbers in one column, or
// repeats another item. Each flag comes with its evidence (the engine's message, the
// two results, the tied rows, the neighbours), so a person can decide whether to fix
// the gold or set the item aside.
//
// The package runs queries only through the qeval.Source of each item; the syntax-tree
// work (neighbours, tie checks) is testsuite's.
package audit

import (
	"context"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/compare"
)

// The flags an item may carry.
const (
	GoldFails      = "gold_fails"      // the gold errs or times out (or cannot be read or opened)
	OrderDependent = "order_dependent" // its result changes with the engine's scan order
	TieAtLimit     = "tie_at_limit"    // ORDER BY … LIMIT k with a tie at the cut
	FloatRounding  = "float_rounding"  // floats that rounding alone tells apart
	Empty          = "empty"           // no rows on every database
	Weak           = "weak"            // one value that most near misses also return
	SelectStar     = "select_star"     // SELECT *: columns and their order come from the schema
	Duplicate      = "duplicate"       // the same question with another gold, or the same gold under another question
	MixedTypes     = "mixed_types"     // text and numbers in one result column
	SuspectGold    = "suspect_gold"    // several systems agree with each other on a counterexample, against the gold
)

// Flag says what one flag means and why it matters.
type Flag struct {
	Name string `json:"name"`
	// Kind groups flags: "broken" (the gold cannot be scored against), "unstable" (a
	// correct prediction may be scored wrong), "weak" (a wrong prediction may be scored
	// right), "ambiguous", "duplicate" or "suspect" (the gold itself may be wrong).
	Kind string `json:"kind"`
	Doc  string `json:"doc"`
}

// Flags lists every flag in report order.
var Flags = []Flag{
	{GoldFails, "broken", "the gold query fails (error or timeout) or its database cannot be read: every prediction is scored against nothing"},
	{OrderDependent, "unstable", "the gold's result changes when SQLite scans tables in reverse order (PRAGMA reverse_unordered_selects): a correct prediction can be scored wrong"},
	{TieAtLimit, "unstable", "ORDER BY … LIMIT k with a tie at the cut: another correct tie-break returns other rows"},
	{FloatRounding, "ambiguous", "the result holds computed floats (more than 6 decimals, or digits that change with summation order): a prediction that rounds is scored wrong"},
	{Empty, "weak", "the gold returns no rows on every database: any prediction returning nothing passes"},
	{Weak, "weak", "the gold returns a single value that most of its near-miss neighbours also return: wrong predictions pass"},
	{SelectStar, "ambiguous", "SELECT *: the columns and their order come from the schema, not the question"},
	{Duplicate, "duplicate", "the same question has another gold, or the same gold answers another question"},
	{MixedTypes, "ambiguous", "a result column mixes text and numbers: engines and comparisons disagree on their equality and order"},
	{SuspectGold, "suspect", "on a counterexample database (qeval verify), several systems' predictions agree with each other and all differ from the gold: the gold may be the one that is wrong"},
}

// Item is one gold query to audit.
type Item struct {
	Index    int    // position in the gold set, 0-based
	Ref      string // names the item in messages, e.g. "dev_gold.sql:12"
	DBID     string
	Question string // "" when the gold set has none
	Gold     string
	// GoldNumber is, for a suite case with several golds, which of them Gold is (from
	// 1); the case's items share its Index. 0 for a case with one gold.
	GoldNumber int
	// Source is the resolved database: one file or server, or the files of a test suite.
	Source *qeval.Source
	// Err is why the item could not be read or its database resolved; it is flagged
	// gold_fails with this message and nothing is run.
	Err error
	// Preds are several systems' predictions for the item ("" where a system has none),
	// and Counterexamples the databases on which one of them differs from the gold
	// (qeval verify's): the suspect_gold check runs them all there.
	Preds           []string
	Counterexamples []string
}

// Options tune Run. The zero value works.
type Options struct {
	// Limits bound each gold query (qeval.DefaultTimeout, rows and bytes when zero).
	Limits qeval.Limits
	// NeighbourTimeout bounds each neighbour query of the weak-gold check (2 s).
	NeighbourTimeout time.Duration
	// Reversed returns an opener whose scans run in reverse order for a source's
	// engine, nil when the engine has none (the scan-order check is then skipped).
	Reversed func(src *qeval.Source) qeval.Opener
	// Mode compares results (compare.Default): the reversed run against the normal
	// one, and the neighbours against the gold.
	Mode compare.Mode
	// MaxNeighbours caps the neighbours run per single-value gold (24).
	MaxNeighbours int
	// WeakShare is the share of neighbours returning the gold's value from which a gold
	// is weak (0.5); at least 3 neighbours must run.
	WeakShare float64
	// Workers is how many databases are audited at once (GOMAXPROCS).
	Workers int
	// Progress, when set, is called after each item (from several goroutines).
	Progress func(done, total int)
	// OpenCounterexample opens the counterexample databases of the suspect_gold check
	// (nil skips it).
	OpenCounterexample qeval.Opener
}

func (o *Options) defaults() {
	if o.NeighbourTimeout <= 0 {
		o.NeighbourTimeout = 2 * time.Second
	}
	if o.Mode.Equal == nil {
		o.Mode = compare.Default
	}
	if o.MaxNeighbours <= 0 {
		o.MaxNeighbours = 24
	}
	if o.WeakShare <= 0 {
		o.WeakShare = 0.5
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
}

// Finding is the audit of one item: its flags and, per flag, the evidence.
type Finding struct {
	Index    int            `json:"index"`
	DBID     string         `json:"db_id"`
	Ref      string         `json:"ref,omitempty"`
	Question string         `json:"question,omitempty"`
	Gold     string         `json:"gold"`
	Flags    []string       `json:"flags"`
	Evidence map[string]any `json:"evidence"`
	// GoldNumber is the item's: which gold of its case, when the case has several.
	GoldNumber int `json:"gold_number,omitempty"`
}

// Has reports whether the finding carries the flag.
func (f *Finding) Has(flag string) bool {
	for _, x := range f.Flags {
		if x == flag {
			return true
		}
	}
	return false
}

// HasAny reports whether the finding carries one of the flags.
func (f *Finding) HasAny(flags ...string) bool {
	for _, x := range flags {
		if f.Has(x) {
			return true
		}
	}
	return false
}

func (f *Finding) flag(name string, evidence any) {
	if !f.Has(name) {
		f.Flags = append(f.Flags, name)
	}
	if evidence != nil {
		f.Evidence[name] = evidence
	}
}

// Report is the audit of a gold set.
type Report struct {
	Items []Finding `json:"items"`
	// Counts is the number of items carrying each flag (every flag present, 0 or not).
	Counts  map[string]int `json:"counts"`
	Flagged int            `json:"flagged"` // items with at least one flag
	// Untrustworthy is the items with a flag other than duplicate: gold a verdict cannot
	// be trusted against. A duplicate alone is often intended (Spider asks many
	// questions twice, in other words), so the headline counts it apart.
	Untrustworthy int `json:"untrustworthy"`
	Total         int `json:"total"`
	// Problems are the items that could not be read, resolved or opened, one message each.
	Problems []string      `json:"problems,omitempty"`
	Elapsed  time.Duration `json:"-"`
	Seconds  float64       `json:"seconds"`
}

// Select returns the findings carrying any of the flags.
func (r *Report) Select(flags ...string) []Finding {
	var out []Finding
	for _, f := range r.Items {
		if f.HasAny(flags...) {
			out = append(out, f)
		}
	}
	return out
}

// Run audits the items. It returns every item's finding, in index order; an item that
// cannot be run is flagged gold_fails with the reason and the others go on. The error is
// ctx's when it ended first (the report then holds the items audited so far).
func Run(ctx context.Context, items []Item, opt Options) (*Report, error) {
	opt.defaults()
	start := time.Now()
	rep := &Report{Items: make([]Finding, len(items)), Total: len(items), Counts: map[string]int{}}
	for i, it := range items {
		rep.Items[i] = Finding{Index: it.Index, DBID: it.DBID, Ref: it.Ref, Question: it.Question, Gold: it.Gold, GoldNumber: it.GoldNumber,
			Flags: []string{}, Evidence: map[string]any{}}
		if it.Err != nil || it.Source == nil {
			msg := "no database"
			if it.Err != nil {
				msg = qeval.ErrorMessage(it.Err)
			}
			rep.Items[i].flag(GoldFails, failure{Stage: "read", Error: msg})
			rep.Problems = append(rep.Problems, refOf(it)+": "+msg)
		}
	}
	groups, order := databaseGroups(items)
	run := &auditRun{items: items, opt: &opt, rep: rep}
	var wg sync.WaitGroup
	jobs := make(chan string)
	for w := 0; w < opt.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for key := range jobs {
				run.database(ctx, groups[key])
			}
		}()
	}
	for _, key := range order {
		if ctx.Err() != nil {
			break
		}
		jobs <- key
	}
	close(jobs)
	wg.Wait()
	duplicates(items, rep.Items)
	rep.count()
	sort.Strings(rep.Problems)
	rep.Elapsed = time.Since(start)
	rep.Seconds = rep.Elapsed.Seconds()
	return rep, ctx.Err()
}

// databaseGroups returns the items (indexes) of each database that can be run, by
// engine and files, and the databases' keys, the biggest database first so that one
// slow database does not finish last alone.
func databaseGroups(items []Item) (map[string][]int, []string) {
	groups := map[string][]int{}
	var order []string
	for i, it := range items {
		if it.Err != nil || it.Source == nil {
			continue
		}
		key := it.Source.Engine + "\x00" + strings.Join(it.Source.Files, "\x00")
		if _, ok := groups[key]; !ok {
			order = append(order, key)
		}
		groups[key] = append(groups[key], i)
	}
	sort.SliceStable(order, func(a, b int) bool { return len(groups[order[a]]) > len(groups[order[b]]) })
	return groups, order
}

// auditRun is an audit under way, shared by the workers; mu guards rep.Problems and
// done.
type auditRun struct {
	items []Item
	opt   *Options
	rep   *Report
	mu    sync.Mutex
	done  int
}

// database opens one database and audits its items (idx) on it, until ctx ends; if it
// cannot be opened, each item is flagged gold_fails.
func (a *auditRun) database(ctx context.Context, idx []int) {
	db := openDatabase(a.items[idx[0]].Source, a.opt)
	for _, i := range idx {
		if ctx.Err() != nil {
			break
		}
		f := &a.rep.Items[i]
		if db.err != "" {
			f.flag(GoldFails, failure{Stage: "open", Error: db.err})
			a.mu.Lock()
			a.rep.Problems = append(a.rep.Problems, refOf(a.items[i])+": "+db.err)
			a.mu.Unlock()
		} else {
			auditItem(ctx, a.items[i], db, f, a.opt)
		}
		if a.opt.Progress != nil {
			a.mu.Lock()
			a.done++
			d := a.done
			a.mu.Unlock()
			a.opt.Progress(d, len(a.items))
		}
	}
	db.close()
}

// count puts each finding's flags in order and counts the items flagged and those
// carrying each flag (every flag present, 0 or not).
func (r *Report) count() {
	for i := range r.Items {
		f := &r.Items[i]
		sortFlags(f.Flags)
		if len(f.Flags) > 0 {
			r.Flagged++
		}
		if slices.ContainsFunc(f.Flags, func(x string) bool { return x != Duplicate }) {
			r.Untrustworthy++
		}
		for _, x := range f.Flags {
			r.Counts[x]++
		}
	}
	for _, fl := range Flags {
		r.Counts[fl.Name] += 0
	}
}

func refOf(it Item) string {
	if it.Ref != "" {
		return it.Ref
	}
	return "item " + strconv.Itoa(it.Index)
}

// sortFlags puts flags in the order of Flags.
func sortFlags(fs []string) {
	rank := func(s string) int {
		for i, f := range Flags {
			if f.Name == s {
				return i
			}
		}
		return len(Flags)
	}
	sort.SliceStable(fs, func(a, b int) bool { return rank(fs[a]) < rank(fs[b]) })
}

// database is one source opened for the audit: an executor per file, and one with
// reversed scans per file when the engine has them.
type database struct {
	files    []string
	normal   []qeval.Executor
	reversed []qeval.Executor
	schema   *qeval.Schema
	err      string
}

func openDatabase(src *qeval.Source, opt *Options) *database {
	db := &database{files: src.Files}
	var rev qeval.Opener
	if opt.Reversed != nil {
		rev = opt.Reversed(src)
	}
	for _, f := range src.Files {
		ex, err := src.Open(f, opt.Limits)
		if err != nil {
			db.err = qeval.ErrorMessage(err)
			if !strings.Contains(db.err, f) {
				db.err = "cannot open " + f + ": " + db.err
			}
			db.close()
			return db
		}
		db.normal = append(db.normal, ex)
		if rev != nil {
			r, err := rev(f, opt.Limits)
			if err != nil {
				db.err = "cannot open " + f + " with reversed scans: " + qeval.ErrorMessage(err)
				db.close()
				return db
			}
			db.reversed = append(db.reversed, r)
		}
	}
	if sr, ok := db.normal[0].(qeval.SchemaReader); ok {
		if s, err := sr.Schema(context.Background()); err == nil {
			db.schema = s
		}
	}
	return db
}

func (db *database) close() {
	for _, ex := range db.normal {
		ex.Close()
	}
	for _, ex := range db.reversed {
		ex.Close()
	}
}
