package spider2

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/qeval/qeval"
)

// Benchmark is Spider 2.0's scorer: evaluate.py's verdicts on result CSVs or on SQL run
// on the local SQLite databases, and a strict variant.
type Benchmark struct{}

var _ qeval.Benchmark = Benchmark{}

// Name is the command's name.
func (Benchmark) Name() string { return "spider2" }

// Version names the official evaluator reproduced (spider2-lite's evaluate.py).
func (Benchmark) Version() string { return "spider2-lite-evaluate@1" }

// Summary describes the command.
func (Benchmark) Summary() string {
	return "score Spider 2.0 results (CSV or SQL) as its official evaluate.py does; --strict for the fixed comparison"
}

// Synopsis is the usage line.
func (Benchmark) Synopsis() string {
	return "--mode exec_result|sql --result-dir PRED_DIR --gold-dir GOLD_DIR [--strict] [--db DB --metadata spider2-lite.jsonl] [flags]"
}

type flags struct {
	mode, resultDir, goldDir, db, metadata string
	strict                                 bool
}

// Flags declares evaluate.py's flags.
func (Benchmark) Flags(fs *flag.FlagSet) qeval.BenchmarkOpener {
	f := &flags{}
	fs.StringVar(&f.mode, "mode", "exec_result", "exec_result: PRED_DIR holds <id>.csv; sql: PRED_DIR holds <id>.sql, run on --db")
	fs.StringVar(&f.resultDir, "result-dir", "", "folder of predictions: <id>.csv or <id>.sql")
	fs.StringVar(&f.goldDir, "gold-dir", "", "gold folder: exec_result/<id>.csv (or <id>_a.csv, <id>_b.csv, …) and spider2lite_eval.jsonl")
	fs.BoolVar(&f.strict, "strict", false, "compare with spider2-strict@1 (rows aligned, tolerance for numbers only) instead of the official spider2@1")
	fs.StringVar(&f.db, "db", "", "mode sql: a SQLite file for every item, or a folder of <db>.sqlite (or <db>/<db>.sqlite) named by --metadata")
	fs.StringVar(&f.metadata, "metadata", "", "mode sql: spider2-lite.jsonl (instance_id → db); default GOLD_DIR/../../spider2-lite.jsonl when --db is a folder")
	return f.open
}

func (f *flags) open(ctx context.Context, env qeval.BenchmarkEnv) (qeval.BenchmarkRun, error) {
	var missing []string
	for _, m := range []struct{ name, v string }{{"--gold-dir", f.goldDir}, {"--result-dir", f.resultDir}} {
		if m.v == "" {
			missing = append(missing, m.name)
		}
	}
	if len(missing) > 0 {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Message: "missing " + strings.Join(missing, ", "),
			Hint: "qeval spider2 --mode exec_result --result-dir submission/ --gold-dir spider2-lite/evaluation_suite/gold"}
	}
	r := &run{f: f, opt: Options{GoldDir: f.goldDir, ResultDir: f.resultDir, Strict: f.strict}}
	switch f.mode {
	case "exec_result":
	case "sql":
		if f.db == "" {
			return nil, &qeval.Error{Code: qeval.CodeInvalid, Message: "--mode sql needs --db",
				Hint: "--db names the SQLite file (or the folder of <db>.sqlite files) the local items run on"}
		}
		q, err := newQuerier(f.db, f.metadata, f.goldDir, env)
		if err != nil {
			return nil, err
		}
		r.q = q
		r.opt.SQL, r.opt.Query = true, q.query
	default:
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Message: fmt.Sprintf("unknown --mode %q (known: exec_result, sql)", f.mode)}
	}
	p, err := plan(r.opt)
	if err != nil {
		r.Close()
		return nil, err
	}
	r.p, r.ids = p, p.ids
	return r, nil
}

// run is a Spider 2.0 evaluation: the instances to score.
type run struct {
	f   *flags
	opt Options
	p   *planned
	ids []string // the instances of this shard
	q   *querier
}

// Suite is one case per instance with a prediction, by instance id.
func (r *run) Suite() *qeval.Suite {
	s := &qeval.Suite{Name: "spider2", Path: r.f.goldDir, Dialect: "sql", Mode: r.metric()}
	for _, id := range r.ids {
		s.Cases = append(s.Cases, qeval.Case{ID: id, Database: r.f.db})
	}
	return s
}

func (r *run) metric() string {
	if r.f.strict {
		return MetricStrict
	}
	return Metric
}

