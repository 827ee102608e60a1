package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/compare"
	"github.com/qeval/qeval/execmatch"
	"github.com/qeval/qeval/registry"
	"github.com/qeval/qeval/report"
	"github.com/qeval/qeval/suite"
	"github.com/qeval/qeval/testsuite"
	"github.com/qeval/qeval/verify"
)

// cmdExplain judges one item and, when the prediction is wrong, prints why and a
// minimal counterexample: the distinguishing database shrunk to a few rows.
func cmdExplain(ctx context.Context, args []string, e *env) int {
	fs := newFlags("explain", "(--db DB (--gold SQL --pred SQL | --gold-file GOLD --pred-file PRED --item N) | CEX_DIR/<index>.sqlite) [flags]", e)
	db := fs.String("db", "", "a database file, a test-suite folder, or (with --item) the suite root holding <db_id>/")
	gold := fs.String("gold", "", "the gold query")
	pred := fs.String("pred", "", "the predicted query")
	goldFile := fs.String("gold-file", "", "Spider gold file (`SQL<TAB>db_id` per line), with --item")
	predFile := fs.String("pred-file", "", "predictions file aligned with --gold-file, with --item")
	item := fs.Int("item", 0, "the item to explain: 1-based line of --gold-file")
	tables := fs.String("tables", "", "Spider tables.json: foreign keys kept while shrinking")
	mode := fs.String("mode", qeval.OfficialMode, "comparison mode (see 'qeval modes')")
	noShrink := fs.Bool("no-shrink", false, "explain on the distinguishing database as it is")
	asJSON := fs.Bool("json", false, "print the verdict, explanation and counterexample as JSON")
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	it, written, err := explainItem(fs, db, gold, pred, goldFile, predFile, mode, noShrink, *item)
	if err != nil {
		return fail(e, err)
	}
	m, err := compare.Lookup(*mode)
	if err != nil {
		return fail(e, err)
	}
	ev, err := execmatch.New(execmatch.Options{Mode: *mode, Catalog: &registry.Catalog{}})
	if err != nil {
		return fail(e, err)
	}
	defer ev.Close()
	v := ev.Match(ctx, it)
	out := explainOutput{Verdict: v.Outcome, Mode: v.Mode, Database: v.Database, Error: v.Error}
	g, p, ordered := m.Prepare(it.Gold, it.Pred, compare.Options{})
	if v.Outcome == qeval.OutcomeMismatch {
		x := compare.Explain(m, v.Gold, v.Pred, ordered)
		x.Database = filepath.Base(v.Database)
		out.Explanation = &x
	}
	if (v.Outcome == qeval.OutcomeMismatch || v.Outcome == qeval.OutcomePredError) && !*noShrink {
		ce, err, usage := shrinkExplained(ctx, *tables, it.DBID, v.Database, g, p, m, ordered)
		if usage != nil {
			return fail(e, usage)
		}
		if err != nil {
			out.ShrinkError = qeval.ErrorMessage(err)
		} else {
			out.Counterexample = ce
		}
	}
	if written != nil && out.Counterexample == nil {
		out.Counterexample = written
	}
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		enc.Encode(out)
	} else {
		printExplain(e, out, v)
	}
	if v.Outcome == qeval.OutcomeGoldError {
		return exitFailed
	}
	return exitOK
}

