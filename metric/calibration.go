package metric

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/qeval/qeval"
)

// Confidence levels and the probabilities they stand for. A level is read as the
// model claiming that share of its answers at that level are right; the values are the
// middles of the thirds-like bands used to group numeric confidences (see LevelOf).
const (
	LevelHigh   = "high"
	LevelMedium = "medium"
	LevelLow    = "low"

	ConfidenceHigh   = 0.9
	ConfidenceMedium = 0.6
	ConfidenceLow    = 0.3
)

// MinCalibrationCases is the smallest suite that gets a calibration score.
const MinCalibrationCases = 20

// Calibration messages, as the issue words them.
const (
	WarnInsufficientData = "There are too few cases for a calibration: it needs at least 20."
	WarnOverconfident    = "The model is overconfident: its high-confidence answers are not reliable."
)

// levels lists the groups in report order, with their stated confidence.
var levels = []struct {
	name string
	conf float64
}{{LevelHigh, ConfidenceHigh}, {LevelMedium, ConfidenceMedium}, {LevelLow, ConfidenceLow}}

// LevelValue returns the probability a level stands for (high 0.9, medium 0.6,
// low 0.3; case-insensitive) and whether the level is known.
func LevelValue(level string) (float64, bool) {
	switch level { // the common spellings without case folding
	case LevelHigh:
		return ConfidenceHigh, true
	case LevelMedium:
		return ConfidenceMedium, true
	case LevelLow:
		return ConfidenceLow, true
	}
	for _, l := range levels {
		if strings.EqualFold(level, l.name) {
			return l.conf, true
		}
	}
	return 0, false
}

// LevelOf returns the group of a numeric confidence: high from 0.75, medium from 0.45,
// else low (the boundaries are midway between the levels' values).
func LevelOf(confidence float64) string {
	switch {
	case confidence >= (ConfidenceHigh+ConfidenceMedium)/2:
		return LevelHigh
	case confidence >= (ConfidenceMedium+ConfidenceLow)/2:
		return LevelMedium
	}
	return LevelLow
}

// CalibrationCase is one answer: the confidence the model stated and whether the
// answer was right.
type CalibrationCase struct {
	// Level is the stated level ("high", "medium", "low"), "" when a number was given.
	Level string `json:"level,omitempty"`
	// Confidence is the stated probability in [0,1] (the level's value for a level).
	Confidence float64 `json:"confidence"`
	// Correct is 1 for right and 0 for wrong, or a graded score in [0,1].
	Correct float64 `json:"correct"`
}

// UnmarshalJSON reads {"confidence": "high"|"medium"|"low"|<0..1>, "correct": <bool|0..1>}.
func (c *CalibrationCase) UnmarshalJSON(b []byte) error {
	var raw struct {
		Confidence json.RawMessage `json:"confidence"`
		Correct    json.RawMessage `json:"correct"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	if len(raw.Confidence) == 0 || bytes.Equal(raw.Confidence, []byte("null")) {
		return fmt.Errorf(`missing field "confidence"`)
	}
	if len(raw.Correct) == 0 || bytes.Equal(raw.Correct, []byte("null")) {
		return fmt.Errorf(`missing field "correct"`)
	}
	var x CalibrationCase
	var s string
	if err := json.Unmarshal(raw.Confidence, &s); err == nil {
		v, ok := LevelValue(strings.TrimSpace(s))
		if !ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil {
				return fmt.Errorf(`field "confidence": %q is not high, medium, low or a number in [0,1]`, s)
			}
			v = f
		} else {
			x.Level = strings.ToLower(strings.TrimSpace(s))
		}
		x.Confidence = v
	} else if err := json.Unmarshal(raw.Confidence, &x.Confidence); err != nil {
		return fmt.Errorf(`field "confidence": %s is not high, medium, low or a number in [0,1]`, raw.Confidence)
	}
	if math.IsNaN(x.Confidence) || x.Confidence < 0 || x.Confidence > 1 {
		return fmt.Errorf(`field "confidence": %v is outside [0,1]`, x.Confidence)
	}
	var bl bool
	if err := json.Unmarshal(raw.Correct, &bl); err == nil {
		if bl {
			x.Correct = 1
		}
	} else if err := json.Unmarshal(raw.Correct, &x.Correct); err != nil {
		return fmt.Errorf(`field "correct": %s is not a boolean or a number in [0,1]`, raw.Correct)
	}
	if math.IsNaN(x.Correct) || x.Correct < 0 || x.Correct > 1 {
		return fmt.Errorf(`field "correct": %v is outside [0,1]`, x.Correct)
	}
	*c = x
	return nil
}

// CalibrationGroup is one confidence level of a suite.
type CalibrationGroup struct {
	Level string `json:"level"`
	Count int    `json:"count"`
	// Correct is the sum of correctness (the number right for 0/1 correctness).
	Correct  float64 `json:"correct"`
	Accuracy float64 `json:"accuracy"`
	// Confidence is the mean stated confidence of the group (the level's value for levels).
	Confidence float64 `json:"confidence"`
	// Gap is Confidence - Accuracy: positive is overconfident.
	Gap        float64   `json:"gap"`
	AccuracyCI *Interval `json:"accuracy_ci"`
}

// CalibrationOptions configures Calibrate. Zero fields take the defaults.
type CalibrationOptions struct {
	// Bins is the number of equal-width bins of ECE, MCE, the Brier decomposition and the
	// reliability diagram (DefaultBins).
	Bins int
	// CurvePoints caps the points of the risk-coverage curve (DefaultCurvePoints).
	CurvePoints int
	// Bootstrap configures the intervals of the accuracies (Resamples < 0 turns them off).
	Bootstrap BootstrapOptions
}

// Defaults of CalibrationOptions.
const (
	DefaultBins        = 15
	DefaultCurvePoints = 101
)

// CaseCalibration is the calibration case of one case of a run: its stated confidence
// against its execution verdict, as the run's summary counts it. ok is false when the
// case stated no confidence or has no verdict on its generated query (no execution, a
// gold query that failed, an unsupported or canceled case), which the summary leaves out.
func CaseCalibration(c *qeval.CaseResult) (cc CalibrationCase, ok bool) {
	if c.Confidence == nil || c.Verdict == nil || !c.Verdict.Outcome.Judged() {
		return CalibrationCase{}, false
	}
	cc.Level = c.Confidence.Level
	if c.Confidence.Value != nil {
		cc.Confidence = *c.Confidence.Value
	} else if v, ok := LevelValue(c.Confidence.Level); ok {
		cc.Confidence = v
	}
	if c.Verdict.Match {
		cc.Correct = 1
	}
	return cc, true
}
