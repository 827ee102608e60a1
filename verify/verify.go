// Package verify checks pairs of gold and predicted queries whose results match on the
// given database beyond it: for each pair, a small database on which the two differ
// (a counterexample, shrunk to a few rows and written to the counterexample folder),
// or a proof that no database with up to K rows per table tells them apart, or
// neither — said so, never called verified.
//
// Two steps, both bounded by the pair's deadline. A targeted search (testsuite's
// generator) tries small databases made for the two queries: the literals of both and
// their neighbours, NULLs, duplicates, empty tables, rows of the original. It finds
// most differences, cheaply. When it finds none, a Prover (the bounded model of
// VeriEQL: the queries' semantics over symbolic tables of up to K rows, handed to an
// SMT solver) decides the pair where its encoding covers the queries.
//
// The package reads and writes databases only through the functions of Options
// (sqlite's in the CLI), and runs its solver only through Prover.
package verify

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/compare"
	"github.com/qeval/qeval/testsuite"
)

// DefaultTimeout bounds one pair.
const DefaultTimeout = 20 * time.Second

// DefaultWideTries is how many databases of a test suite's size the search tries
// after the small ones: differences that need more than a few rows per table.
const DefaultWideTries = 24

// Options configure a Verifier. Open, Create and Check are required.
type Options struct {
	Mode         compare.Mode
	KeepDistinct bool
	// Bound is K, the rows per table the complete check covers (qeval.DefaultVerifyBound).
	Bound int
	// Timeout bounds each pair (DefaultTimeout).
	Timeout time.Duration
	// Out is the counterexample folder ("" keeps none).
	Out string
	// ForeignKeys are keys the schemas do not declare (tables.json), by db_id.
	ForeignKeys map[string][]testsuite.ForeignKey
	// MaxTries bounds the databases the search tries per pair
	// (testsuite.DefaultSearchTries); Seed makes it reproducible.
	MaxTries int
	Seed     uint64
	// WideTries bounds the databases of a test suite's size tried after the small
	// ones found nothing (DefaultWideTries; negative: none).
	WideTries int
	Open      qeval.Opener
	Create    func(path, like string) (testsuite.TableWriter, error)
	Check     func(path string) error
	// Prover is the complete check; nil runs the search alone.
	Prover Prover
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Verifier verifies pairs; it satisfies qeval.Verifier.
type Verifier struct {
	opt  Options
	work string // where the databases tried go
	temp bool   // work is a temporary folder of our own

	mu        sync.Mutex
	originals map[string]*originalOnce
}

var _ qeval.Verifier = (*Verifier)(nil)

type originalOnce struct {
	once sync.Once
	o    *testsuite.Original
	s    *Schema
	err  error
}

// New returns a Verifier; with Options.Out it creates that folder.
func New(opt Options) (*Verifier, error) {
	if opt.Open == nil || opt.Create == nil || opt.Check == nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "verify", Message: "Options.Open, Create and Check are required"}
	}
	if opt.Mode.Equal == nil {
		opt.Mode = compare.Default
	}
	if opt.Bound <= 0 {
		opt.Bound = qeval.DefaultVerifyBound
	}
	if opt.Timeout <= 0 {
		opt.Timeout = DefaultTimeout
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.WideTries == 0 {
		opt.WideTries = DefaultWideTries
	}
	v := &Verifier{opt: opt, originals: map[string]*originalOnce{}}
	if opt.Out != "" {
		if err := os.MkdirAll(opt.Out, 0o755); err != nil {
			return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "create counterexample folder " + opt.Out, Message: err.Error(), Err: err}
		}
		v.work = filepath.Join(opt.Out, ".work")
		if err := os.MkdirAll(v.work, 0o755); err != nil {
			return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "create counterexample folder " + opt.Out, Message: err.Error(), Err: err}
		}
	} else {
		dir, err := os.MkdirTemp("", "qeval-verify-")
		if err != nil {
			return nil, &qeval.Error{Code: qeval.CodeInternal, Op: "verify", Message: err.Error(), Err: err}
		}
		v.work, v.temp = dir, true
	}
	return v, nil
}

