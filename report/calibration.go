package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/qeval/qeval/metric"
)

// PrintCalibration writes qeval calibrate's report as text: the score, the accuracy per
// stated level with its interval, ECE, MCE, the Brier decomposition, AUROC, AURC and
// the warnings.
func PrintCalibration(w io.Writer, rep metric.CalibrationReport) {
	if rep.Score != nil {
		fmt.Fprintf(w, "calibration score  %.2f  %s\n", *rep.Score, rep.Interpretation)
	} else {
		fmt.Fprintf(w, "calibration score  -     %s\n", rep.Interpretation)
	}
	fmt.Fprintf(w, "cases %d   accuracy %s%s   mean confidence %s\n\n",
		rep.N, calPct(rep.Accuracy), calCI(rep.AccuracyCI), calPct(rep.MeanConfidence))
	if len(rep.Groups) > 0 {
		fmt.Fprintf(w, "%-8s %6s %8s %9s %8s %8s  %s\n", "LEVEL", "COUNT", "CORRECT", "ACCURACY", "STATED", "GAP", "95% CI")
		for _, g := range rep.Groups {
			fmt.Fprintf(w, "%-8s %6d %8s %9s %8s %8s  %s\n", g.Level, g.Count, calTrim(g.Correct),
				calPct(g.Accuracy), calPct(g.Confidence), fmt.Sprintf("%+.1f%%", 100*g.Gap), strings.TrimSpace(calCI(g.AccuracyCI)))
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

func calPct(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }

func calCI(iv *metric.Interval) string {
	if iv == nil || iv.Resamples == 0 {
		return ""
	}
	return fmt.Sprintf(" [%s–%s]", calPct(iv.Lower), calPct(iv.Upper))
}

func calTrim(x float64) string {
	if x == float64(int64(x)) {
		return fmt.Sprint(int64(x))
	}
	return fmt.Sprintf("%.2f", x)
}
