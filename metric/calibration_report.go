package metric

import (
	"fmt"
	"math"
	"strings"

	"github.com/qeval/qeval"
)

// CalibrationReport says how well a model's stated confidence predicts whether its
// answers are right, over a whole suite.
type CalibrationReport struct {
	N int `json:"n"`
	// Score is the calibration score in [0,1] (see Calibrate), nil below
	// MinCalibrationCases cases.
	Score          *float64 `json:"score"`
	Interpretation string   `json:"interpretation"`
	Warnings       []string `json:"warnings"`
	// Agreement and Ordering are the two parts of Score.
	Agreement *float64 `json:"agreement"`
	Ordering  *float64 `json:"ordering"`
	// Groups are the levels high, medium and low that have cases.
	Groups     []CalibrationGroup `json:"groups"`
	Accuracy   float64            `json:"accuracy"`
	AccuracyCI *Interval          `json:"accuracy_ci"`
	// MeanConfidence is the mean stated confidence; above Accuracy means overconfident.
	MeanConfidence float64 `json:"mean_confidence"`
	// ECE is the expected calibration error over equal-width bins, MCE the largest bin gap.
	ECE float64 `json:"ece"`
	MCE float64 `json:"mce"`
	// Brier is the mean squared difference between confidence and correctness, with
	// Murphy's decomposition over the bins: Brier ≈ Reliability - Resolution + Uncertainty
	// (exact for 0/1 correctness when each bin holds a single confidence value).
	Brier       float64 `json:"brier"`
	Reliability float64 `json:"reliability"`
	Resolution  float64 `json:"resolution"`
	Uncertainty float64 `json:"uncertainty"`
	// AUROC is the probability that a random right answer had higher confidence than a
	// random wrong one (ties count half; correctness ≥ 0.5 is right). Nil when every
	// answer is right or every answer is wrong.
	AUROC *float64 `json:"auroc"`
	// AURC is the area under the risk-coverage curve (lower is better); RiskCoverage is
	// that curve, answers taken in falling confidence.
	AURC         float64            `json:"aurc"`
	RiskCoverage []RiskPoint        `json:"risk_coverage"`
	Bins         []ReliabilityBin   `json:"reliability_diagram"`
	Levels       map[string]float64 `json:"level_values"`
}

// Calibrate computes the calibration report of a suite.
//
// The calibration score rewards two things, agreement and ordering, over the groups
// high, medium and low (numeric confidences are grouped by LevelOf; a group's stated
// confidence is its mean confidence, so 0.9, 0.6, 0.3 for levels):
//
//	agreement = 1 - max over groups |stated confidence - accuracy|
//	ordering  = max(0, r), r the count-weighted Pearson correlation between the groups'
//	            stated confidence and their accuracy (0 with fewer than two groups or
//	            when all groups have the same accuracy)
//	score     = 0.25·agreement + 0.75·ordering
//
// Ordering weighs most because confidence is useful only when higher confidence means
// more right answers; agreement uses the worst group so every level must mean what it
// says. Worked seed cases: 20 high/19 right, 15 medium/12, 10 low/4 give agreement 0.80
// (medium: 0.6 vs 0.8), r = 0.962, score 0.92; 20/10, 15/8, 10/5 give agreement 0.60
// (high: 0.9 vs 0.5), r = -0.20, score 0.15.
//
// Interpretation: score ≥ 0.8 "Confidence levels accurately predict correctness",
// ≥ 0.5 "Confidence partially predicts correctness", else "Confidence does not predict
// correctness". Fewer than MinCalibrationCases cases give a nil score and
// WarnInsufficientData; every other measure is still reported. A high group whose
// accuracy is more than 0.15 below its stated confidence adds WarnOverconfident.
//
// A confidence or correctness outside [0,1] (or NaN) is an error naming the case.
func Calibrate(cases []CalibrationCase, opt CalibrationOptions) (CalibrationReport, error) {
	if opt.Bins <= 0 {
		opt.Bins = DefaultBins
	}
	if opt.CurvePoints <= 1 {
		opt.CurvePoints = DefaultCurvePoints
	}
	rep := CalibrationReport{N: len(cases), Warnings: []string{}, Groups: []CalibrationGroup{},
		RiskCoverage: []RiskPoint{}, Bins: []ReliabilityBin{},
		Levels: map[string]float64{LevelHigh: ConfidenceHigh, LevelMedium: ConfidenceMedium, LevelLow: ConfidenceLow}}
	// One pass checks every case and sums what the groups and the bins need.
	t := newTally(opt.Bins)
	for i, c := range cases {
		if err := checkCase(i, c); err != nil {
			return CalibrationReport{}, err
		}
		t.add(c)
	}
	if len(cases) == 0 {
		rep.Interpretation = "No cases"
		rep.Warnings = append(rep.Warnings, WarnInsufficientData)
		return rep, nil
	}
	rep.Groups = t.groups(cases, opt.Bootstrap)
	n := float64(len(cases))
	rep.Accuracy, rep.MeanConfidence = t.sumY/n, t.sumC/n
	if opt.Bootstrap.Resamples >= 0 {
		rep.AccuracyCI = accuracyInterval(cases, t, opt.Bootstrap)
	}
	t.binStats(len(cases), &rep)
	rankStats(cases, opt.CurvePoints, &rep)

	agreement, ordering := groupScore(rep.Groups)
	rep.Agreement, rep.Ordering = &agreement, &ordering
	if len(cases) < MinCalibrationCases {
		rep.Interpretation = "Insufficient data for calibration"
		rep.Warnings = append(rep.Warnings, WarnInsufficientData)
	} else {
		score := 0.25*agreement + 0.75*ordering
		rep.Score = &score
		rep.Interpretation = interpretation(score, rep.Groups, rep.ECE)
	}
	rep.Warnings = append(rep.Warnings, groupWarnings(rep.Groups)...)
	return rep, nil
}

