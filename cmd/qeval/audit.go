package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/audit"
	"github.com/qeval/qeval/compare"
	"github.com/qeval/qeval/registry"
	"github.com/qeval/qeval/suite"
	"github.com/qeval/qeval/verify"
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
	if *items != "" {
		if werr := writeTo(*items, e, "--items", rep.WriteItems); werr != nil {
			return fail(e, werr)
		}
	}
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if werr := enc.Encode(rep); werr != nil {
			return fail(e, werr)
		}
	} else if *items != "-" {
		rep.Print(e.stdout, showFlags)
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

// readAuditItems reads a gold set: a gold file of `SQL<TAB>db_id` lines, a Spider or
// BIRD examples file, or a suite. A line or case that cannot be read, or whose database
// cannot be found, becomes an item with its error; only a file that cannot be read at
// all is an error.
func readAuditItems(ctx context.Context, path string, db *auditDB, questions string) ([]audit.Item, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeNotFound, Op: "read --gold " + path, Message: err.Error(), Err: err}
	}
	if isSuiteFile(path) {
		return readAuditSuite(ctx, path, data, db)
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
		if qs, err = readQuestions(questions); err != nil {
			return nil, err
		}
	}
	cat := &registry.Catalog{Dir: db.dir}
	var out []audit.Item
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(text) == "" {
			continue // interactions of SParC and CoSQL are separated by blank lines
		}
		it := audit.Item{Index: len(out), Ref: fmt.Sprintf("%s:%d", path, line)}
		fields := strings.Split(text, "\t")
		if len(fields) != 2 {
			it.Gold = text
			it.Err = fmt.Errorf("want `SQL<TAB>db_id`, found %d TAB-separated fields", len(fields))
			out = append(out, it)
			continue
		}
		it.Gold, it.DBID = strings.TrimSpace(fields[0]), strings.TrimSpace(fields[1])
		if it.Index < len(qs) {
			it.Question = qs[it.Index]
		}
		it.Source, it.Err = cat.Resolve(ctx, it.DBID, "sql")
		out = append(out, it)
	}
	if err := sc.Err(); err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "read --gold " + path, Message: fmt.Sprintf("line %d: %v", line+1, err), Err: err}
	}
	if len(qs) > 0 && len(qs) != len(out) {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Message: fmt.Sprintf("--questions %s has %d examples but --gold %s has %d queries", questions, len(qs), path, len(out)),
			Hint: "example i of --questions must be the question of gold line i"}
	}
	return out, nil
}

// readQuestions reads the questions of a Spider or BIRD examples file, in order.
func readQuestions(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeNotFound, Op: "read --questions " + path, Message: err.Error(), Err: err}
	}
	var ex []struct {
		Question string `json:"question"`
	}
	if err := json.Unmarshal(data, &ex); err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "read --questions " + path, Message: "want a JSON array of examples with \"question\": " + err.Error(), Err: err}
	}
	out := make([]string, len(ex))
	for i, x := range ex {
		out[i] = x.Question
	}
	return out, nil
}

// readAuditSuite reads the cases of a suite (or a Spider/BIRD examples file with --db
// DIR) as audit items.
func readAuditSuite(ctx context.Context, path string, data []byte, db *auditDB) ([]audit.Item, error) {
	s, err := suite.Load(path, suite.Options{SpiderDB: db.dir})
	if err != nil {
		return nil, err
	}
	if strings.EqualFold(s.Dialect, "kql") {
		return nil, &qeval.Error{Code: qeval.CodeUnsupported, Op: "audit " + path, Message: "the audit checks SQL gold queries; this suite is KQL"}
	}
	return audit.SuiteItems(ctx, s, &registry.Catalog{Dir: suite.Dir(s), Connections: db.conns}, path), nil
}

// addCounterexamples gives each item the counterexamples of the --counterexamples
// folders (DIR/<index>.sqlite) and the systems' predictions: the --pred files, or, without
// them, the prediction each counterexample was found for.
func addCounterexamples(its []audit.Item, gold string, preds, dirs []string) error {
	if len(dirs) == 0 {
		if len(preds) > 0 {
			return &qeval.Error{Code: qeval.CodeInvalid, Message: "--pred needs --counterexamples: the predictions are run on the counterexample databases",
				Hint: "qeval verify --gold G --pred P --db DIR --out cex/ first, then qeval audit --gold G --db DIR --pred P --pred P2 --counterexamples cex/"}
		}
		return nil
	}
	for _, d := range dirs {
		if !isDir(d) {
			return &qeval.Error{Code: qeval.CodeNotFound, Op: "open --counterexamples " + d, Message: "no such folder"}
		}
	}
	var sets [][]string
	for _, p := range preds {
		set, err := suite.LoadSpider(gold, p)
		if err != nil {
			return err
		}
		if len(set.Items) != len(its) {
			return &qeval.Error{Code: qeval.CodeInvalid, Message: fmt.Sprintf("--pred %s has %d predictions for %d gold queries", p, len(set.Items), len(its))}
		}
		lines := make([]string, len(set.Items))
		for i, it := range set.Items {
			lines[i] = it.Pred
		}
		sets = append(sets, lines)
	}
	for i := range its {
		it := &its[i]
		for _, p := range sets {
			it.Preds = append(it.Preds, p[i])
		}
		for _, d := range dirs {
			db := filepath.Join(d, strconv.Itoa(it.Index)+".sqlite")
			if _, err := os.Stat(db); err != nil {
				continue
			}
			it.Counterexamples = append(it.Counterexamples, db)
			if len(sets) == 0 {
				if doc, err := verify.ReadCounterexample(db); err == nil && doc.Gold == it.Gold {
					it.Preds = append(it.Preds, doc.Pred)
				}
			}
		}
	}
	return nil
}
