package judgeeval

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/internal/lines"
)

// Label is one labelled pair: a question, its expected and generated queries, and
// whether the generated query is right, as a person (or a run's execution) decided.
type Label struct {
	// Line is where the label was read (1-based; 0 when made in code).
	Line      int    `json:"-"`
	ID        string `json:"id,omitempty"`
	Question  string `json:"question,omitempty"`
	Expected  string `json:"expected"`
	Generated string `json:"generated"`
	Database  string `json:"database,omitempty"`
	Dialect   string `json:"dialect,omitempty"`
	// Label is correct, partially_correct or incorrect.
	Label string `json:"label"`
	// Class is the main error class of an incorrect query, when known.
	Class string `json:"class,omitempty"`
	// Source says how a label made from a run was settled ("execution",
	// "counterexample"); "" for a label given by a person.
	Source string `json:"source,omitempty"`
}

// Verdicts are the three labels, in the confusion matrix's order.
var Verdicts = []string{qeval.JudgeCorrect, qeval.JudgePartiallyCorrect, qeval.JudgeIncorrect}

// maxProblems caps the problems listed for a bad labels file.
const maxProblems = 20

// labelLine is a line as written: the fields have their usual names and a few aliases
// (a Spider-style db_id, a suite's expected_query and generated_query).
type labelLine struct {
	ID             string `json:"id"`
	Question       string `json:"question"`
	Expected       string `json:"expected"`
	ExpectedQuery  string `json:"expected_query"`
	Gold           string `json:"gold"`
	Generated      string `json:"generated"`
	GeneratedQuery string `json:"generated_query"`
	Pred           string `json:"pred"`
	Database       string `json:"database"`
	DBID           string `json:"db_id"`
	Dialect        string `json:"dialect"`
	Label          string `json:"label"`
	Class          string `json:"class"`
}

func (l labelLine) label(line int) (Label, error) {
	out := Label{Line: line, ID: l.ID, Question: l.Question, Expected: first(l.Expected, l.ExpectedQuery, l.Gold),
		Generated: first(l.Generated, l.GeneratedQuery, l.Pred), Database: first(l.Database, l.DBID), Dialect: l.Dialect,
		Label: strings.ToLower(strings.TrimSpace(l.Label)), Class: strings.ToLower(strings.TrimSpace(l.Class))}
	var missing []string
	if strings.TrimSpace(out.Expected) == "" {
		missing = append(missing, "expected query")
	}
	if strings.TrimSpace(out.Generated) == "" {
		missing = append(missing, "generated query")
	}
	if len(missing) > 0 {
		return out, fmt.Errorf("no %s", strings.Join(missing, " and no "))
	}
	switch out.Label {
	case qeval.JudgeCorrect, qeval.JudgePartiallyCorrect, qeval.JudgeIncorrect:
	case "":
		return out, errors.New("no label (correct, partially_correct or incorrect)")
	default:
		return out, fmt.Errorf("label %q is not correct, partially_correct or incorrect", l.Label)
	}
	if out.Class != "" {
		c := qeval.ClassOfSubclass(out.Class)
		if !isClass(c) {
			return out, fmt.Errorf("class %q is none of %s", l.Class, strings.Join(qeval.ErrorClassNames, ", "))
		}
		out.Class = c
	}
	return out, nil
}

func isClass(c string) bool {
	for _, n := range qeval.ErrorClassNames {
		if n == c {
			return true
		}
	}
	return false
}