// Close removes the work folder.
func (v *Verifier) Close() error {
	return os.RemoveAll(v.work)
}

// original reads a database once for every pair on it.
func (v *Verifier) original(ctx context.Context, p qeval.VerifyPair) (*testsuite.Original, *Schema, error) {
	v.mu.Lock()
	oo, ok := v.originals[p.Database]
	if !ok {
		oo = &originalOnce{}
		v.originals[p.Database] = oo
	}
	v.mu.Unlock()
	oo.once.Do(func() {
		oo.o, oo.err = testsuite.ReadOriginal(context.WithoutCancel(ctx), p.Database, v.opt.ForeignKeys[p.DBID], v.opt.Open)
		if oo.err == nil {
			oo.s = schemaOf(oo.o)
		}
	})
	return oo.o, oo.s, oo.err
}

// Verify verifies one matched pair: the search first, then the complete check.
func (v *Verifier) Verify(ctx context.Context, p qeval.VerifyPair) qeval.Verification {
	start := v.opt.Now()
	r := v.verify(ctx, p)
	r.Time = v.opt.Now().Sub(start)
	return r
}

func (v *Verifier) verify(ctx context.Context, p qeval.VerifyPair) qeval.Verification {
	ctx, cancel := context.WithTimeout(ctx, v.opt.Timeout)
	defer cancel()
	g, q, ordered := v.opt.Mode.Prepare(p.Gold, p.Pred, compare.Options{KeepDistinct: v.opt.KeepDistinct})
	if sameQuery(g, q) {
		return qeval.Verification{Status: qeval.VerifyEquivalent, Bound: v.opt.Bound,
			Reason: "the two queries are the same as executed: equal on every database"}
	}
	orig, schema, err := v.original(ctx, p)
	if err != nil {
		return qeval.Verification{Status: qeval.VerifyUnsupported, Reason: "the database cannot be modelled: " + qeval.ErrorMessage(err)}
	}
	work, err := os.MkdirTemp(v.work, "pair-")
	if err != nil {
		return qeval.Verification{Status: qeval.VerifyNoCounterexample, Reason: "work folder: " + err.Error()}
	}
	defer os.RemoveAll(work)
	found, tries, err := v.search(ctx, orig, g, q, ordered, work)
	if err != nil {
		return qeval.Verification{Status: qeval.VerifyNoCounterexample, Tries: tries, Reason: "search: " + qeval.ErrorMessage(err)}
	}
	if found != nil {
		r, err := v.counterexample(ctx, p, found, g, q, ordered, work)
		r.Tries = tries
		if err == nil {
			return r
		}
		// the search's database differs but could not be written as a counterexample
		return qeval.Verification{Status: qeval.VerifyNoCounterexample, Tries: tries,
			Reason: "a database told the queries apart but could not be kept: " + qeval.ErrorMessage(err)}
	}
	searched := fmt.Sprintf("no counterexample in %d databases tried", tries)
	if ctx.Err() != nil {
		searched = fmt.Sprintf("the pair's deadline (%s) passed after %d databases tried, none a counterexample", v.opt.Timeout, tries)
		return qeval.Verification{Status: qeval.VerifyNoCounterexample, Tries: tries, Reason: searched}
	}
	if v.opt.Prover == nil {
		return qeval.Verification{Status: qeval.VerifyNoCounterexample, Tries: tries, Reason: searched + "; no complete check"}
	}
	return v.prove(ctx, p, orig, schema, g, q, ordered, tries, searched, work)
}

