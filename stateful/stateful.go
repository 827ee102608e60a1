// Package stateful judges stateful cases: answers that change data, each run in a
// disposable copy of the database (qeval.Sandbox), one copy for the gold and one for
// the generated answer. Each side runs the case's setup, its answer (one or several
// statements), its checks, and is described (the tables of compare_state, the
// definitions of compare_schema) before its teardown; the verdict is a match only when
// every check, table and definition agrees and, with an efficiency bound, the
// generated answer costs no more than the bound allows.
//
// A setup that fails is setup_error (the suite's failure, never the model's), a gold
// statement or a check that fails on the gold is gold_error, a generated statement
// that fails is pred_error (or timeout, too_large) naming the statement from 1.
package stateful

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/compare"
	"github.com/qeval/qeval/sqlparse"
)

// DefaultMaxStatements bounds the statements one side of a case runs (setup, answer,
// checks and teardown together): the total work of a case is bounded by it times each
// statement's deadline, within the case's own deadline.
const DefaultMaxStatements = 1000

// Options configure Match. Mode is required.
type Options struct {
	// Mode compares the checks' results and the answers' last results.
	Mode compare.Mode
	// Limits bound every statement (timeout, rows, bytes).
	Limits qeval.Limits
	// MaxStatements bounds each side's statements (DefaultMaxStatements when 0).
	MaxStatements int
	// NoExplanations leaves out how check results differ.
	NoExplanations bool
	// Now times each side (time.Now when nil).
	Now func() time.Time
}

// Case is what Match needs of a stateful case: its spec.
type Case = qeval.StatefulSpec

// Match judges the generated answer pred against gold, each in its own copy of its
// source's first database: gold on goldSrc, pred on predSrc (the same source, or the
// same data on another engine).
func Match(ctx context.Context, c Case, gold, pred string, goldSrc, predSrc *qeval.Source, opt Options) qeval.Verdict {
	v := qeval.Verdict{Mode: opt.Mode.ID(), Candidates: 1, State: &qeval.StateVerdict{}}
	if opt.MaxStatements <= 0 {
		opt.MaxStatements = DefaultMaxStatements
	}
	opt.Limits = opt.Limits.WithDefaults()
	for _, src := range []*qeval.Source{goldSrc, predSrc} {
		if src.Sandbox == nil || len(src.Files) == 0 {
			v.Outcome = qeval.OutcomeUnscorable
			v.Error = fmt.Sprintf("gold query: stateful cases need a copy of the database, and %s (%s) cannot make one (sqlite, duckdb, postgres and mysql can)", src.Display, src.Engine)
			return v
		}
	}
	if err := (qeval.QueryBounds{}).Check(pred); err != nil {
		v.Outcome, v.Error = qeval.OutcomePredError, qeval.ErrorMessage(err)
		return v
	}
	plan := newPlan(c, goldSrc.Dialect)
	// both copies stay until the verdict: the rows of a table are read only when the
	// two sides' digests of it differ
	g := run(ctx, goldSide, c, &plan, gold, goldSrc, opt)
	defer g.close()
	v.GoldTime, v.Database = g.took, goldSrc.Files[0]
	v.State.GoldStatements = g.statements
	if g.outcome != "" {
		v.Outcome, v.Error = g.outcome, g.err
		return v
	}
	p := run(ctx, predSide, c, &plan, pred, predSrc, opt)
	defer p.close()
	v.PredTime = p.took
	v.State.PredStatements = p.statements
	if p.outcome != "" {
		v.Outcome, v.Error = p.outcome, p.err
		if p.outcome == qeval.OutcomeSetupError || p.outcome == qeval.OutcomeCanceled {
			return v
		}
		if p.checks == nil { // the answer itself failed: nothing to compare
			return v
		}
	}
	judge(ctx, &v, c, plan, &g, &p, opt)
	// the teardown runs last, in each copy (isolation makes it optional); one that
	// fails after the gold is the suite's, after the generated answer it says nothing
	if err := g.teardown(ctx, c, goldSrc.Dialect, opt); err != nil {
		v.Match, v.Outcome, v.Error = false, qeval.OutcomeSetupError, err.Error()
	}
	p.teardown(ctx, c, predSrc.Dialect, opt)
	return v
}

