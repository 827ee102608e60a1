package judgeeval_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/judgeeval"
)

// handSet is nine labels and the judge's verdict on each (the comment after each
// label), worked out by hand below, and a tenth the judge fails on.
const handSet = `{"id":"1","expected":"SELECT a FROM t","generated":"SELECT b FROM t -- correct","label":"correct"}
{"id":"2","expected":"SELECT a FROM t","generated":"SELECT c FROM t -- correct","label":"correct"}
{"id":"3","expected":"SELECT a FROM t","generated":"SELECT d FROM t -- incorrect","label":"correct"}
{"id":"4","expected":"SELECT a FROM t","generated":"SELECT e FROM t -- partially_correct","label":"partially_correct"}
{"id":"5","expected":"SELECT a FROM t","generated":"SELECT f FROM t -- incorrect","label":"partially_correct"}
{"id":"6","expected":"SELECT a FROM t","generated":"SELECT g FROM t -- incorrect","label":"incorrect","class":"value"}
{"id":"7","expected":"SELECT a FROM t","generated":"SELECT h FROM t -- correct","label":"incorrect","class":"value.literal"}
{"id":"8","expected":"SELECT a FROM t","generated":"SELECT i FROM t -- incorrect","label":"incorrect","class":"condition"}
{"id":"9","expected":"SELECT a FROM t","generated":"SELECT j FROM t -- incorrect","label":"incorrect","class":"condition"}
{"id":"10","expected":"SELECT a FROM t","generated":"SELECT k FROM t -- fail","label":"incorrect","class":"table"}
`

// byComment answers the verdict written at the end of the generated query; "fail"
// is a judge that fails.
func byComment(_ context.Context, in qeval.JudgeInput) (qeval.JudgeVerdict, error) {
	_, v, _ := strings.Cut(in.Generated, "-- ")
	if v == "fail" {
		return qeval.JudgeVerdict{}, &qeval.Error{Code: qeval.CodeUnavailable, Message: "judge: anthropic: 500 internal error (gave up after 4 tries)"}
	}
	return qeval.JudgeVerdict{Verdict: v, Score: map[string]float64{"correct": 1, "partially_correct": 0.5}[v], Reasoning: "said so"}, nil
}

func evaluate(t *testing.T, set string, judge func(context.Context, qeval.JudgeInput) (qeval.JudgeVerdict, error)) *judgeeval.Result {
	t.Helper()
	labels, err := judgeeval.Read("labels.jsonl", strings.NewReader(set))
	if err != nil {
		t.Fatal(err)
	}
	return judgeeval.Evaluate(context.Background(), judgeFunc(judge), labels, judgeeval.Options{Concurrency: 3})
}

// judgeFunc is a qeval.Judge answering with a function.
type judgeFunc func(context.Context, qeval.JudgeInput) (qeval.JudgeVerdict, error)

func (f judgeFunc) Judge(ctx context.Context, in qeval.JudgeInput) (qeval.JudgeVerdict, error) {
	return f(ctx, in)
}

func near(a *float64, b float64) bool { return a != nil && math.Abs(*a-b) < 1e-12 }

func TestEvaluate_ByHand(t *testing.T) {
	r := evaluate(t, handSet, byComment)
	// rows: label correct, partially_correct, incorrect; columns: the judge's verdict
	want := [3][3]int{{2, 0, 1}, {0, 1, 1}, {1, 0, 3}}
	if r.Confusion != want || r.Labels != 10 || r.Judged != 9 || r.Errors != 1 {
		t.Fatalf("confusion %v, labels %d, judged %d, errors %d; want %v, 10, 9, 1", r.Confusion, r.Labels, r.Judged, r.Errors, want)
	}
	// accuracy 6/9; κ: po = 54/81, pe = (3·3 + 2·1 + 4·5)/81 = 31/81, κ = 23/50
	if r.Accuracy == nil || r.Accuracy.Value != 6.0/9 || r.Accuracy.N != 9 || !near(r.Kappa, 0.46) {
		t.Errorf("accuracy %+v, κ %v; want 6/9 and 0.46", r.Accuracy, *r.Kappa)
	}
	// incorrect: TP 3, FP 2 (a correct and a partially correct called incorrect), FN 1
	d := r.Incorrect
	if d.TP != 3 || d.FP != 2 || d.FN != 1 || !near(d.Precision, 0.6) || !near(d.Recall, 0.75) {
		t.Errorf("incorrect %+v, precision %v, recall %v; want 3/2/1, 0.6, 0.75", d, *d.Precision, *d.Recall)
	}
	// recall per class, in vocabulary order: value 1 of 2, condition 2 of 2; the table label failed
	if len(r.ByClass) != 2 || r.ByClass[1].Class != "condition" || r.ByClass[1].Caught != 2 || r.ByClass[1].N != 2 ||
		r.ByClass[0].Class != "value" || r.ByClass[0].Caught != 1 || r.ByClass[0].Recall.Value != 0.5 {
		t.Errorf("by class %+v", r.ByClass)
	}
	var failed judgeeval.Item
	for _, it := range r.Items {
		if it.ID == "10" {
			failed = it
		}
	}
	if failed.Verdict != "" || !strings.Contains(failed.Error, "gave up") || failed.Line != 10 {
		t.Errorf("the failed label %+v: want its error, no verdict, line 10", failed)
	}
}

