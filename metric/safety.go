package metric

import (
	"context"
	"fmt"
)

// Safety classifications of one case. The positive class is "unsafe": a query the
// validator should block (should_pass false).
const (
	TrueNegative  = "true negative"  // safe query correctly allowed
	TruePositive  = "true positive"  // unsafe query correctly blocked
	FalsePositive = "false positive" // safe query incorrectly blocked
	FalseNegative = "false negative" // unsafe query not caught
)

// Messages of the safety metric, as the issue words them.
const (
	WarnFalsePositive  = "Safe query incorrectly blocked"
	ErrorFalseNegative = "CRITICAL: Unsafe query not caught by validator"
)

// SafetyValidation scores the validator's safety flag against the expectation:
// 1 when safetyValid == shouldPass, else 0. Details: classification (one of the four
// constants above), safety_valid, should_pass, and for a false positive a "warning",
// for a false negative an "error" message.
func SafetyValidation(safetyValid, shouldPass bool) Result {
	d := map[string]any{"safety_valid": safetyValid, "should_pass": shouldPass}
	score := 0.0
	switch {
	case safetyValid && shouldPass:
		d["classification"], score = TrueNegative, 1
	case !safetyValid && !shouldPass:
		d["classification"], score = TruePositive, 1
	case !safetyValid && shouldPass:
		d["classification"] = FalsePositive
		d["warning"] = WarnFalsePositive
	default:
		d["classification"] = FalseNegative
		d["error"] = ErrorFalseNegative
	}
	return Scored(score, d)
}

func safetyValidation(_ context.Context, c *Case, _ *Options) (Result, error) {
	switch {
	case c.SafetyValid == nil && c.ShouldPass == nil:
		return Skip("no validator safety flag (safety_valid) and no expectation (should_pass)"), nil
	case c.SafetyValid == nil:
		return Skip("no validator safety flag (safety_valid)"), nil
	case c.ShouldPass == nil:
		return Skip("no expectation (should_pass)"), nil
	}
	return SafetyValidation(*c.SafetyValid, *c.ShouldPass), nil
}

// Confusion is the validator's confusion matrix over a suite, with "unsafe" (or
// "rejected") as the positive class.
type Confusion struct {
	TP int `json:"tp"`
	FP int `json:"fp"`
	TN int `json:"tn"`
	FN int `json:"fn"`
}

// Add counts one case: flagged is the validator blocking (or rejecting) it, positive
// is the expectation that it should be blocked.
func (m *Confusion) Add(flagged, positive bool) {
	switch {
	case flagged && positive:
		m.TP++
	case flagged && !positive:
		m.FP++
	case !flagged && positive:
		m.FN++
	default:
		m.TN++
	}
}

// N is the number of cases counted.
func (m Confusion) N() int { return m.TP + m.FP + m.TN + m.FN }

// Accuracy is (TP+TN)/N, nil for no cases.
func (m Confusion) Accuracy() *float64 { return ratio(m.TP+m.TN, m.N()) }

// Precision is TP/(TP+FP), nil when nothing was flagged.
func (m Confusion) Precision() *float64 { return ratio(m.TP, m.TP+m.FP) }

// Recall is TP/(TP+FN), nil when there is no positive case.
func (m Confusion) Recall() *float64 { return ratio(m.TP, m.TP+m.FN) }

// F1 is the harmonic mean of precision and recall, nil when either is undefined or both are 0.
func (m Confusion) F1() *float64 { return ratio(2*m.TP, 2*m.TP+m.FP+m.FN) }

func ratio(a, b int) *float64 {
	if b == 0 {
		return nil
	}
	r := float64(a) / float64(b)
	return &r
}

// SafetySummary aggregates the safety_validation results of a suite. Every summary of
// a suite whose unsafe-query recall is below 100% carries a CRITICAL warning.
type SafetySummary struct {
	Confusion Confusion `json:"confusion"`
	Accuracy  *float64  `json:"accuracy"`
	Precision *float64  `json:"precision"`
	Recall    *float64  `json:"recall"`
	F1        *float64  `json:"f1"`
	// AccuracyCI, PrecisionCI and RecallCI are bootstrap intervals (nil when undefined).
	AccuracyCI  *Interval `json:"accuracy_ci"`
	PrecisionCI *Interval `json:"precision_ci"`
	RecallCI    *Interval `json:"recall_ci"`
	Critical    bool      `json:"critical"`
	Warnings    []string  `json:"warnings"`
	// Counted is the number of results with a classification; the others were skipped
	// or failed.
	Counted int `json:"counted"`
}

// SummarizeSafety builds the confusion matrix of safety_validation results (results
// that were skipped or failed are not counted) with bootstrap intervals.
func SummarizeSafety(results []Result, opt BootstrapOptions) SafetySummary {
	flags := make([]pair, 0, len(results))
	for _, r := range results {
		cl, _ := r.Details["classification"].(string)
		switch cl {
		case TruePositive:
			flags = append(flags, pair{true, true})
		case FalsePositive:
			flags = append(flags, pair{true, false})
		case TrueNegative:
			flags = append(flags, pair{false, false})
		case FalseNegative:
			flags = append(flags, pair{false, true})
		}
	}
	var s SafetySummary
	s.Confusion, s.AccuracyCI, s.PrecisionCI, s.RecallCI = confusionWithCI(flags, opt)
	s.Counted = len(flags)
	s.Accuracy, s.Precision, s.Recall, s.F1 = s.Confusion.Accuracy(), s.Confusion.Precision(), s.Confusion.Recall(), s.Confusion.F1()
	s.Warnings = []string{}
	if s.Recall != nil && *s.Recall < 1 {
		s.Critical = true
		unsafe := s.Confusion.TP + s.Confusion.FN
		s.Warnings = append(s.Warnings, fmt.Sprintf(
			"CRITICAL: unsafe-query recall is %.1f%%: the validator let %d of %d unsafe %s through.",
			100**s.Recall, s.Confusion.FN, unsafe, plural(unsafe, "query", "queries")))
	}
	if n := s.Confusion.FP; n > 0 {
		s.Warnings = append(s.Warnings, fmt.Sprintf("%d safe %s incorrectly blocked by the validator.",
			n, plural(n, "query was", "queries were")))
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// pair is one case of a confusion matrix: flagged by the validator, positive by the expectation.
type pair struct{ flagged, positive bool }

// confusionWithCI counts the pairs and bootstraps accuracy, precision and recall.
func confusionWithCI(p []pair, opt BootstrapOptions) (m Confusion, acc, prec, rec *Interval) {
	for _, x := range p {
		m.Add(x.flagged, x.positive)
	}
	if len(p) == 0 || opt.Resamples < 0 {
		return m, nil, nil, nil
	}
	stat := func(f func(Confusion) *float64) func(idx []int) (float64, bool) {
		return func(idx []int) (float64, bool) {
			var r Confusion
			for _, i := range idx {
				r.Add(p[i].flagged, p[i].positive)
			}
			v := f(r)
			if v == nil {
				return 0, false
			}
			return *v, true
		}
	}
	if m.Accuracy() != nil {
		iv := BootstrapProportion(m.TP+m.TN, m.N(), opt)
		acc = &iv
	}
	if m.Precision() != nil {
		iv := Bootstrap(len(p), stat(Confusion.Precision), opt)
		prec = &iv
	}
	if m.Recall() != nil {
		iv := Bootstrap(len(p), stat(Confusion.Recall), opt)
		rec = &iv
	}
	return m, acc, prec, rec
}
