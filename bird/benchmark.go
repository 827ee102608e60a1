package bird

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/qeval/qeval"
)

// Benchmark is BIRD's scorer: EX, soft-F1 and R-VES as its official scripts compute
// them, item for item.
type Benchmark struct{}

var _ qeval.Benchmark = Benchmark{}

// Name is the command's name.
func (Benchmark) Name() string { return "bird" }

// Version names the official scripts reproduced (bird-bench mini_dev's evaluation).
func (Benchmark) Version() string { return "mini_dev-evaluation@1" }

// Summary describes the command.
func (Benchmark) Summary() string {
	return "score BIRD predictions: EX, soft-F1 and R-VES as the official scripts compute them"
}

// Synopsis is the usage line.
func (Benchmark) Synopsis() string {
	return "--pred PRED.json --gold GOLD.sql --db DIR [--diff DEV.json] [--dialect SQLite|PostgreSQL|MySQL] [flags]"
}

// engines maps BIRD's dialect names to engine names.
var engines = map[string]string{SQLite: "sqlite", PostgreSQL: "postgres", MySQL: "mysql"}

type flags struct {
	pred, gold, db, diff, dialect string
	vesRuns                       int
	// verification of the matches (--verify)
	verify bool
	bound  int
	out    string
}

// Flags declares BIRD's flags; --db-root, the official scripts' name, is --db.
func (Benchmark) Flags(fs *flag.FlagSet) qeval.BenchmarkOpener {
	f := &flags{}
	fs.StringVar(&f.pred, "pred", "", "predictions: BIRD's JSON object, question index → \"<sql>\\t----- bird -----\\t<db_id>\"")
	fs.StringVar(&f.gold, "gold", "", "gold: dev.sql / mini_dev_*.sql lines `<sql><TAB><db_id>`, or dev.json / mini_dev JSONL")
	fs.StringVar(&f.db, "db", "", "SQLite: folder holding <db_id>/<db_id>.sqlite; PostgreSQL/MySQL: the DSN of the one database")
	fs.StringVar(&f.db, "db-root", "", "the same as --db (the official scripts' name)")
	fs.StringVar(&f.diff, "diff", "", "dev.json or mini_dev JSONL giving each item's difficulty (default: the gold file's own, if JSON)")
	fs.StringVar(&f.dialect, "dialect", SQLite, "SQLite, PostgreSQL or MySQL")
	fs.IntVar(&f.vesRuns, "ves-runs", 0, "compute R-VES with this many timed runs per item (the official script uses 100); with SQLite also the VM-step R-VES")
	f.verifyFlags(fs)
	return f.open
}

func (f *flags) open(ctx context.Context, env qeval.BenchmarkEnv) (qeval.BenchmarkRun, error) {
	var missing []string
	for _, m := range []struct{ name, v string }{{"--db", f.db}, {"--gold", f.gold}, {"--pred", f.pred}} {
		if m.v == "" {
			missing = append(missing, m.name)
		}
	}
	if len(missing) > 0 {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Message: "missing " + strings.Join(missing, ", "),
			Hint: "qeval bird --pred predict_dev.json --gold dev.sql --db dev_databases/ --diff dev.json"}
	}
	engine, ok := engines[f.dialect]
	if !ok {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Message: fmt.Sprintf("unknown --dialect %q (known: SQLite, PostgreSQL, MySQL)", f.dialect)}
	}
	if engine == "sqlite" {
		if st, err := os.Stat(f.db); err != nil || !st.IsDir() {
			return nil, &qeval.Error{Code: qeval.CodeNotFound, Op: "open --db " + f.db, Message: "no such folder",
				Hint: "--db must be a folder holding <db_id>/<db_id>.sqlite"}
		}
	}
	r := &run{f: f, env: env}
	var err error
	if r.gold, err = readFile(f.gold, "--gold", ReadGold); err != nil {
		return nil, err
	}
	if r.preds, err = readFile(f.pred, "--pred", ReadPredictions); err != nil {
		return nil, err
	}
	if f.diff != "" {
		if r.difficulty, err = readFile(f.diff, "--diff", ReadDifficulties); err != nil {
			return nil, err
		}
		if len(r.difficulty) != len(r.gold) {
			fmt.Fprintf(env.Stderr, "warning: --diff %s has %d items, --gold %s has %d\n", f.diff, len(r.difficulty), f.gold, len(r.gold))
		}
	}
	if env.Opener == nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Message: "bird: no engine opener"}
	}
	opener, err := env.Opener(engine)
	if err != nil {
		return nil, err
	}
	if r.ev, err = New(Options{Open: opener, Dialect: f.dialect, DBRoot: f.db, Limits: env.Limits, Workers: env.Workers, VESRuns: f.vesRuns}); err != nil {
		return nil, err
	}
	if f.verify {
		if err := r.openVerify(); err != nil {
			r.ev.Close()
			return nil, err
		}
	}
	r.pairing, r.byKey = pair(r.gold, r.preds)
	r.keep = make([]bool, len(r.gold))
	for i := range r.keep {
		r.keep[i] = true
	}
	return r, nil
}

