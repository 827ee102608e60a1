package testsuite

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/compare"
)

// DefaultMaxTrials bounds the databases Shrink builds.
const DefaultMaxTrials = 400

// ShrinkOptions configure Shrink. Open and Create are required.
type ShrinkOptions struct {
	// Database is the database file on which the two queries differ.
	Database string
	// Gold and Pred are the queries as executed (after the mode's rewrite).
	Gold, Pred string
	Mode       compare.Mode
	Ordered    bool
	// ForeignKeys adds keys the schema does not declare (tables.json) so that a
	// parent row is not deleted while a row refers to it.
	ForeignKeys []ForeignKey
	Open        qeval.Opener
	Create      func(path, like string) (TableWriter, error)
	// Timeout bounds each query (DefaultTimeout); MaxTrials the databases tried.
	Timeout   time.Duration
	MaxTrials int
	// Work is the folder the databases tried go to (a new temporary folder when "").
	Work string
	// Out, when set, is where the counterexample is written as a database (which must
	// not exist), checked by Check when set; the queries are run on it once more, and
	// an error says if they no longer differ there.
	Out   string
	Check func(path string) error
}

// Counterexample is a small database on which a gold and a predicted query differ.
type Counterexample struct {
	Database   string `json:"database"`
	RowsBefore int    `json:"rows_before"`
	RowsAfter  int    `json:"rows_after"`
	// Inserts fill the schema of Database with the rows of the counterexample.
	Inserts     []string          `json:"inserts"`
	Gold        *qeval.ResultSet  `json:"gold_result"`
	Pred        *qeval.ResultSet  `json:"pred_result,omitempty"`
	PredError   string            `json:"pred_error,omitempty"`
	Explanation qeval.Explanation `json:"explanation"`
	Trials      int               `json:"trials"`
}

// Shrink deletes rows of a database while the gold and predicted queries still give
// different results (or the prediction still fails while the gold runs), and returns
// what is left: a counterexample a person can read. Rows are deleted in halves, then
// quarters, down to one at a time; a row that others refer to goes with them.
func Shrink(ctx context.Context, opt ShrinkOptions) (*Counterexample, error) {
	if opt.Open == nil || opt.Create == nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "shrink", Message: "ShrinkOptions.Open and Create are required"}
	}
	if opt.Mode.Equal == nil {
		opt.Mode = compare.Default
	}
	if opt.Timeout <= 0 {
		opt.Timeout = DefaultTimeout
	}
	if opt.MaxTrials <= 0 {
		opt.MaxTrials = DefaultMaxTrials
	}
	limits := qeval.Limits{Timeout: opt.Timeout, MaxRows: 100_000, MaxBytes: 256 << 20}
	ex, err := opt.Open(opt.Database, limits)
	if err != nil {
		return nil, err
	}
	tables, _, err := readDatabase(ctx, ex)
	ex.Close()
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "shrink " + opt.Database, Message: err.Error()}
	}
	addSpiderKeys(tables, opt.ForeignKeys)
	resolveKeys(tables)
	rows := map[string][][]qeval.Value{}
	total := 0
	for _, t := range tables {
		rows[strings.ToLower(t.name)] = t.rows
		total += len(t.rows)
	}
	work, err := os.MkdirTemp(opt.Work, "qeval-shrink-")
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInternal, Op: "shrink", Message: err.Error(), Err: err}
	}
	defer os.RemoveAll(work)
	s := &shrinker{opt: opt, tables: tables, work: work, limits: limits}
	if g, err := parseSelect(opt.Gold); err == nil {
		s.ties, s.order = newTieChecks(g), newOrderCheck(g)
	}
	best, ok := s.try(ctx, rows)
	if !ok {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "shrink " + opt.Database,
			Message: "the gold and predicted results do not differ on this database"}
	}
	rows, best = s.deleteRows(ctx, rows, best, total)
	ce := &Counterexample{Database: opt.Database, RowsBefore: total, Trials: s.trials,
		Gold: best.gold, Pred: best.pred, PredError: best.predErr}
	ce.Inserts = insertStatements(tables, rows)
	ce.RowsAfter = len(ce.Inserts)
	if opt.Out != "" {
		o, err := s.writeOut(ctx, rows)
		if err != nil {
			return nil, err
		}
		best = o
		ce.Database, ce.Gold, ce.Pred, ce.PredError = opt.Out, o.gold, o.pred, o.predErr
	}
	if best.pred != nil {
		ce.Explanation = compare.Explain(opt.Mode, best.gold, best.pred, opt.Ordered)
	}
	return ce, nil
}

