package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/qeval/qeval/internal/lines"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/metric"
)

// maxCalibrateProblems caps the problems listed for a bad input file.
const maxCalibrateProblems = 20

func cmdCalibrate(_ context.Context, args []string, e *env) int {
	fs := newFlags("calibrate", "[FILE|-] [flags]\n\nFILE holds one JSON object per line: "+
		`{"confidence": "high"|"medium"|"low"|<0..1>, "correct": <bool|0..1>}, or is a run's results.jsonl `+
		`(each case's stated confidence against its execution verdict); - or nothing reads stdin.`, e)
	jsonOut := fs.Bool("json", false, "print the report as JSON")
	bins := fs.Int("bins", metric.DefaultBins, "equal-width bins of ECE, MCE, Brier decomposition and reliability diagram")
	resamples := fs.Int("resamples", metric.DefaultResamples, "bootstrap resamples of the accuracy intervals (0 for none)")
	seed := fs.Uint64("seed", metric.DefaultSeed, "seed of the bootstrap")
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	if fs.NArg() > 1 {
		return fail(e, &qeval.Error{Code: qeval.CodeInvalid, Message: "give one file (or - for stdin)",
			Hint: "qeval calibrate confidences.jsonl"})
	}
	name, r := "stdin", e.stdin
	if fs.NArg() == 1 && fs.Arg(0) != "-" {
		name = fs.Arg(0)
		f, err := os.Open(name)
		if err != nil {
			code := qeval.CodeInvalid
			msg := err.Error()
			if errors.Is(err, os.ErrNotExist) {
				code, msg = qeval.CodeNotFound, "no such file"
			}
			return fail(e, &qeval.Error{Code: code, Op: "open " + name, Message: msg})
		}
		defer f.Close()
		r = f
	}
	in, err := readCalibrationCases(name, r)
	if err != nil {
		return fail(e, err)
	}
	cases := in.cases
	if note := in.leftOut(); note != "" {
		fmt.Fprintf(e.stderr, "note: %s\n", note)
	}
	bo := metric.BootstrapOptions{Resamples: *resamples, Seed: *seed}
	if *resamples <= 0 {
		bo.Resamples = -1
	}
	rep, err := metric.Calibrate(cases, metric.CalibrationOptions{Bins: *bins, Bootstrap: bo})
	if err != nil {
		return fail(e, err)
	}
	if *jsonOut {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return fail(e, err)
		}
		return exitOK
	}
	printCalibration(e.stdout, rep)
	return exitOK
}

// calibrationInput is what readCalibrationCases read: the cases, and for a run's
// results.jsonl the cases it left out, by reason.
type calibrationInput struct {
	cases     []metric.CalibrationCase
	runCases  int // lines that were a run's cases
	noConf    int // … without a stated confidence
	notJudged int // … whose generated query has no execution verdict
}

// readCalibrationCases reads one case per non-blank line, and reports every bad line
// (up to maxCalibrateProblems) at once as name:line: problem. A line is
// {"confidence", "correct"}, or a case of a run's results.jsonl: its stated confidence
// against its execution verdict, as the run's own summary counts it.
func readCalibrationCases(name string, r io.Reader) (*calibrationInput, error) {
	in := &calibrationInput{}
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
	if in.runCases > 0 && len(in.cases) == 0 {
		return nil, &qeval.Error{Code: qeval.CodeInvalid,
			Message: fmt.Sprintf("%s: none of its %d cases has both a stated confidence and an execution verdict (%d without a confidence, %d not executed)", name, in.runCases, in.noConf, in.notJudged),
			Hint:    "give the suite's cases a confidence (high, medium, low or a number in [0,1]) beside their generated query"}
	}
	return in, nil
}

// add reads one line: a run's case (it has an id and a status) or a calibration case.
func (in *calibrationInput) add(b []byte) error {
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
		in.runCases++
		cc, ok := metric.CaseCalibration(&c)
		switch {
		case ok:
			in.cases = append(in.cases, cc)
		case c.Confidence == nil:
			in.noConf++
		default:
			in.notJudged++
		}
		return nil
	}
	var c metric.CalibrationCase
	if err := json.Unmarshal(b, &c); err != nil {
		return err
	}
	in.cases = append(in.cases, c)
	return nil
}

// leftOut says which of a run's cases calibration left out, or "" when none.
func (in *calibrationInput) leftOut() string {
	if in.noConf+in.notJudged == 0 {
		return ""
	}
	var why []string
	if in.noConf > 0 {
		why = append(why, fmt.Sprintf("%d without a stated confidence", in.noConf))
	}
	if in.notJudged > 0 {
		why = append(why, fmt.Sprintf("%d with no execution verdict", in.notJudged))
	}
	return fmt.Sprintf("%d of the run's %d cases left out: %s", in.noConf+in.notJudged, in.runCases, strings.Join(why, ", "))
}

func printCalibration(w io.Writer, rep metric.CalibrationReport) {
	if rep.Score != nil {
		fmt.Fprintf(w, "calibration score  %.2f  %s\n", *rep.Score, rep.Interpretation)
	} else {
		fmt.Fprintf(w, "calibration score  -     %s\n", rep.Interpretation)
	}
	fmt.Fprintf(w, "cases %d   accuracy %s%s   mean confidence %s\n\n",
		rep.N, pct(rep.Accuracy), ci(rep.AccuracyCI), pct(rep.MeanConfidence))
	if len(rep.Groups) > 0 {
		fmt.Fprintf(w, "%-8s %6s %8s %9s %8s %8s  %s\n", "LEVEL", "COUNT", "CORRECT", "ACCURACY", "STATED", "GAP", "95% CI")
		for _, g := range rep.Groups {
			fmt.Fprintf(w, "%-8s %6d %8s %9s %8s %8s  %s\n", g.Level, g.Count, trimFloat(g.Correct),
				pct(g.Accuracy), pct(g.Confidence), fmt.Sprintf("%+.1f%%", 100*g.Gap), strings.TrimSpace(ci(g.AccuracyCI)))
		}
		fmt.Fprintln(w)
	}
	if rep.N > 0 {
		fmt.Fprintf(w, "ECE %.3f   MCE %.3f   Brier %.3f (reliability %.3f, resolution %.3f, uncertainty %.3f)\n",
			rep.ECE, rep.MCE, rep.Brier, rep.Reliability, rep.Resolution, rep.Uncertainty)
		auroc := "-"
		if rep.AUROC != nil {
			auroc = fmt.Sprintf("%.3f", *rep.AUROC)
		}
		fmt.Fprintf(w, "AUROC %s   AURC %.3f\n", auroc, rep.AURC)
	}
	if len(rep.Warnings) > 0 {
		fmt.Fprintln(w, "\nwarnings:")
		for _, m := range rep.Warnings {
			fmt.Fprintf(w, "  - %s\n", m)
		}
	}
}

func pct(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }

func ci(iv *metric.Interval) string {
	if iv == nil || iv.Resamples == 0 {
		return ""
	}
	return fmt.Sprintf(" [%s–%s]", pct(iv.Lower), pct(iv.Upper))
}

func trimFloat(x float64) string {
	if x == float64(int64(x)) {
		return fmt.Sprint(int64(x))
	}
	return fmt.Sprintf("%.2f", x)
}
