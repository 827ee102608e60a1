package metric

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/internal/lines"
)

// maxCalibrateProblems caps the problems listed for a bad input file.
const maxCalibrateProblems = 20

// CalibrationInput is what ReadCalibrationCases read: the cases, and for a run's
// results.jsonl the cases it left out, by reason.
type CalibrationInput struct {
	Cases        []CalibrationCase
	RunCases     int // lines that were a run's cases
	NoConfidence int // … without a stated confidence
	NotJudged    int // … whose generated query has no execution verdict
}

// ReadCalibrationCases reads one case per non-blank line, and reports every bad line
// (up to maxCalibrateProblems) at once as name:line: problem. A line is
// {"confidence", "correct"}, or a case of a run's results.jsonl: its stated confidence
// against its execution verdict, as the run's own summary counts it.
func ReadCalibrationCases(name string, r io.Reader) (*CalibrationInput, error) {
	in := &CalibrationInput{}
	var problems []string
	sc := lines.New(r)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		if err := in.add(b); err != nil {
			msg := err.Error()
			var se *json.SyntaxError
			var te *json.UnmarshalTypeError
			if errors.As(err, &se) || errors.As(err, &te) {
				msg = "not a JSON object: " + msg
			}
			problems = append(problems, fmt.Sprintf("%s:%d: %s", name, line, msg))
			if len(problems) == maxCalibrateProblems {
				problems = append(problems, "(more problems not shown)")
				break
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "read " + name, Message: err.Error(), Err: err}
	}
	if len(problems) > 0 {
		n := len(problems)
		if n > maxCalibrateProblems {
			n = maxCalibrateProblems
		}
		return nil, &qeval.Error{Code: qeval.CodeInvalid,
			Message: fmt.Sprintf("%s: %d bad lines\n  - %s", name, n, strings.Join(problems, "\n  - ")),
			Hint:    `each line must be {"confidence": "high"|"medium"|"low"|<0..1>, "correct": <bool|0..1>}, or a case of a run's results.jsonl`}
	}
	if in.RunCases > 0 && len(in.Cases) == 0 {
		return nil, &qeval.Error{Code: qeval.CodeInvalid,
			Message: fmt.Sprintf("%s: none of its %d cases has both a stated confidence and an execution verdict (%d without a confidence, %d not executed)", name, in.RunCases, in.NoConfidence, in.NotJudged),
			Hint:    "give the suite's cases a confidence (high, medium, low or a number in [0,1]) beside their generated query"}
	}
	return in, nil
}

// add reads one line: a run's case (it has an id and a status) or a calibration case.
func (in *CalibrationInput) add(b []byte) error {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(b, &keys); err != nil {
		return err
	}
	_, hasID := keys["id"]
	_, hasStatus := keys["status"]
	_, hasCorrect := keys["correct"]
	if hasID && hasStatus && !hasCorrect {
		var c qeval.CaseResult
		if err := json.Unmarshal(b, &c); err != nil {
			return fmt.Errorf("a run's case that cannot be read: %w", err)
		}
		in.RunCases++
		cc, ok := CaseCalibration(&c)
		switch {
		case ok:
			in.Cases = append(in.Cases, cc)
		case c.Confidence == nil:
			in.NoConfidence++
		default:
			in.NotJudged++
		}
		return nil
	}
	var c CalibrationCase
	if err := json.Unmarshal(b, &c); err != nil {
		return err
	}
	in.Cases = append(in.Cases, c)
	return nil
}

// LeftOut says which of a run's cases calibration left out, or "" when none.
func (in *CalibrationInput) LeftOut() string {
	if in.NoConfidence+in.NotJudged == 0 {
		return ""
	}
	var why []string
	if in.NoConfidence > 0 {
		why = append(why, fmt.Sprintf("%d without a stated confidence", in.NoConfidence))
	}
	if in.NotJudged > 0 {
		why = append(why, fmt.Sprintf("%d with no execution verdict", in.NotJudged))
	}
	return fmt.Sprintf("%d of the run's %d cases left out: %s", in.NoConfidence+in.NotJudged, in.RunCases, strings.Join(why, ", "))
}