// accuracyInterval is the bootstrap interval of the accuracy: of a proportion when
// every correctness is 0 or 1, else of the mean.
func accuracyInterval(cases []CalibrationCase, t *tally, opt BootstrapOptions) *Interval {
	var iv Interval
	if t.allBinary {
		iv = WilsonInterval(int(math.Round(t.sumY)), len(cases), opt.withDefaults().Level)
	} else {
		ys := make([]float64, len(cases))
		for i, c := range cases {
			ys[i] = c.Correct
		}
		iv = BootstrapMean(ys, opt)
	}
	return &iv
}

// interpretation puts a calibration score in words (see Calibrate); a score of 0.8 or
// more whose levels do not state what they deliver, or whose ECE is past
// MaxCalibratedECE, says how it is off.
func interpretation(score float64, groups []CalibrationGroup, ece float64) string {
	var text string
	mis := miscalibration(groups)
	switch {
	case score >= 0.8 && mis == "" && ece <= MaxCalibratedECE:
		text = "Confidence levels accurately predict correctness"
	case score >= 0.8:
		// the levels rank answers well, but what they state is off: say how
		text = "Confidence ranks correctness well but is miscalibrated: " + mis
	case score >= 0.5:
		text = "Confidence partially predicts correctness"
	default:
		text = "Confidence does not predict correctness"
	}
	if mis == "" && ece > MaxCalibratedECE && score >= 0.8 {
		text = fmt.Sprintf("Confidence ranks correctness well but is miscalibrated: ECE %.2f", ece)
	}
	return text
}

// groupWarnings warns of an over-confident high level, of any under-confident level,
// and of a level right more often than the one above it.
func groupWarnings(groups []CalibrationGroup) []string {
	var warns []string
	for i, g := range groups {
		if g.Level == LevelHigh && g.Gap > 0.15 {
			warns = append(warns, WarnOverconfident)
		}
		if g.Count > 0 && g.Gap < -underconfidentGap {
			warns = append(warns, fmt.Sprintf(
				"The model is underconfident: its %s-confidence answers were right %.0f%% of the time, not the %.0f%% it states.",
				g.Level, 100*g.Accuracy, 100*g.Confidence))
		}
		if i > 0 && g.Accuracy > groups[i-1].Accuracy {
			warns = append(warns, fmt.Sprintf(
				"The confidence levels are out of order: %s-confidence answers were right more often (%.1f%%) than %s-confidence ones (%.1f%%).",
				g.Level, 100*g.Accuracy, groups[i-1].Level, 100*groups[i-1].Accuracy))
		}
	}
	return warns
}

// MaxCalibratedECE is the largest expected calibration error that still reads as
// "accurately predict": the interpretation never contradicts ECE (ECE 0.39 once read
// as accurate for a badly under-confident model).
const MaxCalibratedECE = 0.15

// underconfidentGap is how far a level's accuracy may exceed what it states before it
// is named under-confident (over-confidence of the high level is named past 0.15).
const underconfidentGap = 0.25

// miscalibration names the levels whose stated confidence is off by more than the
// gaps above, over and under alike; "" when none is.
func miscalibration(groups []CalibrationGroup) string {
	var over, under []string
	for _, g := range groups {
		if g.Count == 0 {
			continue
		}
		d := fmt.Sprintf("%s states %.0f%%, right %.0f%%", g.Level, 100*g.Confidence, 100*g.Accuracy)
		switch {
		case g.Gap > 0.15:
			over = append(over, d)
		case g.Gap < -underconfidentGap:
			under = append(under, d)
		}
	}
	var parts []string
	if len(over) > 0 {
		parts = append(parts, "over-confident ("+strings.Join(over, "; ")+")")
	}
	if len(under) > 0 {
		parts = append(parts, "under-confident ("+strings.Join(under, "; ")+")")
	}
	return strings.Join(parts, " and ")
}

