package audit

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/verify"
)

// ReadGoldFile reads a gold file of `SQL<TAB>db_id` lines (blank lines separate the
// interactions of SParC and CoSQL) into items, each database resolved through cat.
// questions, when given, are the items' questions in order (ReadQuestions). A line
// that cannot be read, or whose database cannot be found, becomes an item with its
// error; only a file that cannot be read at all is an error.
func ReadGoldFile(ctx context.Context, path string, data []byte, cat qeval.Catalog, questions []string) ([]Item, error) {
	var out []Item
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(text) == "" {
			continue
		}
		it := Item{Index: len(out), Ref: fmt.Sprintf("%s:%d", path, line)}
		fields := strings.Split(text, "\t")
		if len(fields) != 2 {
			it.Gold = text
			it.Err = fmt.Errorf("want `SQL<TAB>db_id`, found %d TAB-separated fields", len(fields))
			out = append(out, it)
			continue
		}
		it.Gold, it.DBID = strings.TrimSpace(fields[0]), strings.TrimSpace(fields[1])
		if it.Index < len(questions) {
			it.Question = questions[it.Index]
		}
		it.Source, it.Err = cat.Resolve(ctx, it.DBID, "sql")
		out = append(out, it)
	}
	if err := sc.Err(); err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "read --gold " + path, Message: fmt.Sprintf("line %d: %v", line+1, err), Err: err}
	}
	if len(questions) > 0 && len(questions) != len(out) {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Message: fmt.Sprintf("the questions file has %d examples but --gold %s has %d queries", len(questions), path, len(out)),
			Hint: "example i of --questions must be the question of gold line i"}
	}
	return out, nil
}

// ReadQuestions reads the questions of a Spider or BIRD examples file (dev.json), in
// order.
func ReadQuestions(path string) ([]string, error) {
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

// AddCounterexamples gives each item the counterexamples found in dirs
// (DIR/<index>.sqlite, as qeval verify --out writes them) and the systems'
// predictions: preds[s][i] is system s's prediction for item i, or, with no preds,
// the prediction each counterexample was found for.
func AddCounterexamples(its []Item, preds [][]string, dirs []string) error {
	for _, d := range dirs {
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			return &qeval.Error{Code: qeval.CodeNotFound, Op: "open --counterexamples " + d, Message: "no such folder"}
		}
	}
	for s, p := range preds {
		if len(p) != len(its) {
			return &qeval.Error{Code: qeval.CodeInvalid, Message: fmt.Sprintf("prediction set %d has %d predictions for %d gold queries", s+1, len(p), len(its))}
		}
	}
	for i := range its {
		it := &its[i]
		for _, p := range preds {
			it.Preds = append(it.Preds, p[i])
		}
		for _, d := range dirs {
			db := filepath.Join(d, strconv.Itoa(it.Index)+".sqlite")
			if _, err := os.Stat(db); err != nil {
				continue
			}
			it.Counterexamples = append(it.Counterexamples, db)
			if len(preds) == 0 {
				if doc, err := verify.ReadCounterexample(db); err == nil && doc.Gold == it.Gold {
					it.Preds = append(it.Preds, doc.Pred)
				}
			}
		}
	}
	return nil
}