// explainItem is the pair qeval explain explains: --gold and --pred on --db, item N of
// --gold-file and --pred-file under the suite root --db, or a counterexample of qeval
// verify given as the one argument (the pair from the file beside it, the database
// already as small as it gets: --no-shrink, and its mode unless --mode was given).
func explainItem(fs *flag.FlagSet, db, gold, pred, goldFile, predFile, mode *string, noShrink *bool, item int) (qeval.Item, *testsuite.Counterexample, error) {
	it := qeval.Item{Gold: *gold, Pred: *pred, Database: *db}
	var written *testsuite.Counterexample
	if fs.NArg() == 1 && *db == "" {
		doc, err := verify.ReadCounterexample(fs.Arg(0))
		if err != nil {
			return it, nil, err
		}
		it = qeval.Item{Gold: doc.Gold, Pred: doc.Pred, Database: fs.Arg(0), DBID: doc.DBID}
		*db, *noShrink, written = fs.Arg(0), true, doc.Counterexample
		if doc.Mode != "" && !flagSet(fs, "mode") {
			*mode = strings.SplitN(doc.Mode, "@", 2)[0]
		}
	}
	switch {
	case *db == "":
		return it, nil, &qeval.Error{Code: qeval.CodeInvalid, Message: "missing --db", Hint: "qeval explain --db suite/concert_singer --gold 'SELECT …' --pred 'SELECT …'"}
	case item > 0:
		set, err := suite.LoadSpider(*goldFile, *predFile)
		if err != nil {
			return it, nil, err
		}
		if item > len(set.Items) {
			return it, nil, &qeval.Error{Code: qeval.CodeInvalid, Message: fmt.Sprintf("--item %d: %s has %d items", item, *goldFile, len(set.Items))}
		}
		it = set.Items[item-1]
		it.Database = filepath.Join(*db, it.DBID)
	case it.Gold == "" || it.Pred == "":
		return it, nil, &qeval.Error{Code: qeval.CodeInvalid, Message: "give --gold and --pred, or --gold-file, --pred-file and --item"}
	}
	return it, written, nil
}

// shrinkExplained shrinks the database that told gold and pred apart to the fewest
// rows that still do, keeping the foreign keys of --tables. usage is a --tables file
// that cannot be read; err, why the shrinking failed.
func shrinkExplained(ctx context.Context, tables, dbID, db, g, p string, m compare.Mode, ordered bool) (ce *testsuite.Counterexample, err, usage error) {
	var keys []testsuite.ForeignKey
	if tables != "" {
		all, lerr := testsuite.LoadTables(tables)
		if lerr != nil {
			return nil, nil, lerr
		}
		keys = all[dbID]
	}
	ce, err = testsuite.Shrink(ctx, testsuite.ShrinkOptions{Database: db, Gold: g, Pred: p, Mode: m, Ordered: ordered,
		ForeignKeys: keys, Open: registry.OpenSQLite, Create: registry.CreateSQLiteLike})
	return ce, err, nil
}

type explainOutput struct {
	Verdict        qeval.Outcome             `json:"verdict"`
	Mode           string                    `json:"mode"`
	Database       string                    `json:"database"`
	Error          string                    `json:"error,omitempty"`
	Explanation    *qeval.Explanation        `json:"explanation,omitempty"`
	Counterexample *testsuite.Counterexample `json:"counterexample,omitempty"`
	ShrinkError    string                    `json:"shrink_error,omitempty"`
}

func printExplain(e *env, out explainOutput, v qeval.Verdict) {
	w := e.stdout
	where := filepath.Base(out.Database)
	switch out.Verdict {
	case qeval.OutcomeMatch:
		fmt.Fprintf(w, "match (%s): the results are equal on every database\n", out.Mode)
		return
	case qeval.OutcomeMismatch:
		fmt.Fprintf(w, "mismatch (%s) on %s\n", out.Mode, where)
	default:
		fmt.Fprintf(w, "%s (%s) on %s: %s\n", out.Verdict, out.Mode, where, out.Error)
	}
	if out.Explanation != nil {
		fmt.Fprintf(w, "why: %s\n", out.Explanation)
	}
	ce := out.Counterexample
	if ce == nil {
		if out.ShrinkError != "" {
			fmt.Fprintf(w, "no counterexample: %s\n", out.ShrinkError)
		}
		return
	}
	fmt.Fprintf(w, "\ncounterexample: %d rows (shrunk from %d) in the schema of %s\n", ce.RowsAfter, ce.RowsBefore, where)
	for _, s := range ce.Inserts {
		fmt.Fprintf(w, "  %s\n", s)
	}
	fmt.Fprintln(w, "\ngold result:")
	writeIndented(e, ce.Gold)
	if ce.PredError != "" {
		fmt.Fprintf(w, "prediction fails: %s\n", ce.PredError)
		return
	}
	fmt.Fprintln(w, "prediction result:")
	writeIndented(e, ce.Pred)
	fmt.Fprintf(w, "why here: %s\n", ce.Explanation)
}

func writeIndented(e *env, rs *qeval.ResultSet) {
	var b strings.Builder
	report.WriteResultTable(&b, rs)
	for _, l := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
		fmt.Fprintf(e.stdout, "  %s\n", l)
	}
}
