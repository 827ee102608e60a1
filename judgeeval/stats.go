package judgeeval

import (
	"slices"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/metric"
)

// Result is how a judge's answers agree with the labels.
type Result struct {
	// Judge names the judge measured and what it cost (set by the caller).
	Judge *qeval.JudgeInfo `json:"judge,omitempty"`
	// Labels is the number of labels, Judged those the judge answered, Errors those it
	// failed on (left out of every measure below).
	Labels int `json:"labels"`
	Judged int `json:"judged"`
	Errors int `json:"judge_errors"`
	// Accuracy is the share of judged labels whose verdict is the label, with its 95%
	// Wilson interval.
	Accuracy *qeval.Interval `json:"accuracy"`
	// Kappa is Cohen's κ between labels and verdicts over the three verdicts (nil when
	// undefined: no label judged, or labels and verdicts each all one verdict).
	Kappa *float64 `json:"kappa"`
	// Incorrect is how the judge finds incorrect queries.
	Incorrect Detection `json:"incorrect"`
	// Confusion counts the judged labels by label (rows) and verdict (columns), both in
	// the order of Verdicts.
	Confusion [3][3]int `json:"confusion"`
	// ByClass is, for the incorrect labels with an error class, how many of each class
	// the judge called incorrect: the kinds of mistakes it misses.
	ByClass []ClassRecall `json:"recall_by_class,omitempty"`
	Items   []Item        `json:"items"`
}

// Detection is precision and recall of one verdict, taken as the positive class: TP
// labels with it the judge gave it, FP labels without it the judge gave it, FN labels
// with it the judge did not give it. A ratio is nil when its denominator is 0.
type Detection struct {
	TP        int      `json:"tp"`
	FP        int      `json:"fp"`
	FN        int      `json:"fn"`
	Precision *float64 `json:"precision"`
	Recall    *float64 `json:"recall"`
}

// ClassRecall is the judge's recall on the incorrect labels of one error class.
type ClassRecall struct {
	Class  string          `json:"class"`
	N      int             `json:"n"`
	Caught int             `json:"caught"`
	Recall *qeval.Interval `json:"recall"`
}

// measure computes the result of the judged items.
func measure(items []Item) *Result {
	r := &Result{Labels: len(items), Items: items}
	byClass := map[string]*ClassRecall{}
	right := 0
	for _, it := range items {
		if it.Error != "" {
			r.Errors++
			continue
		}
		li, vi := slices.Index(Verdicts, it.Label), slices.Index(Verdicts, it.Verdict)
		if li < 0 || vi < 0 {
			r.Errors++ // a verdict the task does not have: the judge failed on it
			continue
		}
		r.Judged++
		r.Confusion[li][vi]++
		if li == vi {
			right++
		}
		if it.Label == qeval.JudgeIncorrect && it.Class != "" {
			c := byClass[it.Class]
			if c == nil {
				c = &ClassRecall{Class: it.Class}
				byClass[it.Class] = c
			}
			c.N++
			if it.Verdict == qeval.JudgeIncorrect {
				c.Caught++
			}
		}
	}
	if r.Judged > 0 {
		r.Accuracy = proportion(right, r.Judged)
	}
	r.Kappa = Kappa(r.Confusion)
	r.Incorrect = detection(r.Confusion, 2)
	for _, name := range qeval.ErrorClassNames {
		if c := byClass[name]; c != nil {
			c.Recall = proportion(c.Caught, c.N)
			r.ByClass = append(r.ByClass, *c)
		}
	}
	return r
}

// Kappa is Cohen's κ of a square confusion matrix (rows one rater, columns the
// other): (po − pe) / (1 − pe), po the share on the diagonal, pe the agreement the
// raters' margins give by chance. It is nil when the matrix is empty or pe is 1. A
// rater that gives every case the same answer has κ = 0 whatever the other does.
func Kappa(m [3][3]int) *float64 {
	n, diag := 0, 0
	var rows, cols [3]int
	for i := range m {
		for j := range m[i] {
			n += m[i][j]
			rows[i] += m[i][j]
			cols[j] += m[i][j]
		}
		diag += m[i][i]
	}
	if n == 0 {
		return nil
	}
	nn := float64(n)
	po, pe := float64(diag)/nn, 0.0
	for i := range rows {
		pe += float64(rows[i]) / nn * float64(cols[i]) / nn
	}
	if pe >= 1 {
		return nil
	}
	k := (po - pe) / (1 - pe)
	return &k
}

// detection is precision and recall of verdict k.
func detection(m [3][3]int, k int) Detection {
	var d Detection
	for i := range m {
		for j := range m[i] {
			switch {
			case i == k && j == k:
				d.TP += m[i][j]
			case j == k:
				d.FP += m[i][j]
			case i == k:
				d.FN += m[i][j]
			}
		}
	}
	d.Precision = ratio(d.TP, d.TP+d.FP)
	d.Recall = ratio(d.TP, d.TP+d.FN)
	return d
}

func ratio(a, b int) *float64 {
	if b == 0 {
		return nil
	}
	x := float64(a) / float64(b)
	return &x
}

func proportion(k, n int) *qeval.Interval {
	iv := metric.WilsonInterval(k, n, metric.DefaultLevel)
	return &qeval.Interval{Value: float64(k) / float64(n), Low: iv.Lower, High: iv.Upper, N: n, SmallN: n < metric.SmallN}
}