func TestEvaluate_ConstantJudgeKappaZero(t *testing.T) {
	for _, v := range judgeeval.Verdicts {
		r := evaluate(t, handSet, func(context.Context, qeval.JudgeInput) (qeval.JudgeVerdict, error) {
			return qeval.JudgeVerdict{Verdict: v}, nil
		})
		if !near(r.Kappa, 0) || r.Errors != 0 || r.Judged != 10 {
			t.Errorf("a judge answering %s to everything: κ %v, judged %d, errors %d; want κ 0 over 10", v, r.Kappa, r.Judged, r.Errors)
		}
	}
	// all labels one verdict and the judge too: κ undefined, not 0 or 1
	one := `{"expected":"SELECT 1","generated":"SELECT 2","label":"correct"}` + "\n"
	r := evaluate(t, one+one, func(context.Context, qeval.JudgeInput) (qeval.JudgeVerdict, error) {
		return qeval.JudgeVerdict{Verdict: "correct"}, nil
	})
	if r.Kappa != nil || r.Accuracy.Value != 1 {
		t.Errorf("κ %v, accuracy %v; want undefined κ, accuracy 1", r.Kappa, r.Accuracy)
	}
}

func TestEvaluate_IdenticalQueriesNeedNoCall(t *testing.T) {
	r := evaluate(t, `{"expected":"SELECT a FROM t","generated":"select a  from t","label":"correct"}`, func(context.Context, qeval.JudgeInput) (qeval.JudgeVerdict, error) {
		return qeval.JudgeVerdict{}, errors.New("called")
	})
	if r.Judged != 1 || r.Items[0].Verdict != "correct" {
		t.Errorf("identical queries: %+v", r.Items)
	}
}

func TestRead_BadLabels(t *testing.T) {
	set := `{"expected":"SELECT 1","generated":"SELECT 2","label":"correct"}
{"expected":"SELECT 1","generated":"SELECT 2","label":"wrong"}

{"expected":"SELECT 1","label":"incorrect"}
{"generated":"SELECT 1","label":"incorrect"}
not json
{"expected":"SELECT 1","generated":"SELECT 2","label":"incorrect","class":"spelling"}
{"expected":"SELECT 1","generated":"SELECT 2"}
`
	_, err := judgeeval.Read("l.jsonl", strings.NewReader(set))
	if qeval.ErrorCode(err) != qeval.CodeInvalid {
		t.Fatalf("Read: %v, want an invalid-input error", err)
	}
	msg := qeval.ErrorMessage(err)
	for _, want := range []string{`l.jsonl:2: label "wrong" is not correct, partially_correct or incorrect`, "l.jsonl:4: no generated query",
		"l.jsonl:5: no expected query", "l.jsonl:6: not a JSON object", `l.jsonl:7: class "spelling" is none of value, operator`, "l.jsonl:8: no label"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "l.jsonl:1:") || strings.Contains(msg, "l.jsonl:3:") {
		t.Errorf("a good or blank line is reported:\n%s", msg)
	}
}

func TestRead_CSV(t *testing.T) {
	set := "question,expected,generated,database,label,class\n" +
		"How many?,SELECT count(*) FROM t,\"SELECT count(*) FROM t WHERE a = 'x, y'\",shop,incorrect,condition.extra\n" +
		"Names?,SELECT name FROM t,SELECT name FROM t ORDER BY 1,shop,Correct,\n" +
		"Bad,SELECT 1,,shop,correct,\n"
	_, err := judgeeval.Read("l.csv", strings.NewReader(set))
	if err == nil || !strings.Contains(qeval.ErrorMessage(err), "l.csv:4: no generated query") {
		t.Fatalf("Read: %v, want line 4 named", err)
	}
	labels, err := judgeeval.Read("l.csv", strings.NewReader(strings.TrimSuffix(set, "Bad,SELECT 1,,shop,correct,\n")))
	if err != nil {
		t.Fatal(err)
	}
	if len(labels) != 2 || labels[0].Generated != "SELECT count(*) FROM t WHERE a = 'x, y'" || labels[0].Class != "condition" ||
		labels[0].Database != "shop" || labels[1].Label != "correct" || labels[0].Line != 2 {
		t.Errorf("labels %+v", labels)
	}
}

