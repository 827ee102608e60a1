package report_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/report"
)

// goldsReport has a case whose second gold matched and one where none of its two did,
// beside a case with one gold.
func goldsReport(matched int) *qeval.Report {
	one, zero := 1.0, 0.0
	golds := []string{"SELECT count(*) FROM a", "SELECT count(*) FROM b"}
	status, score := qeval.StatusFail, &zero
	if matched > 0 {
		status, score = qeval.StatusPass, &one
	}
	return &qeval.Report{SchemaVersion: qeval.ReportSchemaVersion, Run: qeval.RunInfo{Suite: "golds", Threshold: 0.9},
		Cases: []qeval.CaseResult{
			{ID: "two", Status: status, TotalScore: score, ExpectedQuery: golds[max(matched, 1)-1], ExpectedQueries: golds, MatchedGold: matched,
				GeneratedQuery: "SELECT count(*) FROM b", Verdict: &qeval.Verdict{Match: matched > 0, Outcome: qeval.OutcomeMatch}},
			{ID: "none", Status: qeval.StatusFail, TotalScore: &zero, ExpectedQuery: golds[0], ExpectedQueries: golds,
				GeneratedQuery: "SELECT 1", Verdict: &qeval.Verdict{Outcome: qeval.OutcomeMismatch}},
			{ID: "single", Status: qeval.StatusFail, TotalScore: &zero, ExpectedQuery: "SELECT 2", GeneratedQuery: "SELECT 1",
				Verdict: &qeval.Verdict{Outcome: qeval.OutcomeMismatch}},
		},
		Audit: &qeval.GoldAudit{Total: 5, Flagged: 1, Cases: []qeval.AuditedCase{{ID: "two", Gold: 2, Flags: []string{"select_star"}}}},
	}
}

// Every report that shows a case says which of its golds matched (issue 38).
func TestWriters_SeveralGolds(t *testing.T) {
	r := goldsReport(2)
	for _, tc := range []struct {
		w    report.Writer
		want []string
		not  []string
	}{
		{report.JSON{}, []string{`"matched_gold": 2`, `"expected_queries": [`}, nil},
		{report.HTML{}, []string{"gold 2 of 2 matched", "All 2 golds", "none of 2 golds matched", "two (gold 2)"}, nil},
		{report.Markdown{}, []string{"| none | FAIL | 0.000 |  | total score 0.000 below the threshold 0.900 (none of 2 golds matched) |",
			"| single | FAIL | 0.000 |  | total score 0.000 below the threshold 0.900 |"}, nil},
		{report.JUnit{}, []string{"golds: none of 2 golds matched", "gold 2: SELECT count(*) FROM b"}, nil},
	} {
		t.Run(tc.w.FileName(), func(t *testing.T) {
			out := string(write(t, tc.w, r))
			for _, want := range tc.want {
				if !strings.Contains(out, want) {
					t.Errorf("%s lacks %q", tc.w.FileName(), want)
				}
			}
		})
	}
}

// qeval diff says how the matched gold of a case changed.
func TestDiff_SeveralGolds(t *testing.T) {
	d, err := report.Compare(goldsReport(1), goldsReport(0), report.DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Broken) != 1 || d.Broken[0].BaseGold != 1 || d.Broken[0].HeadGold != 0 || d.Broken[0].Golds != 2 {
		t.Fatalf("broken = %+v", d.Broken)
	}
	var text, md bytes.Buffer
	d.WriteText(&text)
	d.WriteMarkdown(&md)
	for name, out := range map[string]string{"text": text.String(), "markdown": md.String()} {
		if !strings.Contains(out, "gold 1 → none of 2") {
			t.Errorf("%s diff lacks the gold change:\n%s", name, out)
		}
	}
	var js bytes.Buffer
	d.WriteJSON(&js)
	if !strings.Contains(js.String(), `"base_matched_gold": 1`) || strings.Contains(js.String(), `"head_matched_gold"`) {
		t.Errorf("diff JSON:\n%s", js.String())
	}
}
