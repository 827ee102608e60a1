package report

import (
	"fmt"
	"strconv"

	"github.com/qeval/qeval"
)

// Chart is one picture of a run: an id for anchors, a title, and the <svg> element.
type Chart struct {
	ID    string
	Title string
	SVG   string
}

// Charts returns the charts the summary has data for, in the order the page shows
// them. threshold is the pass mark drawn on the score distribution.
func Charts(s *qeval.Summary, threshold float64) []Chart {
	all := []Chart{
		{"score-distribution", "Score distribution", ScoreDistributionSVG(s, threshold)},
		{"component-means", "Component means", ComponentMeansSVG(s)},
		{"tag-accuracy", "Accuracy by tag", TagAccuracySVG(s)},
		{"error-classes", "Failures by error class", ErrorClassesSVG(s)},
		{"reliability", "Calibration: reliability diagram", ReliabilitySVG(s)},
		{"safety-matrix", "Safety validator: confusion matrix", SafetyMatrixSVG(s)},
	}
	out := all[:0]
	for _, c := range all {
		if c.SVG != "" {
			out = append(out, c)
		}
	}
	return out
}

// ScoreDistributionSVG draws the histogram of total scores (Summary.ScoreHistogram,
// equal-width bins over [0, 1]) with the threshold as a dashed line. Bins below the
// threshold are red, above it green. It returns "" when no case has a score.
func ScoreDistributionSVG(s *qeval.Summary, threshold float64) string {
	bins := s.ScoreHistogram
	peak, total := 0, 0
	for _, n := range bins {
		peak, total = max(peak, n), total+max(n, 0)
	}
	if peak <= 0 {
		return ""
	}
	const w, h, left, right, top, bottom = 480.0, 220.0, 40.0, 12.0, 16.0, 36.0
	pw, ph := w-left-right, h-top-bottom
	c := newSVG(w, h, "Score distribution",
		fmt.Sprintf("Histogram of the total scores of %d cases in %d bins from 0 to 1; threshold %s.", total, len(bins), score(threshold)))
	for _, t := range []int{0, (peak + 1) / 2, peak} {
		y := top + ph - ph*float64(t)/float64(peak)
		c.line(left, y, left+pw, y, "currentColor", 0.15, false)
		c.text(left-6, y+4, "end", strconv.Itoa(t))
	}
	bw := pw / float64(len(bins))
	for i, n := range bins {
		lo, hi := float64(i)/float64(len(bins)), float64(i+1)/float64(len(bins))
		fill := colorNeutral
		switch {
		case hi <= threshold:
			fill = colorFail
		case lo >= threshold:
			fill = colorPass
		}
		bh := ph * float64(max(n, 0)) / float64(peak)
		c.rect(left+float64(i)*bw+1, top+ph-bh, bw-2, bh, fill,
			fmt.Sprintf("%s–%s: %d %s", strconv.FormatFloat(lo, 'f', 1, 64), strconv.FormatFloat(hi, 'f', 1, 64), n, plural(n, "case", "cases")))
	}
	c.line(left, top+ph, left+pw, top+ph, "currentColor", 0.6, false)
	for _, x := range []float64{0, 0.2, 0.4, 0.6, 0.8, 1} {
		c.text(left+pw*x, top+ph+16, "middle", strconv.FormatFloat(x, 'f', 1, 64))
	}
	c.text(left+pw/2, h-4, "middle", "total score")
	if t := unit(threshold); t > 0 {
		x := left + pw*t
		c.line(x, top, x, top+ph, "currentColor", 0.9, true)
		dx, anchor := 4.0, "start"
		if t > 0.75 {
			dx, anchor = -4, "end"
		}
		c.text(x+dx, top-4, anchor, "threshold "+score(threshold))
	}
	return c.String()
}

// bar is one row of a horizontal bar chart: a value in [0, 1] (nil: not computed)
// with an optional interval.
type bar struct {
	label    string
	value    *float64
	low, hi  *float64
	sublabel string
}

