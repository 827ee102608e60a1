package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/spider2"
)

func cmdSpider2(ctx context.Context, args []string, e *env) int {
	fs := newFlags("spider2", "--mode exec_result|sql --result-dir PRED_DIR --gold-dir GOLD_DIR [flags]", e)
	mode := fs.String("mode", "exec_result", "exec_result: PRED_DIR holds <id>.csv; sql: PRED_DIR holds <id>.sql, run on --db")
	resultDir := fs.String("result-dir", "", "folder of predictions: <id>.csv or <id>.sql")
	goldDir := fs.String("gold-dir", "", "gold folder: exec_result/<id>.csv (or <id>_a.csv, <id>_b.csv, …) and spider2lite_eval.jsonl")
	strict := fs.Bool("strict", false, "compare with spider2-strict@1 (rows aligned, tolerance for numbers only) instead of the official spider2@1")
	db := fs.String("db", "", "mode sql: a SQLite file for every item, or a folder of <db>.sqlite (or <db>/<db>.sqlite) named by --metadata")
	metadata := fs.String("metadata", "", "mode sql: spider2-lite.jsonl (instance_id → db); default GOLD_DIR/../../spider2-lite.jsonl when --db is a folder")
	itemsPath := fs.String("items", "", "write one JSON object per item to this file (- for stdout)")
	jsonOut := fs.Bool("json", false, "print the summary as JSON")
	timeout := fs.Duration("timeout", qeval.DefaultTimeout, "deadline for each query (mode sql)")
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	var missing []string
	for name, v := range map[string]string{"--result-dir": *resultDir, "--gold-dir": *goldDir} {
		if v == "" {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return fail(e, &qeval.Error{Code: qeval.CodeInvalid, Message: "missing " + strings.Join(sortedStrings(missing), ", "),
			Hint: "qeval spider2 --mode exec_result --result-dir submission/ --gold-dir spider2-lite/evaluation_suite/gold"})
	}
	opt := spider2.Options{GoldDir: *goldDir, ResultDir: *resultDir, Strict: *strict}
	switch *mode {
	case "exec_result":
	case "sql":
		if *db == "" {
			return fail(e, &qeval.Error{Code: qeval.CodeInvalid, Message: "--mode sql needs --db",
				Hint: "--db names the SQLite file (or the folder of <db>.sqlite files) the local items run on"})
		}
		q, closeAll, err := spider2Query(*db, *metadata, *goldDir, qeval.Limits{Timeout: *timeout})
		if err != nil {
			return fail(e, err)
		}
		defer closeAll()
		opt.SQL, opt.Query = true, q
	default:
		return fail(e, &qeval.Error{Code: qeval.CodeInvalid, Message: fmt.Sprintf("unknown --mode %q (known: exec_result, sql)", *mode)})
	}
	run, err := spider2.Evaluate(ctx, opt)
	if err != nil {
		return fail(e, err)
	}
	if *itemsPath != "" {
		if err := writeSpider2Items(*itemsPath, e, run.Items); err != nil {
			return fail(e, err)
		}
	}
	correct := 0
	for _, it := range run.Items {
		correct += it.Score
	}
	metric := spider2.Metric
	if *strict {
		metric = spider2.MetricStrict
	}
	if *jsonOut {
		rep := map[string]any{"metric": metric, "correct": correct, "total": len(run.Items), "gold_total": run.Gold,
			"score": ratio(correct, len(run.Items)), "real_score": ratio(correct, run.Gold),
			"extra": nonNil(run.Extra), "unanswered": len(run.Unanswered)}
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		enc.Encode(rep)
	} else if *itemsPath != "-" {
		scores := make([]string, len(run.Items))
		for i, it := range run.Items {
			scores[i] = fmt.Sprintf("'%s': %d", it.InstanceID, it.Score)
		}
		fmt.Fprintf(e.stdout, "{%s}\n", strings.Join(scores, ", "))
		fmt.Fprintf(e.stdout, "Final score: %s, Correct examples: %d, Total examples: %d\n", pyFloat(ratio(correct, len(run.Items))), correct, len(run.Items))
		fmt.Fprintf(e.stdout, "Real score: %s, Correct examples: %d, Total examples: %d\n", pyFloat(ratio(correct, run.Gold)), correct, run.Gold)
		fmt.Fprintf(e.stdout, "Comparison: %s\n", metric)
	}
	if len(run.Extra) > 0 {
		fmt.Fprintf(e.stderr, "warning: %d predictions have no entry in spider2lite_eval.jsonl and were not scored: %s\n", len(run.Extra), firstStrings(run.Extra, 10))
	}
	if len(run.Items) == 0 {
		fmt.Fprintln(e.stderr, "warning: no prediction matches a gold instance id; nothing was scored")
	}
	if ctx.Err() != nil {
		fmt.Fprintln(e.stderr, "error: interrupted; the scores above cover the items that finished")
		return exitFailed
	}
	return exitOK
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

// spider2Query returns the function that runs an item's query in mode sql: on the
// SQLite file db, or on <db>/<name>.sqlite where name is the item's "db" in the
// metadata file. Only local items run here; BigQuery and Snowflake items must be run
// there and scored from their saved CSV.
func spider2Query(db, metadata, goldDir string, limits qeval.Limits) (func(context.Context, string, string) (*qeval.ResultSet, error), func(), error) {
	st, err := os.Stat(db)
	if err != nil {
		return nil, nil, &qeval.Error{Code: qeval.CodeNotFound, Op: "open --db " + db, Message: "no such file or folder"}
	}
	names := map[string]string{}
	if st.IsDir() {
		if metadata == "" {
			metadata = filepath.Join(goldDir, "..", "..", "spider2-lite.jsonl")
		}
		if names, err = readSpider2Metadata(metadata); err != nil {
			return nil, nil, err
		}
	}
	open := map[string]qeval.Executor{}
	closeAll := func() {
		for _, ex := range open {
			ex.Close()
		}
	}
	opener := officialSQLite["sqlite"]
	return func(ctx context.Context, id, query string) (*qeval.ResultSet, error) {
		if !strings.HasPrefix(id, "local") {
			return nil, &qeval.Error{Code: qeval.CodeInvalid, Message: "unsupported instance " + id + ": it runs on BigQuery or Snowflake",
				Hint: "run it there, save the result as <id>.csv and score with --mode exec_result"}
		}
		path := db
		if st.IsDir() {
			name, ok := names[id]
			if !ok {
				return nil, &qeval.Error{Code: qeval.CodeNotFound, Message: "missing database mapping for " + id}
			}
			path = filepath.Join(db, name+".sqlite")
			if _, err := os.Stat(path); err != nil {
				path = filepath.Join(db, name, name+".sqlite") // Spider's layout
			}
		}
		ex, ok := open[path]
		if !ok {
			var err error
			if ex, err = opener(path, limits); err != nil {
				return nil, err
			}
			open[path] = ex
		}
		return ex.Query(ctx, query)
	}, closeAll, nil
}

func readSpider2Metadata(path string) (map[string]string, error) {
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

func writeSpider2Items(path string, e *env, items []spider2.Item) error {
	var w io.Writer = e.stdout
	if path != "-" {
		f, err := os.Create(path)
		if err != nil {
			return &qeval.Error{Code: qeval.CodeInvalid, Op: "write --items " + path, Message: err.Error(), Err: err}
		}
		defer f.Close()
		w = f
	}
	enc := json.NewEncoder(w)
	for _, it := range items {
		if err := enc.Encode(it); err != nil {
			return &qeval.Error{Code: qeval.CodeInternal, Op: "write --items " + path, Message: err.Error(), Err: err}
		}
	}
	return nil
}