// checkCase reports a case whose confidence, correctness or level is out of range.
func checkCase(i int, c CalibrationCase) error {
	msg := ""
	switch {
	case !(c.Confidence >= 0 && c.Confidence <= 1):
		msg = fmt.Sprintf("case %d: confidence %v is outside [0,1]", i+1, c.Confidence)
	case !(c.Correct >= 0 && c.Correct <= 1):
		msg = fmt.Sprintf("case %d: correctness %v is outside [0,1]", i+1, c.Correct)
	case c.Level != "":
		if _, ok := LevelValue(c.Level); !ok {
			msg = fmt.Sprintf("case %d: unknown confidence level %q (known: high, medium, low)", i+1, c.Level)
		}
	}
	if msg == "" {
		return nil
	}
	return &qeval.Error{Code: qeval.CodeInvalid, Op: "calibrate", Message: msg}
}

// tally holds the sums of one pass over the cases, per group and per bin.
type tally struct {
	count          [3]int
	correct, conf  [3]float64
	binary, stated [3]bool // every case of the group has 0/1 correctness; gave a level
	allBinary      bool
	sumC, sumY     float64
	brier          float64
	binCount       []int
	binC, binY     []float64
}

func newTally(bins int) *tally {
	return &tally{binary: [3]bool{true, true, true}, stated: [3]bool{true, true, true}, allBinary: true,
		binCount: make([]int, bins), binC: make([]float64, bins), binY: make([]float64, bins)}
}

func (t *tally) add(c CalibrationCase) {
	i := levelIndex(c)
	t.count[i]++
	t.correct[i] += c.Correct
	t.conf[i] += c.Confidence
	if c.Correct != 0 && c.Correct != 1 {
		t.binary[i], t.allBinary = false, false
	}
	if c.Level == "" {
		t.stated[i] = false
	}
	t.sumC += c.Confidence
	t.sumY += c.Correct
	d := c.Confidence - c.Correct
	t.brier += d * d
	bins := len(t.binCount)
	b := min(int(c.Confidence*float64(bins)), bins-1)
	t.binCount[b]++
	t.binC[b] += c.Confidence
	t.binY[b] += c.Correct
}

// groups returns the non-empty groups in the order high, medium, low.
func (t *tally) groups(cases []CalibrationCase, bo BootstrapOptions) []CalibrationGroup {
	groups := []CalibrationGroup{}
	for i, l := range levels {
		if t.count[i] == 0 {
			continue
		}
		n := float64(t.count[i])
		g := CalibrationGroup{Level: l.name, Count: t.count[i], Correct: t.correct[i],
			Accuracy: t.correct[i] / n, Confidence: t.conf[i] / n}
		if t.stated[i] {
			g.Confidence = l.conf // exactly, not a sum's rounding
		}
		g.Gap = g.Confidence - g.Accuracy
		if bo.Resamples >= 0 {
			var iv Interval
			if t.binary[i] {
				iv = WilsonInterval(int(math.Round(t.correct[i])), t.count[i], bo.withDefaults().Level)
			} else {
				iv = BootstrapMean(groupValues(cases, i), bo)
			}
			g.AccuracyCI = &iv
		}
		groups = append(groups, g)
	}
	return groups
}

func groupValues(cases []CalibrationCase, group int) []float64 {
	var ys []float64
	for _, c := range cases {
		if levelIndex(c) == group {
			ys = append(ys, c.Correct)
		}
	}
	return ys
}

// levelIndex returns the index in levels of the group of c.
func levelIndex(c CalibrationCase) int {
	l := c.Level
	if l == "" {
		l = LevelOf(c.Confidence)
	}
	switch l {
	case LevelHigh:
		return 0
	case LevelMedium:
		return 1
	case LevelLow:
		return 2
	}
	for i, x := range levels {
		if strings.EqualFold(l, x.name) {
			return i
		}
	}
	return len(levels) - 1
}

// groupScore returns the agreement and ordering parts of the calibration score.
func groupScore(groups []CalibrationGroup) (agreement, ordering float64) {
	worst := 0.0
	total, mc, ma := 0.0, 0.0, 0.0
	for _, g := range groups {
		worst = math.Max(worst, math.Abs(g.Gap))
		w := float64(g.Count)
		total += w
		mc += w * g.Confidence
		ma += w * g.Accuracy
	}
	agreement = 1 - worst
	if len(groups) < 2 || total == 0 {
		return agreement, 0
	}
	mc, ma = mc/total, ma/total
	var sxy, sxx, syy float64
	for _, g := range groups {
		w := float64(g.Count)
		dx, dy := g.Confidence-mc, g.Accuracy-ma
		sxy += w * dx * dy
		sxx += w * dx * dx
		syy += w * dy * dy
	}
	if sxx <= 1e-15 || syy <= 1e-15 {
		return agreement, 0
	}
	r := sxy / math.Sqrt(sxx*syy)
	return agreement, math.Max(0, math.Min(1, r))
}
