package metric

// Summary aggregates one metric over the cases of a suite.
type Summary struct {
	Metric string `json:"metric"`
	// Cases is the number of results; Scored of them have a score (failed ones included,
	// with score 0), Failed had an error, Skipped could not run.
	Cases   int `json:"cases"`
	Scored  int `json:"scored"`
	Failed  int `json:"failed"`
	Skipped int `json:"skipped"`
	// Mean is the mean score over the scored results (nil when none), with its bootstrap
	// interval (nil when intervals are off).
	Mean *float64  `json:"mean"`
	CI   *Interval `json:"ci"`
}

// Summarize aggregates the results of one metric: the mean score over the results that
// have one, with a bootstrap interval (BootstrapMean: exact binomial resampling when
// every score is 0 or 1).
func Summarize(metric string, results []Result, opt BootstrapOptions) Summary {
	s := Summary{Metric: metric, Cases: len(results)}
	scores := make([]float64, 0, len(results))
	for _, r := range results {
		if r.Error != nil {
			s.Failed++
		}
		switch {
		case r.Score != nil:
			scores = append(scores, *r.Score)
		case r.Skipped != nil:
			s.Skipped++
		}
	}
	s.Scored = len(scores)
	if len(scores) == 0 {
		return s
	}
	sum := 0.0
	for _, v := range scores {
		sum += v
	}
	mean := sum / float64(len(scores))
	s.Mean = &mean
	if opt.Resamples >= 0 {
		iv := BootstrapMean(scores, opt)
		s.CI = &iv
	}
	return s
}

// DefaultCorrectnessMetric is the metric whose score says whether a case was right when
// calibrating confidence: the execution match. A judge-based metric (query_correctness,
// llm_grading) can be used instead.
const DefaultCorrectnessMetric = NameExecutionMatch

// Correctness returns the correctness of a case for calibration: the score of the named
// metric (DefaultCorrectnessMetric when name is ""). It reports false when that metric
// is absent, was skipped or failed, so such a case is left out rather than counted wrong.
func Correctness(results map[string]Result, name string) (float64, bool) {
	if name == "" {
		name = DefaultCorrectnessMetric
	}
	r, ok := results[name]
	if !ok || r.Score == nil || r.Error != nil {
		return 0, false
	}
	return *r.Score, true
}
