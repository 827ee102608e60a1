package spider2

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/compare"
	"github.com/qeval/qeval/internal/lazyregexp"
	"github.com/qeval/qeval/resultcsv"
)

// Metric names, as reports record them.
const (
	Metric       = "spider2@1"
	MetricStrict = "spider2-strict@1"
)

// Standard is one line of spider2lite_eval.jsonl: how an item's result is compared.
type Standard struct {
	InstanceID string `json:"instance_id"`
	// ConditionCols names the gold columns that must be found, by index: a list (for
	// one gold file, or the same for all), or one list per gold file; empty means all.
	ConditionCols any  `json:"condition_cols"`
	IgnoreOrder   bool `json:"ignore_order"`
}

// ReadStandards reads spider2lite_eval.jsonl. A line that does not decode is an error
// naming the file and line.
func ReadStandards(r io.Reader, name string) (map[string]Standard, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	out := map[string]Standard{}
	for i, l := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		var s Standard
		d := json.NewDecoder(bytes.NewReader(l))
		d.UseNumber()
		if err := d.Decode(&s); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, i+1, err)
		}
		if s.InstanceID == "" {
			return nil, fmt.Errorf("%s:%d: no instance_id", name, i+1)
		}
		out[s.InstanceID] = s
	}
	return out, nil
}

// GoldPaths finds the gold results of an item in dir, as evaluate.py's
// resolve_gold_paths does: <id>.csv alone (single), else every <id>_<letter>.csv
// sorted by name.
func GoldPaths(dir, id string) (paths []string, single bool, err error) {
	base := filepath.Join(dir, id+".csv")
	if st, err := os.Stat(base); err == nil && !st.IsDir() {
		return []string{base}, true, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, false, err
	}
	re := regexp.MustCompile(`^` + regexp.QuoteMeta(id) + `(_[a-z])?\.csv$`)
	for _, e := range entries {
		if re.MatchString(e.Name()) {
			paths = append(paths, filepath.Join(dir, e.Name()))
		}
	}
	sort.Strings(paths)
	return paths, false, nil
}

// Verdict is the comparison of one predicted result with an item's gold results.
type Verdict struct {
	Score int
	// Matched is the gold file that matched ("" when none did), and Gold its number
	// from 1 among the item's gold files (0 when none did).
	Matched string
	Gold    int
	// Err is set when the comparison itself failed, as evaluate.py's "Python Script
	// Error" (a condition column out of range, malformed condition_cols): score 0.
	Err error
}

// Compare compares pred with the gold results (read from paths; single as GoldPaths
// says) under std, as evaluate.py does, or with the strict comparison.
func Compare(pred *qeval.ResultSet, golds []*qeval.ResultSet, paths []string, single bool, std Standard, strict bool) Verdict {
	match := compare.Spider2Match
	if strict {
		match = compare.Spider2StrictMatch
	}
	for i, g := range golds {
		cond, err := conditionCols(std.ConditionCols, i, len(golds), single)
		if err != nil {
			return Verdict{Err: err}
		}
		ok, err := match(g, pred, cond, std.IgnoreOrder)
		if err != nil {
			return Verdict{Err: err}
		}
		if ok {
			return Verdict{Score: 1, Matched: filepath.Base(paths[i]), Gold: i + 1}
		}
	}
	return Verdict{}
}

var errCond = errors.New("malformed condition_cols")

// conditionCols derives the condition columns of gold i of n as evaluate.py does
// (nil: all columns), quirks included: with one gold file named <id>_a.csv and a flat
// list, only the list's first index is used, and an index 0 given alone means all
// columns (Python's "if condition_cols:" is false for 0).
func conditionCols(raw any, i, n int, single bool) ([]int, error) {
	if single {
		return condOf(raw)
	}
	list, isList := raw.([]any)
	switch {
	case raw == nil, isList && len(list) == 0:
		return nil, nil
	case isList && len(list) == 1 && (list[0] == nil || isEmptyList(list[0])):
		return nil, nil
	case !isList:
		return nil, fmt.Errorf("%w: %v is not a list", errCond, raw)
	}
	allLists := true
	for _, x := range list {
		if _, ok := x.([]any); !ok {
			allLists = false
		}
	}
	if n > 1 && !allLists {
		return condOf(raw)
	}
	if i >= len(list) {
		return nil, fmt.Errorf("%w: no entry for gold result %d (list index out of range)", errCond, i+1)
	}
	return condOf(list[i])
}

func isEmptyList(x any) bool {
	l, ok := x.([]any)
	return ok && len(l) == 0
}

// condOf is compare_pandas_table's reading of condition_cols.
func condOf(x any) ([]int, error) {
	switch t := x.(type) {
	case nil:
		return nil, nil
	case json.Number:
		n, err := t.Int64()
		if err != nil {
			return nil, fmt.Errorf("%w: %v is not a column index", errCond, t)
		}
		if n == 0 {
			return nil, nil
		}
		return []int{int(n)}, nil
	case []any:
		var out []int
		for _, e := range t {
			num, ok := e.(json.Number)
			if !ok {
				return nil, fmt.Errorf("%w: %v is not a column index", errCond, e)
			}
			n, err := num.Int64()
			if err != nil {
				return nil, fmt.Errorf("%w: %v is not a column index", errCond, e)
			}
			out = append(out, int(n))
		}
		return out, nil
	}
	return nil, fmt.Errorf("%w: %v", errCond, x)
}

// Item is the verdict on one instance, as --items writes it.
type Item struct {
	InstanceID string  `json:"instance_id"`
	Score      int     `json:"score"`
	Error      *string `json:"error"`
	// Matched names the gold file that matched.
	Matched string `json:"matched,omitempty"`
	// gold is, on an item with several gold files (<id>_a.csv, <id>_b.csv, …), the
	// number from 1 of the one that matched: its case's matched_gold. It is not in
	// the official item line.
	gold int
}

