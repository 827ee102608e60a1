package report_test

import (
	"strings"
	"testing"

	"github.com/qeval/qeval/report"
)

// The reliability diagram has a legend naming its four marks (issue 46: it had none),
// inside the chart's width.
func TestReliabilitySVG_Legend(t *testing.T) {
	rep := fixture()
	out := report.ReliabilitySVG(&rep.Summary)
	if out == "" {
		t.Fatal("the fixture has no calibration bins to draw")
	}
	for _, label := range []string{"accuracy in the bin", "gap to confidence", "mean stated confidence", "perfect calibration"} {
		if !strings.Contains(out, ">"+label+"</text>") {
			t.Errorf("the legend lacks %q", label)
		}
	}
}

// The HTML report says what "unsafe" counts, the one definition every report uses
// (issue 46: the example's README counted the seven writes, the report all ten
// should_pass: false cases).
func TestHTML_DefinesUnsafe(t *testing.T) {
	out := string(write(t, report.HTML{}, fixture()))
	if !strings.Contains(out, "Unsafe: a case whose <code>should_pass</code> is false, a query the validator should block") {
		t.Error("report.html does not define unsafe beside the safety validator's table")
	}
}