// search tries small databases, then, when none tells the queries apart, databases
// of a test suite's size.
func (v *Verifier) search(ctx context.Context, orig *testsuite.Original, g, q string, ordered bool, work string) (*testsuite.Found, int, error) {
	opt := testsuite.SearchOptions{Gold: g, Pred: q, Mode: v.opt.Mode, Ordered: ordered,
		Open: v.opt.Open, Create: v.opt.Create, Work: work, MaxTries: v.opt.MaxTries, Seed: v.opt.Seed}
	found, tries, err := orig.Search(ctx, opt)
	if found != nil || err != nil || v.opt.WideTries < 0 || ctx.Err() != nil {
		return found, tries, err
	}
	opt.Wide, opt.MaxTries = true, v.opt.WideTries
	found, more, err := orig.Search(ctx, opt)
	return found, tries + more, err
}

// prove runs the complete check after a search found nothing.
func (v *Verifier) prove(ctx context.Context, p qeval.VerifyPair, orig *testsuite.Original, schema *Schema, g, q string, ordered bool, tries int, searched string, work string) qeval.Verification {
	rule := RuleOf(v.opt.Mode.Name)
	if rule == "" {
		return qeval.Verification{Status: qeval.VerifyUnsupported, Tries: tries,
			Reason: "the complete check models the comparison of spider-ts and bird-ex, not " + v.opt.Mode.ID() + "; " + searched}
	}
	pr := v.opt.Prover.Prove(ctx, ProveRequest{Schema: schema, Gold: g, Pred: q, Ordered: ordered, Bound: v.opt.Bound, Rule: rule})
	out := qeval.Verification{Tries: tries}
	switch {
	case pr.Unsupported != "":
		out.Status, out.Reason = qeval.VerifyUnsupported, pr.Unsupported+"; "+searched
	case pr.Equivalent:
		out.Status, out.Bound = qeval.VerifyEquivalent, v.opt.Bound
		out.Reason = fmt.Sprintf("no database with up to %d rows per table tells them apart", v.opt.Bound)
		if pr.Note != "" {
			out.Reason += " (" + pr.Note + ")"
		}
	case pr.Differ && pr.Rows != nil && v.realize(ctx, p, orig, pr, g, q, ordered, work, &out):
	case pr.Differ:
		out.Status = qeval.VerifyNoCounterexample
		out.Reason = fmt.Sprintf("the solver found a difference with up to %d rows per table that no database tried reproduced; %s", v.opt.Bound, searched)
	default:
		out.Status, out.Reason = qeval.VerifyNoCounterexample, searched
		if pr.Error != "" {
			out.Reason = "complete check: " + pr.Error + "; " + searched
		}
	}
	return out
}

// realize writes the database the solver found and, when the queries differ on it
// there too, keeps it as the counterexample.
func (v *Verifier) realize(ctx context.Context, p qeval.VerifyPair, orig *testsuite.Original, pr Proof, g, q string, ordered bool, work string, out *qeval.Verification) bool {
	path := filepath.Join(work, "solver.sqlite")
	if _, err := orig.Write(path, pr.Rows, v.opt.Create); err != nil {
		return false
	}
	r, err := v.counterexample(ctx, p, &testsuite.Found{Path: path}, g, q, ordered, work)
	if err != nil {
		return false
	}
	tries := out.Tries
	*out = r
	out.Tries = tries
	out.Reason += fmt.Sprintf(" (found by the solver with up to %d rows per table)", v.opt.Bound)
	return true
}