func readFile[T any](path, flag string, read func(io.Reader, string) (T, error)) (T, error) {
	var zero T
	f, err := os.Open(path)
	if err != nil {
		return zero, &qeval.Error{Code: qeval.CodeNotFound, Op: "open " + flag + " " + path, Message: "no such file", Err: err}
	}
	defer f.Close()
	v, err := read(f, path)
	if err != nil {
		return zero, &qeval.Error{Code: qeval.CodeInvalid, Message: err.Error(), Err: err}
	}
	return v, nil
}

// run is a BIRD evaluation: the files read and paired.
type run struct {
	f          *flags
	env        qeval.BenchmarkEnv
	ev         *Evaluator
	gold       []Gold
	preds      *Predictions
	difficulty []string
	pairing    Pairing
	byKey      map[int]*Prediction
	keep       []bool // the items of this shard
	verifier   qeval.Verifier
}

// Suite is one case per gold item, its index as id.
func (r *run) Suite() *qeval.Suite {
	s := &qeval.Suite{Name: "bird", Path: r.f.gold, Dialect: "sql", Mode: MetricEX}
	for i, g := range r.gold {
		if !r.keep[i] {
			continue
		}
		c := qeval.Case{ID: strconv.Itoa(i), ExpectedQuery: g.SQL, Database: g.DBID, Tags: []string{g.DBID}}
		if i < len(r.preds.List) {
			p := r.preds.List[i].SQL
			c.GeneratedQuery = &p
		}
		s.Cases = append(s.Cases, c)
	}
	return s
}

// Shard keeps part i of n, round-robin by position.
func (r *run) Shard(i, n int) []string {
	ids := make([]string, len(r.gold))
	for k := range r.gold {
		ids[k] = strconv.Itoa(k)
		r.keep[k] = k%n == i-1
	}
	return ids
}

// Meta is the dialect and the pairing of the prediction file with the gold.
type Meta struct {
	Dialect     string  `json:"dialect"`
	Pairing     Pairing `json:"pairing"`
	Pred        string  `json:"pred"`
	Predictions int     `json:"predictions"`
	Gold        int     `json:"gold"`
	// VerifyBound is K when the matches were verified (--verify).
	VerifyBound int `json:"verify_bound,omitempty"`
}

// Meta records the dialect and pairing.
func (r *run) Meta() json.RawMessage {
	m := Meta{Dialect: r.f.dialect, Pairing: r.pairing, Pred: r.f.pred, Predictions: len(r.preds.List), Gold: len(r.gold)}
	if r.verifier != nil {
		m.VerifyBound = r.f.bound
	}
	b, _ := json.Marshal(m)
	return b
}

// Close closes the databases and the verifier.
func (r *run) Close() error {
	if r.verifier != nil {
		r.verifier.Close()
	}
	return r.ev.Close()
}

// Score scores one item: EX, soft-F1, and R-VES when asked.
func (r *run) Score(ctx context.Context, c qeval.Case) qeval.CaseResult {
	i, err := strconv.Atoi(c.ID)
	if err != nil || i < 0 || i >= len(r.gold) {
		return qeval.CaseResult{ID: c.ID, Status: qeval.StatusError, Reason: "no such BIRD item " + c.ID}
	}
	it := r.ev.item(ctx, i, r.gold[i], r.preds, r.byKey, r.pairing.Agrees())
	if r.difficulty != nil {
		it.Difficulty = ""
		if i < len(r.difficulty) {
			it.Difficulty = r.difficulty[i]
		}
	}
	res := qeval.CaseResult{ID: c.ID, ExpectedQuery: c.ExpectedQuery, Database: it.DBID, Tags: []string{it.DBID},
		Status: qeval.BenchmarkStatus(it.EX == 1, it.Outcome), Reason: it.Error,
		Verdict: &qeval.Verdict{Match: it.EX == 1, Outcome: it.Outcome, Mode: MetricEX, Error: it.Error}}
	if c.GeneratedQuery != nil {
		res.GeneratedQuery = *c.GeneratedQuery
	}
	if it.Difficulty != "" {
		res.Tags = append(res.Tags, it.Difficulty)
	}
	ex, f1 := float64(it.EX), it.SoftF1
	res.TotalScore = &ex
	res.Metrics = map[string]qeval.MetricResult{"execution_match": {Score: &ex}, MetricSoftF1: {Score: &f1}}
	if it.RVES != nil {
		res.Metrics[MetricRVES] = qeval.MetricResult{Score: it.RVES}
	}
	if r.verifier != nil {
		r.verifyItem(ctx, i, &it, &res)
	}
	res.ItemValue = &it // encoded only where a report or results file is written
	return res
}

// Report is the summary `qeval bird --json` prints.
type Report struct {
	Dialect  string                `json:"dialect"`
	Metrics  []string              `json:"metrics"`
	Total    int                   `json:"total"`
	Levels   map[string]*Level     `json:"levels"`
	Pairing  Pairing               `json:"pairing"`
	Outcomes map[qeval.Outcome]int `json:"outcomes"`
	// Verification is set when the matches were verified (--verify).
	Verification *VerifySummary `json:"verification,omitempty"`
	warnings     []string
}

