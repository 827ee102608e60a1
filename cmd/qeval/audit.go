package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/audit"
	"github.com/qeval/qeval/compare"
	"github.com/qeval/qeval/registry"
	"github.com/qeval/qeval/suite"
)

// auditDB is --db of qeval audit: a database folder (DIR/<db_id>/), or NAME=TARGET
// connections a suite names.
type auditDB struct {
	dir   string
	conns namedPaths
}

func (a *auditDB) String() string { return a.dir }

func (a *auditDB) Set(s string) error {
	if strings.Contains(s, "=") && !isDir(s) {
		return a.conns.Set(s)
	}
	if a.dir != "" {
		return fmt.Errorf("one database folder only (have %s)", a.dir)
	}
	a.dir = s
	return nil
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// cmdAudit checks a gold set for golds whose verdicts cannot be trusted.
func cmdAudit(ctx context.Context, args []string, e *env) int {
	fs := newFlags("audit", "--gold GOLD --db DIR [--items ITEMS.jsonl] [--json] | SUITE", e)
	gold := fs.String("gold", "", "gold queries: a Spider or BIRD gold file (`SQL<TAB>db_id` per line), their dev.json, or a suite file (.yaml, .json, .jsonl, .csv)")
	db := &auditDB{conns: namedPaths{}}
	fs.Var(db, "db", "database folder DIR/<db_id>/ (a .sqlite file or a test-suite folder per db_id); for a suite, NAME=TARGET connections it names (repeat)")
	questions := fs.String("questions", "", "Spider or BIRD examples file (dev.json) giving the question of each gold line, for duplicate questions")
	items := fs.String("items", "", "write one JSON line per item to this file (- for stdout): index, db_id, flags, evidence")
	asJSON := fs.Bool("json", false, "print the whole audit as JSON instead of tables")
	show := fs.String("show", "", "list the items with these flags (comma-separated; default every flag but duplicate)")
	failOn := fs.String("fail-on", "", "exit 3 when an item has one of these flags (comma-separated), e.g. gold_fails,order_dependent")
	timeout := fs.Duration("timeout", 10*time.Second, "deadline of each gold query")
	workers := fs.Int("workers", 0, "databases audited at once (default: the number of CPUs)")
	neighbours := fs.Int("neighbours", 24, "near-miss neighbours run per single-value gold for the weak check")
	var preds, cexDirs stringList
	fs.Var(&preds, "pred", "a system's predictions, aligned with --gold (repeat, one per system): run on the counterexamples for suspect_gold")
	fs.Var(&cexDirs, "counterexamples", "a counterexample folder of qeval verify (--out), holding <index>.sqlite (repeat): where several systems agree with each other and not with the gold, the item is suspect_gold")
	pos, code := parseInterspersed(fs, args)
	if code >= 0 {
		return code
	}
	if *gold == "" && len(pos) == 1 {
		*gold = pos[0]
	} else if len(pos) > 0 {
		return fail(e, &qeval.Error{Code: qeval.CodeInvalid, Message: "unexpected arguments: " + strings.Join(pos, " "),
			Hint: "qeval audit --gold dev_gold.sql --db database/   or   qeval audit suite.yaml"})
	}
	if *gold == "" {
		return fail(e, &qeval.Error{Code: qeval.CodeInvalid, Message: "missing --gold",
			Hint: "qeval audit --gold dev_gold.sql --db database/ [--questions dev.json] [--items audit.jsonl]"})
	}
	showFlags, err := audit.ParseFlags("--show", *show)
	if err != nil {
		return fail(e, err)
	}
	failFlags, err := audit.ParseFlags("--fail-on", *failOn)
	if err != nil {
		return fail(e, err)
	}
	its, err := readAuditItems(ctx, *gold, db, *questions)
	if err != nil {
		return fail(e, err)
	}
	if err := addCounterexamples(its, *gold, preds, cexDirs); err != nil {
		return fail(e, err)
	}
	rep, err := audit.Run(ctx, its, audit.Options{
		Limits:        qeval.Limits{Timeout: *timeout},
		Workers:       *workers,
		MaxNeighbours: *neighbours,
		Mode:          compare.Default,
		Reversed:      registry.ReversedOpener,
		// counterexamples are judged as qeval verify judged them: the official rules
		OpenCounterexample: registry.OfficialOpeners()["sqlite"],
	})
	for _, p := range rep.Problems {
		fmt.Fprintln(e.stderr, "error:", p)
	}
	if werr := printAudit(e, rep, *items, *asJSON, showFlags); werr != nil {
		return fail(e, werr)
	}
	if err != nil {
		return fail(e, err)
	}
	if len(failFlags) > 0 && len(rep.Select(failFlags...)) > 0 {
		fmt.Fprintf(e.stderr, "audit: %d items have %s\n", len(rep.Select(failFlags...)), strings.Join(failFlags, " or "))
		return exitThreshold
	}
	if len(rep.Problems) > 0 {
		return exitFailed
	}
	return exitOK
}

// printAudit writes the audit's items to --items, then the whole audit as JSON or as
// tables (none when the items went to stdout).
func printAudit(e *env, rep *audit.Report, items string, asJSON bool, show []string) error {
	if items != "" {
		if err := writeTo(items, e, "--items", rep.WriteItems); err != nil {
			return err
		}
	}
	if asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	if items != "-" {
		rep.Print(e.stdout, show)
	}
	return nil
}

// readAuditItems reads a gold set: a gold file of `SQL<TAB>db_id` lines, a Spider or
// BIRD examples file, or a suite (see audit.ReadGoldFile).
func readAuditItems(ctx context.Context, path string, db *auditDB, questions string) ([]audit.Item, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeNotFound, Op: "read --gold " + path, Message: err.Error(), Err: err}
	}
	if isSuiteFile(path) {
		s, err := suite.Load(path, suite.Options{SpiderDB: db.dir})
		if err != nil {
			return nil, err
		}
		if strings.EqualFold(s.Dialect, "kql") {
			return nil, &qeval.Error{Code: qeval.CodeUnsupported, Op: "audit " + path, Message: "the audit checks SQL gold queries; this suite is KQL"}
		}
		return audit.SuiteItems(ctx, s, &registry.Catalog{Dir: suite.Dir(s), Connections: db.conns}, path), nil
	}
	if db.dir == "" {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Message: "missing --db: the folder holding <db_id>/<db_id>.sqlite",
			Hint: "qeval audit --gold dev_gold.sql --db database/"}
	}
	if !isDir(db.dir) {
		return nil, &qeval.Error{Code: qeval.CodeNotFound, Op: "open --db " + db.dir, Message: "no such folder",
			Hint: "--db must be a folder holding <db_id>/<db_id>.sqlite"}
	}
	var qs []string
	if questions != "" {
		if qs, err = audit.ReadQuestions(questions); err != nil {
			return nil, err
		}
	}
	return audit.ReadGoldFile(ctx, path, data, &registry.Catalog{Dir: db.dir}, qs)
}

// addCounterexamples gives each item the counterexamples of the --counterexamples
// folders and the systems' --pred predictions (audit.AddCounterexamples).
func addCounterexamples(its []audit.Item, gold string, preds, dirs []string) error {
	if len(dirs) == 0 {
		if len(preds) > 0 {
			return &qeval.Error{Code: qeval.CodeInvalid, Message: "--pred needs --counterexamples: the predictions are run on the counterexample databases",
				Hint: "qeval verify --gold G --pred P --db DIR --out cex/ first, then qeval audit --gold G --db DIR --pred P --pred P2 --counterexamples cex/"}
		}
		return nil
	}
	var sets [][]string
	for _, p := range preds {
		set, err := suite.LoadSpider(gold, p)
		if err != nil {
			return err
		}
		lines := make([]string, len(set.Items))
		for i, it := range set.Items {
			lines[i] = it.Pred
		}
		sets = append(sets, lines)
	}
	return audit.AddCounterexamples(its, sets, dirs)
}