// counterexample shrinks the search's database and writes it, with the pair, both
// results and the explanation beside it.
func (v *Verifier) counterexample(ctx context.Context, p qeval.VerifyPair, f *testsuite.Found, g, q string, ordered bool, work string) (qeval.Verification, error) {
	out := filepath.Join(work, "counterexample.sqlite")
	if v.opt.Out != "" {
		out = filepath.Join(v.opt.Out, fileName(p.ID)+".sqlite")
		os.Remove(out) // a resumed run writes it again
	}
	ce, err := testsuite.Shrink(ctx, testsuite.ShrinkOptions{Database: f.Path, Gold: g, Pred: q, Mode: v.opt.Mode, Ordered: ordered,
		ForeignKeys: v.opt.ForeignKeys[p.DBID], Open: v.opt.Open, Create: v.opt.Create, Check: v.opt.Check, Work: work, Out: out})
	if err != nil && ctx.Err() != nil {
		// out of time while shrinking: keep the search's database as it is
		ce, err = testsuite.Shrink(context.WithoutCancel(ctx), testsuite.ShrinkOptions{Database: f.Path, Gold: g, Pred: q, Mode: v.opt.Mode, Ordered: ordered,
			ForeignKeys: v.opt.ForeignKeys[p.DBID], Open: v.opt.Open, Create: v.opt.Create, Check: v.opt.Check, Work: work, Out: out, MaxTrials: 1})
	}
	if err != nil {
		return qeval.Verification{}, err
	}
	r := qeval.Verification{Status: qeval.VerifyCounterexample, Reason: reason(ce)}
	if v.opt.Out == "" {
		return r, nil
	}
	r.Counterexample = out
	doc := Counterexample{ID: p.ID, DBID: p.DBID, Original: p.Database, Gold: p.Gold, Pred: p.Pred, GoldExecuted: g, PredExecuted: q,
		Mode: v.opt.Mode.ID(), Ordered: ordered, Counterexample: ce}
	data, _ := json.MarshalIndent(doc, "", "  ")
	if err := os.WriteFile(strings.TrimSuffix(out, ".sqlite")+".json", append(data, '\n'), 0o644); err != nil {
		return qeval.Verification{}, err
	}
	return r, nil
}

// Counterexample is the file written beside a counterexample database (<id>.json): the
// pair, how it was compared, and the shrunk database with both results.
type Counterexample struct {
	ID           string `json:"id"`
	DBID         string `json:"db_id"`
	Original     string `json:"original_database"`
	Gold         string `json:"gold"`
	Pred         string `json:"pred"`
	GoldExecuted string `json:"gold_executed"`
	PredExecuted string `json:"pred_executed"`
	Mode         string `json:"mode"`
	Ordered      bool   `json:"ordered"`
	*testsuite.Counterexample
}

// ReadCounterexample reads the file written beside a counterexample database.
func ReadCounterexample(dbPath string) (*Counterexample, error) {
	path := strings.TrimSuffix(dbPath, filepath.Ext(dbPath)) + ".json"
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeNotFound, Op: "read counterexample " + path, Message: err.Error(), Err: err}
	}
	var c Counterexample
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "read counterexample " + path, Message: err.Error(), Err: err}
	}
	return &c, nil
}

// reason says in one line how the counterexample tells the queries apart.
func reason(ce *testsuite.Counterexample) string {
	if ce.PredError != "" {
		return fmt.Sprintf("%d rows: the gold runs, the prediction fails: %s", ce.RowsAfter, ce.PredError)
	}
	return fmt.Sprintf("%d rows: %s", ce.RowsAfter, ce.Explanation)
}

// sameQuery compares two queries ignoring case outside quotes and white space.
func sameQuery(a, b string) bool {
	return normalize(a) == normalize(b)
}

func normalize(q string) string {
	var b strings.Builder
	var quote byte
	space := false
	q = strings.TrimRight(strings.TrimSpace(q), "; \t\n")
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case quote != 0:
			b.WriteByte(c)
			if c == quote {
				quote = 0
			}
			continue
		case c == '\'' || c == '"' || c == '`':
			quote = c
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			space = true
			continue
		}
		if space && b.Len() > 0 && joins(b.String()[b.Len()-1], c) {
			b.WriteByte(' ')
		}
		space = false
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}

// joins reports whether two characters a space separated would read otherwise
// together: two words, or the start or end of a comment ("--", "/*", "*/").
func joins(prev, c byte) bool {
	if isWord(prev) && isWord(c) {
		return true
	}
	pair := string([]byte{prev, c})
	return pair == "--" || pair == "/*" || pair == "*/"
}

func isWord(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// fileName makes an item id safe as a file name.
func fileName(id string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == 0 || r == ':' {
			return '_'
		}
		return r
	}, id)
}
