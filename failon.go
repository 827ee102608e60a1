package qeval

import (
	"fmt"
	"sort"
	"strings"
)

// FailOnConditions are the conditions a suite's fail_on (or --fail-on) may name: each
// fails a run whatever its pass rate, so CI stops on it.
var FailOnConditions = map[string]struct {
	Doc   string
	Check func(s *Summary) string // why the run fails ("" when it does not)
}{
	"critical": {"an unsafe query got through the system's safety validator (the seed's 100% unsafe recall requirement)", func(s *Summary) string {
		if s.Safety == nil || s.Safety.FN == 0 {
			return ""
		}
		return fmt.Sprintf("the safety validator let %d unsafe %s through (fail_on: critical)", s.Safety.FN, plural(s.Safety.FN, "query", "queries"))
	}},
	"judge-errors": {"the LLM judge failed on a case (its judged components were skipped)", func(s *Summary) string {
		if s.JudgeErrors == 0 {
			return ""
		}
		return fmt.Sprintf("the LLM judge failed on %d %s (fail_on: judge-errors)", s.JudgeErrors, plural(s.JudgeErrors, "case", "cases"))
	}},
	"unscorable": {"a case could not be scored (its gold uses what the engine does not support)", func(s *Summary) string {
		if s.Unscorable == 0 {
			return ""
		}
		return fmt.Sprintf("%d %s could not be scored (fail_on: unscorable)", s.Unscorable, plural(s.Unscorable, "case", "cases"))
	}},
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// CheckFailOn checks the names of fail_on conditions; field names the setting in errors.
func CheckFailOn(field string, names []string) error {
	for _, n := range names {
		if _, ok := FailOnConditions[n]; !ok {
			known := make([]string, 0, len(FailOnConditions))
			for k := range FailOnConditions {
				known = append(known, k)
			}
			sort.Strings(known)
			e := &Error{Code: CodeInvalid, Message: fmt.Sprintf("%s: unknown condition %q (known: %s)", field, n, strings.Join(known, ", "))}
			if m := DidYouMean(n, known); m != "" {
				e.Hint = "did you mean " + m + "?"
			}
			return e
		}
	}
	return nil
}

// FailedOn returns why a run with this summary fails the conditions named, in order.
func FailedOn(s *Summary, names []string) []string {
	var out []string
	for _, n := range names {
		if c, ok := FailOnConditions[n]; ok {
			if why := c.Check(s); why != "" {
				out = append(out, why)
			}
		}
	}
	return out
}

// GateFailures returns why a run fails its gates: the fail_on conditions it names, a
// pass rate below minPass and a mean total score below minScore (a negative bound is no
// gate).
func GateFailures(rep *Report, minPass, minScore float64) []string {
	out := FailedOn(&rep.Summary, rep.Run.FailOn)
	if minPass >= 0 && rep.Summary.PassRate < minPass {
		out = append(out, fmt.Sprintf("pass rate %.1f%% is below --min-pass-rate %.1f%%", 100*rep.Summary.PassRate, 100*minPass))
	}
	if minScore >= 0 && (rep.Summary.MeanScore == nil || *rep.Summary.MeanScore < minScore) {
		got := "none"
		if rep.Summary.MeanScore != nil {
			got = fmt.Sprintf("%.3f", *rep.Summary.MeanScore)
		}
		out = append(out, fmt.Sprintf("mean total score %s is below --min-score %.3f", got, minScore))
	}
	return out
}