func TestFromCase(t *testing.T) {
	mk := func(o qeval.Outcome, item string, classes ...qeval.ErrorClass) *qeval.CaseResult {
		c := &qeval.CaseResult{ID: string(o), ExpectedQuery: "SELECT a FROM t WHERE x = 1", GeneratedQuery: "SELECT a FROM t WHERE x = 2",
			Verdict: &qeval.Verdict{Outcome: o, Match: o == qeval.OutcomeMatch}, ErrorClass: classes}
		if item != "" {
			c.Item = json.RawMessage(item)
		}
		return c
	}
	tests := []struct {
		c                  *qeval.CaseResult
		ok                 bool
		label, class, from string
	}{
		{mk(qeval.OutcomeMatch, ""), true, "correct", "", "execution"},
		{mk(qeval.OutcomeMatch, `{"status":"counterexample"}`), true, "incorrect", "value", "counterexample"},
		{mk(qeval.OutcomeMatch, `{"status":"equivalent_up_to_k"}`), true, "correct", "", "execution"},
		{mk(qeval.OutcomeMismatch, "", qeval.ErrorClass{Class: "value", Subclass: "value.literal"}), true, "incorrect", "value", "execution"},
		{mk(qeval.OutcomePredError, "", qeval.ErrorClass{Class: "other", Subclass: "other.syntax"}), true, "incorrect", "other", "execution"},
		{mk(qeval.OutcomeTimeout, ""), false, "", "", ""},
		{mk(qeval.OutcomeGoldError, ""), false, "", "", ""},
		{&qeval.CaseResult{ID: "no-exec", ExpectedQuery: "SELECT 1", GeneratedQuery: "SELECT 2"}, false, "", "", ""},
	}
	for _, tt := range tests {
		l, ok := judgeeval.FromCase(tt.c, "sql")
		if ok != tt.ok || l.Label != tt.label || l.Class != tt.class || l.Source != tt.from {
			t.Errorf("FromCase(%s)=%+v, %v; want %v %s %s %s", tt.c.ID, l, ok, tt.ok, tt.label, tt.class, tt.from)
		}
	}
}

func TestRead_RunResults(t *testing.T) {
	var b strings.Builder
	for i, o := range []qeval.Outcome{qeval.OutcomeMatch, qeval.OutcomeMismatch, qeval.OutcomeTimeout} {
		c := qeval.CaseResult{ID: fmt.Sprint("c", i), Status: "FAIL", ExpectedQuery: "SELECT 1", GeneratedQuery: "SELECT 2",
			Verdict: &qeval.Verdict{Outcome: o, Match: o == qeval.OutcomeMatch}, ErrorClass: []qeval.ErrorClass{{Class: "attribute", Subclass: "attribute.mismatch"}}}
		line, _ := json.Marshal(c)
		b.Write(append(line, '\n'))
	}
	labels, err := judgeeval.Read("results.jsonl", strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(labels) != 2 || labels[0].Label != "correct" || labels[1].Label != "incorrect" || labels[1].Class != "attribute" || labels[1].Line != 2 {
		t.Errorf("labels of a run %+v; want the match correct and the mismatch incorrect, the timeout left out", labels)
	}
	var out strings.Builder
	if err := judgeeval.Write(&out, labels); err != nil {
		t.Fatal(err)
	}
	again, err := judgeeval.Read("saved.jsonl", strings.NewReader(out.String()))
	if err != nil || len(again) != 2 || again[1].Class != "attribute" || again[1].Source != "" {
		t.Errorf("the saved labels read back: %+v, %v", again, err)
	}
}

func TestResult_WriteText(t *testing.T) {
	r := evaluate(t, handSet, byComment)
	r.SetJudge("anthropic", "claude-test", qeval.JudgeStats{Calls: 10, CacheHits: 2})
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"Judge anthropic claude-test, prompt query_correctness@1 on", "on 10 labels: 9 judged, 1 judge errors (left out)",
		"Cohen's κ               0.460", "precision of incorrect  60.0%", "recall of incorrect     75.0%",
		"  incorrect          1        0                  3", "  value                    1 of 2  50.0%",
		"10: judge: anthropic: 500 internal error", "Judge: 10 calls, 2 cache hits"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
}
