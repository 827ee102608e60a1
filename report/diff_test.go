package report_test

import (
	"bytes"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/report"
)

// headOf returns a copy of the fixture with some cases changed: error-syntax fixed,
// partial fixed, pass-join broken, markup gone and a new case added.
func headOf() *qeval.Report {
	h := fixture()
	set := func(id, status string, total *float64, exec *float64) {
		for i := range h.Cases {
			if h.Cases[i].ID == id {
				h.Cases[i].Status, h.Cases[i].TotalScore = status, total
				if exec != nil {
					h.Cases[i].Metrics["execution_match"] = scored(*exec, nil)
				}
			}
		}
	}
	set("error-syntax", qeval.StatusPass, f(0.9), f(1))
	set("partial", qeval.StatusPass, f(0.8), nil)
	set("pass-join", qeval.StatusFail, f(0.5), f(0))
	h.Cases[0].Reason = "total score 0.500 below the threshold 0.700"
	h.Cases[0].ErrorClass = []qeval.ErrorClass{{Class: "table", Subclass: "table.join", Expected: "JOIN orders ON cid = id", Generated: "LEFT JOIN orders ON cid = id"}}
	h.Cases = append(h.Cases[:5], qeval.CaseResult{ID: "new-case", Status: qeval.StatusPass, TotalScore: f(1)})
	h.Run.Mode = "bag@1"
	return h
}

func TestCompare(t *testing.T) {
	d, err := report.Compare(fixture(), headOf(), report.DiffOptions{BaseName: "base.json", HeadName: "head.json"})
	if err != nil {
		t.Fatal(err)
	}
	ids := func(cs []report.CaseChange) string {
		var out []string
		for _, c := range cs {
			out = append(out, c.ID+":"+c.From+"→"+c.To)
		}
		return strings.Join(out, ",")
	}
	if got := ids(d.Fixed); got != "error-syntax:ERROR→PASS,partial:FAIL→PASS" {
		t.Errorf("fixed %s", got)
	}
	if got := ids(d.Broken); got != "pass-join:PASS→FAIL" {
		t.Errorf("broken %s", got)
	}
	if d.Paired != 5 || d.StillPassing != 1 || d.StillFailing != 1 {
		t.Errorf("paired %d, still passing %d, still failing %d; want 5, 1, 1", d.Paired, d.StillPassing, d.StillFailing)
	}
	if strings.Join(d.OnlyBase, ",") != "markup" || strings.Join(d.OnlyHead, ",") != "new-case" {
		t.Errorf("only in base %v, only in head %v", d.OnlyBase, d.OnlyHead)
	}
	// Over the 5 paired cases: base passes pass-join and no-judge (2/5), head passes
	// error-syntax, no-judge and partial (3/5).
	if p := d.PassRate; p.Base != 0.4 || p.Head != 0.6 || math.Abs(p.Delta-0.2) > 1e-12 || p.N != 5 || p.Low > p.Delta || p.High < p.Delta {
		t.Errorf("pass rate %+v", p)
	}
	// Execution ran on pass-join, fail-agg, error-syntax and no-judge in both runs:
	// base 1,0,0,1 = 0.5; head 0,0,1,1 = 0.5.
	if e := d.ExecutionAccuracy; e == nil || e.N != 4 || e.Base != 0.5 || e.Head != 0.5 || e.Delta != 0 {
		t.Errorf("execution accuracy %+v", e)
	}
	// Total scores on both sides: pass-join .95→.5, fail-agg .41→.41, no-judge 1→1,
	// partial .65→.8 (error-syntax had none in base): delta (−.45+.15)/4 = −0.075.
	if m := d.MeanScore; m == nil || m.N != 4 || math.Abs(m.Delta+0.075) > 1e-12 {
		t.Errorf("mean score %+v", m)
	}
	if d.McNemar.B != 1 || d.McNemar.C != 2 || math.Abs(d.McNemar.P-1) > 1e-12 || math.Abs(d.McNemar.MidP-0.625) > 1e-12 {
		// n=3, k=1: P(X ≤ 1) = 4/8, so P = 1 and mid-p = 1 − 3/8.
		t.Errorf("McNemar %+v, want b=1 c=2 p=1 mid-p=0.625", d.McNemar)
	}
	if len(d.Components) != 4 || d.Components[0].Name != "schema_match" || d.Components[0].N != 4 {
		t.Errorf("components %+v", d.Components)
	}
	if !d.Regression || len(d.Reasons) != 1 || d.Reasons[0] != "1 case broke" {
		t.Errorf("regression %v %v, want one broken case", d.Regression, d.Reasons)
	}
	warned := strings.Join(d.Warnings, "\n")
	if !strings.Contains(warned, "comparison mode differs: spider-ts@1 in base.json, bag@1 in head.json") || !strings.Contains(warned, "2 cases in only one run") {
		t.Errorf("warnings %q", warned)
	}
}