func first(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// Read reads a labels file: CSV with a header row (its name ends in .csv), else one
// JSON object per line. A JSON line that is a case of a run's results.jsonl (it has
// an id and a status) becomes a label when execution settled it (FromCase) and is
// left out otherwise. Every bad line is reported at once, as name:line: problem.
func Read(name string, r io.Reader) ([]Label, error) {
	var out []Label
	var problems []string
	add := func(line int, l Label, err error) bool {
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s:%d: %s", name, line, err))
			return len(problems) < maxProblems
		}
		out = append(out, l)
		return true
	}
	var err error
	if strings.HasSuffix(strings.ToLower(name), ".csv") {
		err = readCSV(r, add)
	} else {
		err = readJSONL(r, add)
	}
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "read " + name, Message: err.Error(), Err: err}
	}
	if len(problems) > 0 {
		if len(problems) == maxProblems {
			problems = append(problems, "(more problems not shown)")
		}
		return nil, &qeval.Error{Code: qeval.CodeInvalid,
			Message: fmt.Sprintf("%s: bad labels\n  - %s", name, strings.Join(problems, "\n  - ")),
			Hint:    `each label needs an expected and a generated query and a label: correct, partially_correct or incorrect (optional: question, database, dialect, class)`}
	}
	if len(out) == 0 {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Message: name + ": no labels"}
	}
	return out, nil
}

func readJSONL(r io.Reader, add func(int, Label, error) bool) error {
	sc := lines.New(r)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var keys map[string]json.RawMessage
		if err := json.Unmarshal(b, &keys); err != nil {
			if !add(line, Label{}, fmt.Errorf("not a JSON object: %v", err)) {
				break
			}
			continue
		}
		_, hasStatus := keys["status"]
		_, hasLabel := keys["label"]
		if hasStatus && !hasLabel {
			var c qeval.CaseResult
			if err := json.Unmarshal(b, &c); err != nil {
				if !add(line, Label{}, fmt.Errorf("a run's case that cannot be read: %v", err)) {
					break
				}
				continue
			}
			if l, ok := FromCase(&c, ""); ok {
				l.Line = line
				add(line, l, nil)
			}
			continue
		}
		var ll labelLine
		if err := json.Unmarshal(b, &ll); err != nil {
			if !add(line, Label{}, fmt.Errorf("not a label: %v", err)) {
				break
			}
			continue
		}
		l, err := ll.label(line)
		if !add(line, l, err) {
			break
		}
	}
	return sc.Err()
}

func readCSV(r io.Reader, add func(int, Label, error) bool) error {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	head, err := cr.Read()
	if err != nil {
		return fmt.Errorf("no header row: %w", err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[strings.ToLower(strings.TrimSpace(h))] = i
	}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		line, _ := cr.FieldPos(0)
		if err != nil {
			if !add(line, Label{}, err) {
				return nil
			}
			continue
		}
		get := func(k string) string {
			if i, ok := col[k]; ok && i < len(rec) {
				return rec[i]
			}
			return ""
		}
		ll := labelLine{ID: get("id"), Question: get("question"), Expected: get("expected"), ExpectedQuery: get("expected_query"),
			Gold: get("gold"), Generated: get("generated"), GeneratedQuery: get("generated_query"), Pred: get("pred"),
			Database: get("database"), DBID: get("db_id"), Dialect: get("dialect"), Label: get("label"), Class: get("class")}
		l, err := ll.label(line)
		if !add(line, l, err) {
			return nil
		}
	}
}

// ReadFile reads the labels file at path (Read) and, when save is not "", writes the
// labels read there as JSON lines: a label set made from a run, kept.
func ReadFile(path, save string) ([]Label, error) {
	if path == "" {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Message: "no labels file",
			Hint: "qeval judge eval --labels labels.jsonl (or a run's results.jsonl)"}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeNotFound, Op: "read labels", Message: err.Error(), Err: err}
	}
	defer f.Close()
	labels, err := Read(path, f)
	if err != nil || save == "" {
		return labels, err
	}
	out, err := os.Create(save)
	if err == nil {
		err = Write(out, labels)
		if cerr := out.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInternal, Op: "write labels " + save, Message: err.Error(), Err: err}
	}
	return labels, nil
}

// Write writes labels as JSON lines, the format Read reads.
func Write(w io.Writer, labels []Label) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for i := range labels {
		if err := enc.Encode(&labels[i]); err != nil {
			return err
		}
	}
	return nil
}