// plan is what a case compares, decided once for both sides.
type plan struct {
	checks []string
	state  *qeval.StateCompare
	schema bool
	// result: neither checks nor a state or schema comparison: the answers' last
	// results are compared, or, when the gold's last statement has none, every table.
	result bool
}

func newPlan(c Case, dialect string) plan {
	p := plan{state: c.CompareState, schema: c.CompareSchema}
	for _, text := range c.Checks {
		// a check is one query: a text of several is several checks
		for _, piece := range sqlparse.Statements(dialect, text) {
			p.checks = append(p.checks, piece.Text)
		}
	}
	p.result = len(p.checks) == 0 && p.state == nil && !p.schema
	return p
}

// side names the two runs of a case.
type side int

const (
	goldSide side = iota
	predSide
)

// sideRun is what one side left: its checks' results, its tables and definitions.
type sideRun struct {
	outcome    qeval.Outcome // "" when the side ran to the end
	err        string
	statements int
	took       time.Duration
	last       *qeval.ResultSet
	lastStmt   string
	checks     []*qeval.ResultSet // nil until the checks ran
	checkErrs  []string
	// tables are the rows of the state's tables (by lower-case name), read when the
	// side ran or, where the copy has digests (fps), when the two sides' differ
	tables   map[string]*qeval.ResultSet
	fps      map[string]string
	stored   map[string]string // the digests of the tables as stored (sd), when taken
	cols     map[string][]string
	names    map[string]string
	counts   map[string]int  // the row counts of fps and stored
	present  map[string]bool // the state's tables the side left
	ordered  bool
	defs     []qeval.TableDefinition
	cost     float64
	costUnit string
	sb       qeval.Sandbox       // open until the verdict (close)
	fp       qeval.Fingerprinter // sb's digests, when it has them
	sd       qeval.StoredDigester
	reused   qeval.ReusedSandbox // sb, when it is a reused copy
	budget   int                 // statements left
}

func (r *sideRun) close() {
	if r.sb != nil {
		r.sb.Close()
	}
}

// rows returns a table's rows, reading them from the copy the first time.
func (r *sideRun) rows(ctx context.Context, name string) (*qeval.ResultSet, error) {
	key := strings.ToLower(name)
	if rs, ok := r.tables[key]; ok {
		return rs, nil
	}
	rs, err := r.sb.Rows(ctx, name, r.ordered)
	if err != nil {
		return nil, err
	}
	r.tables[key] = rs
	return rs, nil
}

// exec runs one statement within the side's statement budget.
func (r *sideRun) exec(ctx context.Context, stmt string, opt Options) (*qeval.ResultSet, error) {
	if r.budget--; r.budget < 0 {
		return nil, &qeval.Error{Code: qeval.CodeTooLarge, Message: fmt.Sprintf("more than %d statements in one side of a case (setup, answer, checks and teardown together)", opt.MaxStatements)}
	}
	return r.sb.Query(ctx, stmt)
}

// teardown runs the case's teardown in the side's copy; it returns the first failure.
func (r *sideRun) teardown(ctx context.Context, c Case, dialect string, opt Options) error {
	if r.sb == nil {
		return nil
	}
	for i, stmt := range statements(dialect, c.Teardown...) {
		if _, err := r.exec(ctx, stmt, opt); err != nil {
			return fmt.Errorf("teardown statement %d (on the gold's copy): %s", i+1, qeval.ErrorMessage(err))
		}
	}
	return nil
}

// statements cuts texts into statements by the source's dialect.
func statements(dialect string, texts ...string) []string {
	var out []string
	for _, t := range texts {
		for _, p := range sqlparse.Statements(dialect, t) {
			out = append(out, p.Text)
		}
	}
	return out
}

// run runs one side of a case in a copy of src's first database: a reused copy where
// the engine keeps them, and again in a fresh copy when the reused one was lost (a
// statement it cannot run, see qeval.ReusedSandbox).
func run(ctx context.Context, who side, c Case, pl *plan, answer string, src *qeval.Source, opt Options) (r sideRun) {
	now := opt.Now
	if now == nil {
		now = time.Now
	}
	start := now()
	defer func() { r.took = now().Sub(start) }()
	saved := *pl // the gold's run may decide what is compared; the second run decides again
	r = runIn(qeval.WithSandboxReuse(ctx), who, c, pl, answer, src, opt)
	if r.reused == nil || !r.reused.Lost() || ctx.Err() != nil {
		return r
	}
	r.close()
	*pl = saved
	return runIn(ctx, who, c, pl, answer, src, opt)
}