// deleteRows deletes rows in chunks, half of the total rows at first, then a quarter,
// down to one row at a time; a deletion is kept when the queries still differ without
// those rows, and a row that others refer to goes with them. It stops when ctx ends or
// once s.opt.MaxTrials databases have been tried, and returns the rows left with the
// queries' outcome on them (best, if no deletion was kept).
func (s *shrinker) deleteRows(ctx context.Context, rows map[string][][]qeval.Value, best outcome, total int) (map[string][][]qeval.Value, outcome) {
	// the rows as a flat list of (table, index) in the current state
	for chunk := total / 2; chunk >= 1 && ctx.Err() == nil; chunk /= 2 {
		for i := 0; ; {
			items := flatten(s.tables, rows)
			if i >= len(items) || s.trials >= s.opt.MaxTrials {
				break
			}
			next := without(rows, items[i:min(i+chunk, len(items))])
			next = cascade(s.tables, next)
			if r, ok := s.try(ctx, next); ok {
				rows, best = next, r
				continue
			}
			i += chunk
		}
	}
	return rows, best
}

// insertStatements is an INSERT statement for each row left, a parent table's rows
// before the rows of the tables that refer to it (as order sorts the tables).
func insertStatements(tables []*table, rows map[string][][]qeval.Value) []string {
	var out []string
	for _, t := range order(tables) {
		cols, reduce := insertable(t)
		for _, r := range rows[strings.ToLower(t.name)] {
			out = append(out, insertSQL(t.name, cols, reduce(r)))
		}
	}
	return out
}

// writeOut writes the rows left as the database opt.Out, checks it, and runs the
// queries on it once more.
func (s *shrinker) writeOut(ctx context.Context, rows map[string][][]qeval.Value) (outcome, error) {
	opt := s.opt
	fail := func(msg string) (outcome, error) {
		os.Remove(opt.Out)
		return outcome{}, &qeval.Error{Code: qeval.CodeInternal, Op: "write counterexample " + opt.Out, Message: msg}
	}
	w, err := opt.Create(opt.Out, opt.Database)
	if err != nil {
		return outcome{}, err
	}
	if _, err := write(w, s.tables, rows); err != nil {
		w.Abort()
		return fail(qeval.ErrorMessage(err))
	}
	if err := w.Close(); err != nil {
		return fail(qeval.ErrorMessage(err))
	}
	if opt.Check != nil {
		if err := opt.Check(opt.Out); err != nil {
			return fail(qeval.ErrorMessage(err))
		}
	}
	o, ok := s.run(ctx, opt.Out)
	if !ok {
		return fail("the queries do not differ on it once written")
	}
	return o, nil
}

type shrinker struct {
	opt    ShrinkOptions
	tables []*table
	work   string
	limits qeval.Limits
	trials int
	// the gold's tie checks: a database where the gold ties does not count
	ties  []*tieCheck
	order *tieCheck
}

type outcome struct {
	gold, pred *qeval.ResultSet
	predErr    string
}