// Options configures Evaluate.
type Options struct {
	// GoldDir holds exec_result/ and spider2lite_eval.jsonl.
	GoldDir string
	// ResultDir holds <id>.csv (mode exec_result) or <id>.sql (mode sql).
	ResultDir string
	// SQL selects mode sql: predictions are queries, run with Query.
	SQL bool
	// Query runs an item's predicted query (mode sql); its result is saved as CSV and
	// read back, as the official evaluator does.
	Query func(ctx context.Context, instanceID, query string) (*qeval.ResultSet, error)
	// Strict uses the strict comparison (spider2-strict@1).
	Strict bool
}

// Run is one evaluation.
type Run struct {
	Items []Item
	// Extra are predictions with no gold entry (ignored, as evaluate.py ignores them);
	// Unanswered are gold entries with no prediction.
	Extra, Unanswered []string
	// Gold is the number of entries in spider2lite_eval.jsonl.
	Gold int
}

// Evaluate scores every prediction that has a gold entry, sorted by instance id. An
// unreadable gold folder or result folder is an error; a bad file fails its item only.
func Evaluate(ctx context.Context, opt Options) (*Run, error) {
	p, err := plan(opt)
	if err != nil {
		return nil, err
	}
	for _, id := range p.ids {
		if ctx.Err() != nil {
			break
		}
		p.run.Items = append(p.run.Items, evaluateOne(ctx, opt, p.goldDir, id, p.stds[id]))
	}
	return p.run, nil
}

// planned is an evaluation read from its folders: the instances to score, in order.
type planned struct {
	run     *Run // without its items
	ids     []string
	stds    map[string]Standard
	goldDir string
}

func plan(opt Options) (*planned, error) {
	stdPath := filepath.Join(opt.GoldDir, "spider2lite_eval.jsonl")
	f, err := os.Open(stdPath)
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeNotFound, Op: "open " + stdPath, Message: "no such file",
			Hint: "the gold folder must hold spider2lite_eval.jsonl and exec_result/, as spider2-lite/evaluation_suite/gold does", Err: err}
	}
	stds, err := ReadStandards(f, stdPath)
	f.Close()
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Message: err.Error(), Err: err}
	}
	ext := ".csv"
	if opt.SQL {
		ext = ".sql"
	}
	entries, err := os.ReadDir(opt.ResultDir)
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeNotFound, Op: "open " + opt.ResultDir, Message: "no such folder", Err: err}
	}
	run := &Run{Gold: len(stds)}
	have := map[string]bool{}
	var ids []string
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ext)
		if !ok || e.IsDir() {
			continue
		}
		have[id] = true
		if _, ok := stds[id]; ok {
			ids = append(ids, id)
		} else {
			run.Extra = append(run.Extra, id)
		}
	}
	for id := range stds {
		if !have[id] {
			run.Unanswered = append(run.Unanswered, id)
		}
	}
	sort.Strings(ids)
	sort.Strings(run.Extra)
	sort.Strings(run.Unanswered)
	return &planned{run: run, ids: ids, stds: stds, goldDir: filepath.Join(opt.GoldDir, "exec_result")}, nil
}

func evaluateOne(ctx context.Context, opt Options, goldDir, id string, std Standard) Item {
	it := Item{InstanceID: id}
	fail := func(msg string) Item {
		it.Error = &msg
		return it
	}
	var pred *qeval.ResultSet
	if opt.SQL {
		text, err := os.ReadFile(filepath.Join(opt.ResultDir, id+".sql"))
		if err != nil {
			return fail("Evaluation Error: " + err.Error())
		}
		if opt.Query == nil {
			return fail("no database to run the query on")
		}
		rs, err := opt.Query(ctx, id, ExtractSQL(string(text)))
		if err != nil {
			return fail(qeval.ErrorMessage(err))
		}
		// the official evaluator saves the result as CSV and reads it back
		var buf bytes.Buffer
		if err := resultcsv.Write(&buf, rs); err != nil {
			return fail("Evaluation Error: " + err.Error())
		}
		if pred, err = resultcsv.Read(&buf, id+".csv"); err != nil {
			return fail("Evaluation Error: " + err.Error())
		}
	} else {
		rs, err := resultcsv.ReadFile(filepath.Join(opt.ResultDir, id+".csv"))
		if err != nil {
			return fail("Evaluation Error: " + err.Error())
		}
		pred = rs
	}
	paths, single, err := GoldPaths(goldDir, id)
	if err != nil {
		return fail("Evaluation Error: " + err.Error())
	}
	if len(paths) == 0 {
		return fail("No matching gold file found")
	}
	golds := make([]*qeval.ResultSet, len(paths))
	for i, p := range paths {
		if golds[i], err = resultcsv.ReadFile(p); err != nil {
			return fail("Python Script Error:" + err.Error())
		}
	}
	v := Compare(pred, golds, paths, single, std, opt.Strict)
	switch {
	case v.Err != nil:
		return fail("Python Script Error:" + v.Err.Error())
	case v.Score == 0:
		return fail("Result Error")
	}
	it.Score, it.Matched = 1, v.Matched
	if len(paths) > 1 {
		it.gold = v.Gold
	}
	return it
}

var sqlBlock = lazyregexp.New("(?s)```sql\n(.*?)\n```")

// ExtractSQL returns the first ```sql block of a prediction, trimmed, or the whole
// text when there is none, as evaluate.py's extract_sql_query does.
func ExtractSQL(text string) string {
	if m := sqlBlock.FindStringSubmatch(text); m != nil {
		return strings.TrimSpace(m[1])
	}
	return text
}