// runIn runs one side of a case in the copy src makes with ctx.
func runIn(ctx context.Context, who side, c Case, pl *plan, answer string, src *qeval.Source, opt Options) (r sideRun) {
	made, err := src.Sandbox(ctx, src.Files[0], opt.Limits)
	if err != nil {
		if ctx.Err() != nil {
			return canceledRun(ctx, who)
		}
		r.outcome, r.err = qeval.OutcomeSetupError, fmt.Sprintf("copy %s (%s) for the %s: %s", src.Display, src.Engine, who, qeval.ErrorMessage(err))
		if h := qeval.ErrorHint(err); h != "" {
			r.err += " (" + h + ")"
		}
		return r
	}
	sb := qeval.Track(made)
	r.sb = sb // the caller closes it, whatever the side's end
	r.fp, _ = made.(qeval.Fingerprinter)
	r.sd, _ = made.(qeval.StoredDigester)
	r.reused, _ = made.(qeval.ReusedSandbox)
	defer func() {
		if p := recover(); p != nil {
			sb.Close() // the caller never sees this side: its copy goes now
			panic(p)
		}
	}()
	r.budget = opt.MaxStatements
	exec := func(stmt string) (*qeval.ResultSet, error) { return r.exec(ctx, stmt, opt) }
	for i, stmt := range statements(src.Dialect, c.Setup...) {
		if _, err := exec(stmt); err != nil {
			return r.failed(ctx, who, qeval.OutcomeSetupError, fmt.Sprintf("setup statement %d (on the %s's copy): %s", i+1, who, qeval.ErrorMessage(err)))
		}
	}
	stmts := statements(src.Dialect, answer)
	r.statements = len(stmts)
	if len(stmts) == 0 {
		return r.failed(ctx, who, sideError(who), fmt.Sprintf("the %s has no statement", who))
	}
	r.costUnit = sb.CostUnit()
	for i, stmt := range stmts {
		if c.Efficiency != nil {
			cost, err := sb.Cost(ctx, stmt)
			if err != nil {
				return r.failed(ctx, who, qeval.FailedOutcome(err, sideError(who)), statementError(who, i, len(stmts), "cost", err))
			}
			r.cost += cost
		}
		rs, err := exec(stmt)
		if err != nil {
			return r.failed(ctx, who, qeval.FailedOutcome(err, sideError(who)), statementError(who, i, len(stmts), "", err))
		}
		r.last, r.lastStmt = rs, stmt
	}
	r.checks, r.checkErrs = make([]*qeval.ResultSet, len(pl.checks)), make([]string, len(pl.checks))
	for i, q := range pl.checks {
		rs, err := exec(q)
		switch {
		case err != nil && ctx.Err() != nil:
			return r.canceled(ctx, who)
		case err != nil && who == goldSide:
			return r.failed(ctx, who, qeval.OutcomeGoldError, fmt.Sprintf("check %d fails on the gold: %s", i+1, qeval.ErrorMessage(err)))
		case err != nil:
			r.checkErrs[i] = qeval.ErrorMessage(err)
		}
		r.checks[i] = rs
	}
	if who == goldSide && pl.result && (r.last == nil || len(r.last.Columns) == 0) {
		// the gold ends with a write and the case names nothing to compare: every table
		pl.state, pl.result = &qeval.StateCompare{All: true}, false
	}
	if err := r.describe(ctx, sb, *pl); err != nil {
		out := qeval.FailedOutcome(err, qeval.OutcomeGoldError)
		if out == qeval.OutcomeGoldError && who == predSide {
			out = qeval.OutcomePredError
		}
		return r.failed(ctx, who, out, fmt.Sprintf("read the tables the %s left: %s", who, qeval.ErrorMessage(err)))
	}
	return r
}

func (s side) String() string {
	if s == goldSide {
		return "gold"
	}
	return "generated answer"
}

// sideError is the outcome of a side's own failure.
func sideError(who side) qeval.Outcome {
	if who == goldSide {
		return qeval.OutcomeGoldError
	}
	return qeval.OutcomePredError
}