// barsSVG draws labelled horizontal bars on a 0–1 scale.
func barsSVG(title, desc string, rows []bar, asPercent bool) string {
	const w, left, right, top, rowH = 480.0, 172.0, 60.0, 8.0, 26.0
	h := top + rowH*float64(len(rows)) + 26
	pw := w - left - right
	c := newSVG(w, h, title, desc)
	for _, x := range []float64{0, 0.25, 0.5, 0.75, 1} {
		c.line(left+pw*x, top, left+pw*x, top+rowH*float64(len(rows)), "currentColor", 0.15, false)
		tick := strconv.FormatFloat(x, 'f', -1, 64)
		if asPercent {
			tick = strconv.FormatFloat(x*100, 'f', 0, 64) + "%"
		}
		c.text(left+pw*x, h-8, "middle", tick)
	}
	format := score
	if asPercent {
		format = pct
	}
	for i, r := range rows {
		y := top + rowH*float64(i)
		name := clip(r.label, 20)
		if r.sublabel != "" {
			name += " " + r.sublabel
		}
		c.text(left-8, y+rowH/2+4, "end", name)
		if r.value == nil {
			c.textStyled(left+4, y+rowH/2+4, "start", "", `font-style="italic" fill-opacity="0.7"`, "not computed")
			continue
		}
		v := unit(*r.value)
		tip := r.label + ": " + format(*r.value)
		if r.low != nil && r.hi != nil {
			tip += " (95% interval " + format(*r.low) + "–" + format(*r.hi) + ")"
		}
		c.rect(left, y+5, pw*v, rowH-10, colorAccent, tip)
		if r.low != nil && r.hi != nil {
			x1, x2, ym := left+pw*unit(*r.low), left+pw*unit(*r.hi), y+rowH/2
			c.line(x1, ym, x2, ym, "currentColor", 0.9, false)
			c.line(x1, ym-5, x1, ym+5, "currentColor", 0.9, false)
			c.line(x2, ym-5, x2, ym+5, "currentColor", 0.9, false)
		}
		c.text(left+pw+8, y+rowH/2+4, "start", format(*r.value))
	}
	return c.String()
}

// ComponentMeansSVG draws the mean of each composite component. It returns "" when the
// summary has no component means.
func ComponentMeansSVG(s *qeval.Summary) string {
	if len(s.ComponentMeans) == 0 {
		return ""
	}
	names := componentNames(&qeval.Report{Summary: *s})
	rows := make([]bar, 0, len(names))
	for _, n := range names {
		rows = append(rows, bar{label: label(n), value: s.ComponentMeans[n]})
	}
	return barsSVG("Component means", "Mean score of each part of the composite total score, from 0 to 1.", rows, false)
}

// MetricMeansSVG draws the mean score of every per-case metric. It returns "" when the
// summary has none.
func MetricMeansSVG(s *qeval.Summary) string {
	if len(s.MetricMeans) == 0 {
		return ""
	}
	var rows []bar
	for _, n := range sortedKeys(s.MetricMeans) {
		rows = append(rows, bar{label: label(n), value: s.MetricMeans[n]})
	}
	return barsSVG("Metric means", "Mean score of each metric over the cases it ran on, from 0 to 1.", rows, false)
}

// maxTagRows caps the tags drawn; the page's table lists them all.
const maxTagRows = 30

// TagAccuracySVG draws each tag's accuracy with its 95% interval as a whisker (the
// pass rate when the tag has no accuracy). It returns "" when the suite has no tags.
func TagAccuracySVG(s *qeval.Summary) string {
	if len(s.ByTag) == 0 {
		return ""
	}
	var rows []bar
	for i, t := range s.ByTag {
		if i == maxTagRows {
			break
		}
		r := bar{label: t.Tag, sublabel: "(" + strconv.Itoa(t.Count) + ")"}
		if t.Accuracy != nil {
			v, lo, hi := t.Accuracy.Value, t.Accuracy.Low, t.Accuracy.High
			r.value, r.low, r.hi = &v, &lo, &hi
		} else {
			v := t.PassRate
			r.value = &v
		}
		rows = append(rows, r)
	}
	desc := "Accuracy of the cases with each tag, with its 95% bootstrap interval; the number of cases is in brackets."
	if len(s.ByTag) > maxTagRows {
		desc += fmt.Sprintf(" The first %d of %d tags are drawn.", maxTagRows, len(s.ByTag))
	}
	return barsSVG("Accuracy by tag", desc, rows, true)
}