// Shard keeps part i of n, round-robin over the sorted instance ids.
func (r *run) Shard(i, n int) []string {
	r.ids = nil
	for k, id := range r.p.ids {
		if k%n == i-1 {
			r.ids = append(r.ids, id)
		}
	}
	return append([]string(nil), r.p.ids...)
}

// Meta is the comparison and the gold file's totals.
type Meta struct {
	Metric     string   `json:"metric"`
	Gold       int      `json:"gold_total"`
	Extra      []string `json:"extra"`
	Unanswered int      `json:"unanswered"`
	// NoPrediction are the gold entries with no prediction file.
	NoPrediction []string `json:"no_prediction,omitempty"`
}

// Meta records the comparison and the totals.
func (r *run) Meta() json.RawMessage {
	b, _ := json.Marshal(Meta{Metric: r.metric(), Gold: r.p.run.Gold, Extra: nonNil(r.p.run.Extra),
		Unanswered: len(r.p.run.Unanswered), NoPrediction: r.p.run.Unanswered})
	return b
}

// Close closes the databases of mode sql.
func (r *run) Close() error {
	if r.q != nil {
		r.q.close()
	}
	return nil
}

// Score scores one instance.
func (r *run) Score(ctx context.Context, c qeval.Case) qeval.CaseResult {
	it := evaluateOne(ctx, r.opt, r.p.goldDir, c.ID, r.p.stds[c.ID])
	res := qeval.CaseResult{ID: c.ID, Database: c.Database, Status: qeval.StatusFail, MatchedGold: it.gold}
	score := float64(it.Score)
	res.TotalScore = &score
	res.Metrics = map[string]qeval.MetricResult{"execution_match": {Score: &score}}
	outcome := qeval.OutcomeMatch
	if it.Score == 1 {
		res.Status = qeval.StatusPass
	} else {
		outcome = qeval.OutcomeMismatch
		if it.Error != nil {
			res.Reason = *it.Error
			if *it.Error != "Result Error" {
				outcome = qeval.OutcomePredError
			}
		}
	}
	res.Verdict = &qeval.Verdict{Match: it.Score == 1, Outcome: outcome, Mode: r.metric(), Error: res.Reason}
	res.ItemValue = &it // encoded only where a report or results file is written
	return res
}

// Report is the summary `qeval spider2 --json` prints.
type Report struct {
	Metric     string   `json:"metric"`
	Correct    int      `json:"correct"`
	Total      int      `json:"total"`
	GoldTotal  int      `json:"gold_total"`
	Score      float64  `json:"score"`
	RealScore  float64  `json:"real_score"`
	Extra      []string `json:"extra"`
	Unanswered int      `json:"unanswered"`
	// NoPrediction are the gold entries with no prediction file.
	NoPrediction []string `json:"no_prediction,omitempty"`
	items        []Item
}

// Summarize counts the instances right, as evaluate.py prints them.
func (Benchmark) Summarize(metas []json.RawMessage, cases []qeval.CaseResult) (qeval.BenchmarkSummary, error) {
	var meta Meta
	if len(metas) > 0 {
		if err := json.Unmarshal(metas[0], &meta); err != nil {
			return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "read the Spider 2.0 run's meta", Message: err.Error()}
		}
	}
	rep := &Report{Metric: meta.Metric, Total: len(cases), GoldTotal: meta.Gold, Extra: nonNil(meta.Extra), Unanswered: meta.Unanswered,
		NoPrediction: meta.NoPrediction}
	rep.items = make([]Item, len(cases))
	for i, c := range cases {
		if err := qeval.ReadItem(&c, &rep.items[i]); err != nil {
			return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "read the Spider 2.0 item of case " + c.ID, Message: err.Error()}
		}
		rep.Correct += rep.items[i].Score
	}
	rep.Score, rep.RealScore = ratio(rep.Correct, rep.Total), ratio(rep.Correct, rep.GoldTotal)
	return rep, nil
}

// Print prints evaluate.py's lines, and the comparison used.
func (rep *Report) Print(w io.Writer) {
	scores := make([]string, len(rep.items))
	for i, it := range rep.items {
		scores[i] = fmt.Sprintf("'%s': %d", it.InstanceID, it.Score)
	}
	fmt.Fprintf(w, "{%s}\n", strings.Join(scores, ", "))
	fmt.Fprintf(w, "Final score: %s, Correct examples: %d, Total examples: %d\n", pyFloat(rep.Score), rep.Correct, rep.Total)
	fmt.Fprintf(w, "Real score: %s, Correct examples: %d, Total examples: %d\n", pyFloat(rep.RealScore), rep.Correct, rep.GoldTotal)
	fmt.Fprintf(w, "Comparison: %s\n", rep.Metric)
}

