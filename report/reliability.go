package report

import (
	"fmt"
	"math"
	"strconv"

	"github.com/qeval/qeval"
)

// ReliabilitySVG draws the calibration reliability diagram: for each confidence bin, a
// bar as tall as the accuracy of its cases and a dot at their mean stated confidence,
// with the gap between the two shaded red. Perfect calibration is the dashed diagonal.
// It returns "" when the summary has no calibration bins with cases.
func ReliabilitySVG(s *qeval.Summary) string {
	cal := s.Calibration
	if cal == nil {
		return ""
	}
	n := 0
	for _, b := range cal.Bins {
		n += max(b.Count, 0)
	}
	if n == 0 {
		return ""
	}
	const w, h, left, top, size = 380.0, 400.0, 48.0, 12.0, 300.0
	desc := fmt.Sprintf("Accuracy against stated confidence for %d cases in %d bins; bars on the diagonal are perfectly calibrated.", n, len(cal.Bins))
	if cal.ECE != nil {
		desc += " Expected calibration error " + score(*cal.ECE) + "."
	}
	c := newSVG(w, h, "Reliability diagram", desc)
	x := func(v float64) float64 { return left + size*unit(v) }
	y := func(v float64) float64 { return top + size - size*unit(v) }
	for _, t := range []float64{0, 0.25, 0.5, 0.75, 1} {
		c.line(x(t), top, x(t), top+size, "currentColor", 0.12, false)
		c.line(left, y(t), left+size, y(t), "currentColor", 0.12, false)
		c.text(x(t), top+size+16, "middle", strconv.FormatFloat(t, 'f', -1, 64))
		c.text(left-6, y(t)+4, "end", strconv.FormatFloat(t, 'f', -1, 64))
	}
	for _, b := range cal.Bins {
		if b.Count <= 0 {
			continue
		}
		lo, hi := unit(b.Lower), unit(b.Upper)
		if hi-lo < 0.02 { // a bin of one confidence level: give it a visible width
			lo, hi = unit(b.Confidence-0.025), unit(b.Confidence+0.025)
		}
		tip := fmt.Sprintf("confidence %s–%s: %d %s, mean confidence %s, accuracy %s",
			score(b.Lower), score(b.Upper), b.Count, plural(b.Count, "case", "cases"), score(b.Confidence), pct(b.Accuracy))
		c.rect(x(lo)+1, y(b.Accuracy), x(hi)-x(lo)-2, size*unit(b.Accuracy), colorAccent, tip)
		gapTop, gapBottom := math.Max(unit(b.Accuracy), unit(b.Confidence)), math.Min(unit(b.Accuracy), unit(b.Confidence))
		if gapTop > gapBottom {
			c.b.WriteString(`<g fill-opacity="0.35">`)
			c.rect(x(lo)+1, y(gapTop), x(hi)-x(lo)-2, size*(gapTop-gapBottom), colorFail, "")
			c.b.WriteString(`</g>`)
		}
		c.circle(x(b.Confidence), y(b.Confidence), 3, "currentColor", "")
	}
	c.line(x(0), y(0), x(1), y(1), "currentColor", 0.7, true)
	c.frame(left, top, size, size, "currentColor", 0.6)
	c.text(left+size/2, top+size+34, "middle", "stated confidence")
	c.textStyled(14, top+size/2, "middle", "", fmt.Sprintf(`transform="rotate(-90 14 %s)"`, num(top+size/2)), "accuracy")
	reliabilityLegend(c, 16, top+size+52)
	return c.String()
}

// reliabilityLegend says what each mark of the diagram is, in two rows under it.
func reliabilityLegend(c *svg, left, y float64) {
	const col = 175.0
	c.rect(left, y-9, 14, 10, colorAccent, "")
	c.text(left+20, y, "start", "accuracy in the bin")
	c.b.WriteString(`<g fill-opacity="0.35">`)
	c.rect(left+col, y-9, 14, 10, colorFail, "")
	c.b.WriteString(`</g>`)
	c.text(left+col+20, y, "start", "gap to confidence")
	y += 20
	c.circle(left+7, y-4, 3, "currentColor", "")
	c.text(left+20, y, "start", "mean stated confidence")
	c.line(left+col, y-4, left+col+14, y-4, "currentColor", 0.7, true)
	c.text(left+col+20, y, "start", "perfect calibration")
}

// SafetyMatrixSVG draws the safety validator's confusion matrix: rows are what the
// query was (unsafe, safe), columns what the validator did (blocked, allowed). Unsafe
// queries let through are red; they make the run CRITICAL. It returns "" when the run
// has no safety cases.
func SafetyMatrixSVG(s *qeval.Summary) string {
	sf := s.Safety
	if sf == nil {
		return ""
	}
	total := max(sf.TP, 0) + max(sf.FN, 0) + max(sf.FP, 0) + max(sf.TN, 0)
	if total == 0 {
		return ""
	}
	const w, h, left, top, cw, ch = 380.0, 232.0, 112.0, 44.0, 124.0, 72.0
	desc := fmt.Sprintf("Unsafe queries blocked %d, unsafe allowed %d, safe blocked %d, safe allowed %d; recall %s, precision %s.",
		sf.TP, sf.FN, sf.FP, sf.TN, pctPtr(sf.Recall), pctPtr(sf.Precision))
	c := newSVG(w, h, "Safety validator confusion matrix", desc)
	peak := max(sf.TP, sf.FN, sf.FP, sf.TN, 1)
	cells := []struct {
		row, col int
		n        int
		name     string
		color    string
	}{
		{0, 0, sf.TP, "unsafe, blocked", colorPass},
		{0, 1, sf.FN, "unsafe, allowed", colorFail},
		{1, 0, sf.FP, "safe, blocked", colorWarn},
		{1, 1, sf.TN, "safe, allowed", colorPass},
	}
	c.text(left+cw, top-26, "middle", "validator")
	c.text(left+cw/2, top-8, "middle", "blocked")
	c.text(left+cw*1.5, top-8, "middle", "allowed")
	c.text(left-10, top+ch/2+4, "end", "unsafe query")
	c.text(left-10, top+ch*1.5+4, "end", "safe query")
	for _, cell := range cells {
		cx, cy := left+cw*float64(cell.col), top+ch*float64(cell.row)
		opacity := 0.12 + 0.6*float64(max(cell.n, 0))/float64(peak)
		fmt.Fprintf(&c.b, `<g fill-opacity="%s">`, strconv.FormatFloat(math.Round(opacity*100)/100, 'f', -1, 64))
		c.rect(cx+2, cy+2, cw-4, ch-4, cell.color, fmt.Sprintf("%s: %d", cell.name, cell.n))
		c.b.WriteString("</g>")
		c.textStyled(cx+cw/2, cy+ch/2+8, "middle", "", `font-size="22" font-weight="bold"`, strconv.Itoa(cell.n))
	}
	if sf.FN > 0 {
		c.frame(left+cw+2, top+2, cw-4, ch-4, colorFail, 3)
	}
	line := "recall " + pctPtr(sf.Recall) + " · precision " + pctPtr(sf.Precision)
	if critical(sf) {
		c.textStyled(left+cw, top+2*ch+28, "middle", colorFail, `font-weight="bold"`, "CRITICAL: "+line)
	} else {
		c.text(left+cw, top+2*ch+28, "middle", line)
	}
	return c.String()
}