// Summarize builds the official tables from a run's items.
func (Benchmark) Summarize(metas []json.RawMessage, cases []qeval.CaseResult) (qeval.BenchmarkSummary, error) {
	var meta Meta
	if len(metas) > 0 {
		if err := json.Unmarshal(metas[0], &meta); err != nil {
			return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "read the BIRD run's meta", Message: err.Error()}
		}
	}
	items := make([]Item, len(cases))
	for i, c := range cases {
		if err := qeval.ReadItem(&c, &items[i]); err != nil {
			return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "read the BIRD item of case " + strconv.Quote(c.ID), Message: err.Error()}
		}
	}
	levels := Summarize(items)
	rep := &Report{Dialect: meta.Dialect, Total: len(items), Levels: levels, Pairing: meta.Pairing,
		Metrics: []string{MetricEX, MetricSoftF1}, Outcomes: map[qeval.Outcome]int{}}
	for _, it := range items {
		rep.Outcomes[it.Outcome]++
	}
	if levels["total"].RVES != nil {
		rep.Metrics = append(rep.Metrics, MetricRVES)
	}
	if meta.VerifyBound > 0 {
		rep.Verification = summarizeVerify(meta.VerifyBound, items)
	}
	if levels["total"].RVESSteps != nil {
		rep.Metrics = append(rep.Metrics, MetricRVESSteps)
	}
	if w := meta.Pairing.warning(meta.Pred, meta.Predictions, meta.Gold); w != "" {
		rep.warnings = append(rep.warnings, w)
	}
	if n := rep.Outcomes[qeval.OutcomeGoldError]; n > 0 {
		rep.warnings = append(rep.warnings, fmt.Sprintf("%d gold queries failed or could not be read; those items count as wrong (see outcome gold_error in --items)", n))
	}
	return rep, nil
}

// Warnings are the pairing of the prediction file and the gold queries that failed.
func (rep *Report) Warnings() []string { return rep.warnings }

// Print prints one table per metric, in the official scripts' layout.
func (rep *Report) Print(w io.Writer) {
	table := func(title, metric string, value func(*Level) *float64) {
		fmt.Fprintf(w, "start calculate %s\n", title)
		WriteTable(w, metric, rep.Levels, value)
		fmt.Fprintf(w, "Finished %s evaluation for %s\n\n", title, rep.Dialect)
	}
	total := rep.Levels["total"]
	table("EX", "EX", func(l *Level) *float64 { return &l.EX })
	table("Soft F1", "Soft-F1", func(l *Level) *float64 { return &l.SoftF1 })
	if total.RVES != nil {
		table("R-VES", "R-VES", func(l *Level) *float64 { return l.RVES })
	}
	if total.RVESSteps != nil {
		table("R-VES by VM steps (qeval, deterministic)", "R-VES-steps", func(l *Level) *float64 { return l.RVESSteps })
	}
	if total.EXByKey != nil {
		table("EX paired by key (qeval)", "EX-by-key", func(l *Level) *float64 { return l.EXByKey })
		table("Soft F1 paired by key (qeval)", "Soft-F1-by-key", func(l *Level) *float64 { return l.F1ByKey })
	}
	if rep.Verification != nil {
		rep.Verification.print(w)
	}
}

// warning says how the prediction file's keys fail to pair one to one with the gold
// ("" when they do).
func (p Pairing) warning(path string, npred, ngold int) string {
	if p.Agrees() && len(p.Extra) == 0 && len(p.Duplicates) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "--pred %s: its keys do not match the %d gold items one to one (%d predictions):\n", path, ngold, npred)
	if len(p.Missing) > 0 {
		fmt.Fprintf(&b, "  - %d gold items have no prediction key: %s\n", len(p.Missing), first(p.Missing, 10))
	}
	if len(p.Extra) > 0 {
		fmt.Fprintf(&b, "  - %d keys name no gold item: %s\n", len(p.Extra), first(p.Extra, 10))
	}
	if len(p.Duplicates) > 0 {
		fmt.Fprintf(&b, "  - %d keys appear more than once (the last value is used): %s\n", len(p.Duplicates), first(p.Duplicates, 10))
	}
	if p.Moved > 0 {
		fmt.Fprintf(&b, "  - %d items are paired by position with a prediction keyed for another item\n", p.Moved)
	}
	b.WriteString("  EX and Soft-F1 pair by position, as the official scripts do; EX-by-key and Soft-F1-by-key pair by key")
	return b.String()
}

func first[T any](xs []T, n int) string {
	s := make([]string, 0, n+1)
	for i, x := range xs {
		if i == n {
			s = append(s, "…")
			break
		}
		s = append(s, fmt.Sprint(x))
	}
	if len(xs) > n {
		return strings.Join(s[:n], ", ") + ", …"
	}
	return strings.Join(s, ", ")
}