// Warnings name the predictions with no gold entry, the gold entries with no
// prediction, and a run that scored nothing.
func (rep *Report) Warnings() []string {
	var out []string
	if n := len(rep.Extra); n > 0 {
		out = append(out, fmt.Sprintf("%d %s no entry in spider2lite_eval.jsonl and %s not scored: %s",
			n, plural(n, "prediction has", "predictions have"), plural(n, "was", "were"), listed(rep.Extra)))
	}
	if n := len(rep.NoPrediction); n > 0 {
		out = append(out, fmt.Sprintf("%d gold %s no prediction (not in the Final score; wrong in the Real score): %s",
			n, plural(n, "entry has", "entries have"), listed(rep.NoPrediction)))
	}
	if rep.Total == 0 {
		out = append(out, "no prediction matches a gold instance id; nothing was scored")
	}
	return out
}

// listed names at most ten ids.
func listed(ids []string) string {
	if len(ids) > 10 {
		return strings.Join(ids[:10], ", ") + ", …"
	}
	return strings.Join(ids, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// pyFloat prints a float as Python's str() does for ordinary magnitudes.
func pyFloat(f float64) string {
	s := fmt.Sprint(f)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

// querier runs an item's query in mode sql: on the SQLite file db, or on the file of
// the item's "db" in the metadata file, in a folder of <db>.sqlite or <db>/<db>.sqlite.
// Only local items run here; BigQuery and Snowflake items must be run there and scored
// from their saved CSV.
type querier struct {
	db     string
	dir    bool
	names  map[string]string
	open   qeval.Opener
	limits qeval.Limits
	mu     sync.Mutex
	execs  map[string]qeval.Executor
}

func newQuerier(db, metadata, goldDir string, env qeval.BenchmarkEnv) (*querier, error) {
	st, err := os.Stat(db)
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeNotFound, Op: "open --db " + db, Message: "no such file or folder"}
	}
	q := &querier{db: db, dir: st.IsDir(), names: map[string]string{}, limits: env.Limits, execs: map[string]qeval.Executor{}}
	if q.dir {
		if metadata == "" {
			metadata = filepath.Join(goldDir, "..", "..", "spider2-lite.jsonl")
		}
		if q.names, err = readMetadata(metadata); err != nil {
			return nil, err
		}
	}
	if env.Opener == nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Message: "spider2: no engine opener"}
	}
	if q.open, err = env.Opener("sqlite"); err != nil {
		return nil, err
	}
	return q, nil
}

func (q *querier) query(ctx context.Context, id, query string) (*qeval.ResultSet, error) {
	if !strings.HasPrefix(id, "local") {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Message: "unsupported instance " + id + ": it runs on BigQuery or Snowflake",
			Hint: "run it there, save the result as <id>.csv and score with --mode exec_result"}
	}
	path := q.db
	if q.dir {
		name, ok := q.names[id]
		if !ok {
			return nil, &qeval.Error{Code: qeval.CodeNotFound, Message: "missing database mapping for " + id}
		}
		path = filepath.Join(q.db, name+".sqlite")
		if _, err := os.Stat(path); err != nil {
			path = qeval.BenchmarkFile(q.db, name) // Spider's layout
		}
	}
	q.mu.Lock()
	ex, ok := q.execs[path]
	if !ok {
		var err error
		if ex, err = q.open(path, q.limits); err != nil {
			q.mu.Unlock()
			return nil, err
		}
		q.execs[path] = ex
	}
	q.mu.Unlock()
	return ex.Query(ctx, query)
}

func (q *querier) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, ex := range q.execs {
		ex.Close()
	}
	q.execs = nil
}

func readMetadata(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeNotFound, Op: "open --metadata " + path, Message: "no such file",
			Hint: "--metadata names spider2-lite.jsonl, which maps each instance_id to its database"}
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	line := 0
	for sc.Scan() {
		line++
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var rec struct {
			ID string `json:"instance_id"`
			DB string `json:"db"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return nil, &qeval.Error{Code: qeval.CodeInvalid, Message: fmt.Sprintf("%s:%d: %v", path, line, err)}
		}
		out[rec.ID] = rec.DB
	}
	if err := sc.Err(); err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "read --metadata " + path, Message: err.Error()}
	}
	return out, nil
}