func TestCompare_RegressionRule(t *testing.T) {
	mk := func(statuses string, exec []float64) *qeval.Report {
		r := &qeval.Report{SchemaVersion: "1"}
		for i, s := range statuses {
			c := qeval.CaseResult{ID: string(rune('a' + i)), Status: qeval.StatusFail, Metrics: map[string]qeval.MetricResult{}}
			if s == 'P' {
				c.Status = qeval.StatusPass
			}
			if exec != nil {
				c.Metrics["execution_match"] = scored(exec[i], nil)
			}
			r.Cases = append(r.Cases, c)
		}
		return r
	}
	t.Run("OnlyFixes", func(t *testing.T) {
		d, err := report.Compare(mk("FFPP", nil), mk("PFPP", nil), report.DiffOptions{})
		if err != nil || d.Regression {
			t.Errorf("a run that only fixes regressed: %v %v", d.Reasons, err)
		}
	})
	t.Run("ExecutionDrop", func(t *testing.T) {
		// Statuses unchanged, but execution accuracy falls from 1 to 0 on 20 of 30 cases.
		base, head := make([]float64, 30), make([]float64, 30)
		for i := range base {
			base[i], head[i] = 1, 1
			if i < 20 {
				head[i] = 0
			}
		}
		st := strings.Repeat("F", 30)
		d, err := report.Compare(mk(st, base), mk(st, head), report.DiffOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !d.Regression || len(d.Reasons) != 1 || !strings.Contains(d.Reasons[0], "execution accuracy fell by 66.7 pp") {
			t.Errorf("regression %v %v", d.Regression, d.Reasons)
		}
	})
	t.Run("ErrNoCommonCases", func(t *testing.T) {
		other := mk("PP", nil)
		other.Cases[0].ID, other.Cases[1].ID = "x", "y"
		_, err := report.Compare(mk("PP", nil), other, report.DiffOptions{BaseName: "a.json", HeadName: "b.json"})
		if err == nil || err.Error() != "a.json and b.json have no case id in common" {
			t.Errorf("err %v", err)
		}
	})
	t.Run("ErrDuplicateID", func(t *testing.T) {
		dup := mk("PP", nil)
		dup.Cases[1].ID = "a"
		_, err := report.Compare(mk("PP", nil), dup, report.DiffOptions{HeadName: "head.json"})
		if err == nil || err.Error() != `head.json: case id "a" appears twice` {
			t.Errorf("err %v", err)
		}
	})
}

func TestDiff_ErrorClasses(t *testing.T) {
	d, err := report.Compare(fixture(), headOf(), report.DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// base fails fail-agg (function), error-syntax (other); head fixes error-syntax,
	// keeps fail-agg and breaks pass-join (table)
	want := []report.ClassDelta{{Class: "function", Base: 1, Head: 1}, {Class: "table", Head: 1, Broken: 1}, {Class: "other", Base: 1, Fixed: 1}}
	if !reflect.DeepEqual(d.ErrorClasses, want) {
		t.Errorf("ErrorClasses=%+v, want %+v", d.ErrorClasses, want)
	}
	if d.Broken[0].Class != "table.join" || d.Fixed[0].Class != "other.syntax" {
		t.Errorf("broken %+v, fixed %+v: want their classes", d.Broken[0], d.Fixed[0])
	}
}

func TestDiff_Golden(t *testing.T) {
	d, err := report.Compare(fixture(), headOf(), report.DiffOptions{BaseName: "base.json", HeadName: "head.json"})
	if err != nil {
		t.Fatal(err)
	}
	for _, out := range []struct {
		name  string
		write func(*bytes.Buffer) error
	}{
		{"diff.txt", func(b *bytes.Buffer) error { return d.WriteText(b) }},
		{"diff.md", func(b *bytes.Buffer) error { return d.WriteMarkdown(b) }},
		{"diff.json", func(b *bytes.Buffer) error { return d.WriteJSON(b) }},
	} {
		var buf bytes.Buffer
		if err := out.write(&buf); err != nil {
			t.Fatal(err)
		}
		golden(t, out.name, buf.Bytes())
	}
}