// try builds a database of rows and reports whether the queries still differ on it.
func (s *shrinker) try(ctx context.Context, rows map[string][][]qeval.Value) (outcome, bool) {
	s.trials++
	path := filepath.Join(s.work, fmt.Sprintf("t%04d.sqlite", s.trials))
	defer os.Remove(path)
	w, err := s.opt.Create(path, s.opt.Database)
	if err != nil {
		return outcome{}, false
	}
	if _, err := write(w, s.tables, rows); err != nil {
		w.Abort()
		return outcome{}, false
	}
	if err := w.Close(); err != nil {
		return outcome{}, false
	}
	return s.run(ctx, path)
}

// run runs the queries on the database at path and reports whether they differ.
func (s *shrinker) run(ctx context.Context, path string) (outcome, bool) {
	ex, err := s.opt.Open(path, s.limits)
	if err != nil {
		return outcome{}, false
	}
	defer ex.Close()
	return differ(ctx, ex, s.opt.Gold, s.opt.Pred, s.opt.Mode, s.opt.Ordered, s.ties, s.order)
}

type rowRef struct {
	table string
	index int
}

func flatten(tables []*table, rows map[string][][]qeval.Value) []rowRef {
	var out []rowRef
	// children first: deleting them never takes other rows along
	ordered := order(tables)
	for i := len(ordered) - 1; i >= 0; i-- {
		key := strings.ToLower(ordered[i].name)
		for j := range rows[key] {
			out = append(out, rowRef{key, j})
		}
	}
	return out
}

func without(rows map[string][][]qeval.Value, drop []rowRef) map[string][][]qeval.Value {
	gone := map[rowRef]bool{}
	for _, d := range drop {
		gone[d] = true
	}
	out := map[string][][]qeval.Value{}
	for t, rs := range rows {
		for i, r := range rs {
			if !gone[rowRef{t, i}] {
				out[t] = append(out[t], r)
			}
		}
	}
	return out
}

// cascade drops rows whose foreign-key values no longer name a parent row.
func cascade(tables []*table, rows map[string][][]qeval.Value) map[string][][]qeval.Value {
	for changed := true; changed; {
		changed = false
		for _, t := range tables {
			key := strings.ToLower(t.name)
			for _, fk := range t.fks {
				parents := map[string]bool{}
				for _, p := range rows[strings.ToLower(fk.parent)] {
					parents[keyText(fk.pidx, p, nil, nil)] = true
				}
				var keep [][]qeval.Value
				for _, r := range rows[key] {
					null := false
					for _, c := range fk.cols {
						null = null || r[c].Kind == qeval.KindNull
					}
					if null || parents[keyText(nil, nil, fk.cols, r)] {
						keep = append(keep, r)
					} else {
						changed = true
					}
				}
				rows[key] = keep
			}
		}
	}
	return rows
}

// insertSQL renders one INSERT statement.
func insertSQL(table string, cols []string, row []qeval.Value) string {
	var b strings.Builder
	b.WriteString("INSERT INTO ")
	b.WriteString(quote(table))
	b.WriteString(" (")
	for i, c := range cols {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(quote(c))
	}
	b.WriteString(") VALUES (")
	for i, v := range row {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(sqlLiteral(v))
	}
	b.WriteString(");")
	return b.String()
}

func sqlLiteral(v qeval.Value) string {
	switch v.Kind {
	case qeval.KindNull:
		return "NULL"
	case qeval.KindInt, qeval.KindBool:
		return strconv.FormatInt(v.Int, 10)
	case qeval.KindFloat:
		if math.IsInf(v.Float, 0) || math.IsNaN(v.Float) {
			return "NULL"
		}
		s := strconv.FormatFloat(v.Float, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eE") {
			s += ".0"
		}
		return s
	case qeval.KindBytes:
		return fmt.Sprintf("X'%X'", v.Str)
	case qeval.KindTime:
		return "'" + v.AsTime().Format("2006-01-02 15:04:05") + "'"
	}
	return "'" + strings.ReplaceAll(v.Str, "'", "''") + "'"
}