// statementError names the failed statement of an answer, from 1, with the engine's
// message.
func statementError(who side, i, n int, what string, err error) string {
	prefix := ""
	if who == goldSide {
		prefix = "gold query: "
	}
	if what != "" {
		what = " (its " + what + ")"
	}
	if n == 1 {
		return fmt.Sprintf("%sthe %s's statement failed%s: %s", prefix, who, what, qeval.ErrorMessage(err))
	}
	return fmt.Sprintf("%sstatement %d of %d of the %s failed%s: %s", prefix, i+1, n, who, what, qeval.ErrorMessage(err))
}

// failed ends a side: canceled when the run was, else with the outcome and message (a
// gold's timeout or too_large is still a gold_error).
func (r sideRun) failed(ctx context.Context, who side, o qeval.Outcome, msg string) sideRun {
	if ctx.Err() == context.Canceled {
		return r.canceled(ctx, who)
	}
	if who == goldSide && o != qeval.OutcomeSetupError {
		o = qeval.OutcomeGoldError
	}
	r.outcome, r.err = o, msg
	if r.outcome == qeval.OutcomeTimeout && ctx.Err() != nil {
		r.err = msg + " (the case's deadline)"
	}
	return r
}

// canceled is canceledRun keeping the side's copy, for the caller to close.
func (r sideRun) canceled(ctx context.Context, who side) sideRun {
	c := canceledRun(ctx, who)
	c.sb = r.sb
	return c
}

func canceledRun(ctx context.Context, who side) sideRun {
	if ctx.Err() == context.DeadlineExceeded {
		o := qeval.OutcomeTimeout
		if who == goldSide {
			o = qeval.OutcomeGoldError
		}
		return sideRun{outcome: o, err: fmt.Sprintf("the %s ran past the case's deadline", who)}
	}
	return sideRun{outcome: qeval.OutcomeCanceled, err: "canceled before the case finished"}
}

// digestKey is a table's digest with its columns: two empty tables of other columns
// differ.
func digestKey(cols []string, digest string) string {
	return strings.ToLower(strings.Join(cols, "\x00")) + "\x00" + digest
}

// fingerprint returns the digest of a table's rows (key lower-case), computing it the
// first time; "" when the copy has none.
func (r *sideRun) fingerprint(ctx context.Context, key string) string {
	if f, ok := r.fps[key]; ok || r.fp == nil || r.names[key] == "" {
		return f
	}
	f, n, err := r.fp.Fingerprint(ctx, r.names[key], r.cols[key], r.ordered)
	if err != nil {
		r.fps[key] = ""
		return ""
	}
	r.fps[key], r.counts[key] = digestKey(r.cols[key], f), n
	return r.fps[key]
}

// describe reads what the comparison needs of the copy: the tables of compare_state,
// the definitions of compare_schema (and the keys that pair changed rows).
func (r *sideRun) describe(ctx context.Context, sb qeval.Sandbox, pl plan) error {
	state := pl.state
	if state == nil && !pl.schema {
		return nil
	}
	defs, err := sb.Tables(ctx)
	if err != nil {
		return err
	}
	r.defs = defs
	if state == nil {
		return nil
	}
	r.tables, r.fps, r.counts, r.present, r.ordered = map[string]*qeval.ResultSet{}, map[string]string{}, map[string]int{}, map[string]bool{}, state.Ordered
	r.stored, r.cols, r.names = map[string]string{}, map[string][]string{}, map[string]string{}
	for _, d := range defs {
		if !state.All && !slices.ContainsFunc(state.Tables, func(n string) bool { return strings.EqualFold(d.Name, n) }) {
			continue
		}
		key := strings.ToLower(d.Name)
		r.present[key] = true
		if r.fp != nil {
			cols := make([]string, len(d.Columns))
			for i, c := range d.Columns {
				cols[i] = c.Name
			}
			r.cols[key], r.names[key] = cols, d.Name
			if r.sd != nil {
				// the digest of the stored rows first; the other only when two differ
				if f, n, ok := r.sd.StoredDigest(ctx, d.Name); ok {
					r.stored[key], r.counts[key] = digestKey(cols, f), n
					continue
				}
			}
			if r.fingerprint(ctx, key) != "" {
				continue
			}
		}
		if _, err := r.rows(ctx, d.Name); err != nil {
			return err
		}
	}
	return nil
}
