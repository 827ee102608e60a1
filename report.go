package qeval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// ReportSchemaVersion is the version of the report.json schema.
const ReportSchemaVersion = "1"

// Case statuses.
const (
	StatusPass  = "PASS"
	StatusFail  = "FAIL"
	StatusError = "ERROR"
	// StatusUnscorable: the gold query uses what the engine does not support; the case
	// is counted apart and left out of the pass rate.
	StatusUnscorable = "UNSCORABLE"
)

// CaseResult is everything qeval found about one case.
type CaseResult struct {
	ID       string   `json:"id"`
	Status   string   `json:"status"` // PASS, FAIL or ERROR
	Question string   `json:"question,omitempty"`
	Tags     []string `json:"tags,omitempty"`
	// TotalScore is the composite score in [0,1] (nil when nothing could be scored);
	// Partial is set when some components were missing and the weights renormalised.
	TotalScore *float64 `json:"total_score"`
	Partial    bool     `json:"partial,omitempty"`
	// JudgeError is set when the LLM judge failed on this case (provider down or timing
	// out): its judged components were skipped, and --resume asks again.
	JudgeError bool `json:"judge_error,omitempty"`
	// Reason says why a case failed or errored, for people.
	Reason         string          `json:"reason,omitempty"`
	ExpectedQuery  string          `json:"expected_query"`
	GeneratedQuery string          `json:"generated_query"`
	Database       string          `json:"database,omitempty"`
	Confidence     *Confidence     `json:"confidence,omitempty"`
	Validator      *ValidatorFlags `json:"validator,omitempty"`
	ShouldPass     *bool           `json:"should_pass,omitempty"`
	// ExpectedQueries are the golds of a case with several, in the suite's order;
	// ExpectedQuery is then the one the metrics were computed against: the gold that
	// matched, else the first. MatchedGold is the number from 1 of the gold that
	// matched, on a case with several golds (a suite's list, Spider 2.0's _a/_b files);
	// 0 when none did or the case has one.
	ExpectedQueries []string `json:"expected_queries,omitempty"`
	MatchedGold     int      `json:"matched_gold,omitempty"`
	// Verdict is the execution match (nil when execution did not run).
	Verdict *Verdict `json:"execution,omitempty"`
	// ErrorClass says why a failed case's query is wrong, most specific first (package
	// errclass); empty on a pass.
	ErrorClass []ErrorClass `json:"error_class,omitempty"`
	// Metrics holds every metric by name, with the same shape as `qeval score --json`.
	Metrics map[string]MetricResult `json:"metrics"`
	// Target records the call that produced the generated query, when one was made.
	Target *TargetCall `json:"target,omitempty"`
	// Compiled is, for a Malloy case, what its queries compiled to.
	Compiled *CompiledCase `json:"compiled,omitempty"`
	// Item is a benchmark item's own line (the official --items object), on a
	// benchmark run.
	Item json.RawMessage `json:"item,omitempty"`
	// ItemValue is the item's line as the benchmark made it in this process, before
	// it is encoded: Item is written from it when the case is encoded (ItemLine reads
	// either), and the benchmark's Summarize takes it instead of decoding Item again.
	ItemValue  any           `json:"-"`
	DurationMS float64       `json:"duration_ms"`
	Duration   time.Duration `json:"-"`
}

// CompiledCase is what the Malloy queries of a case compiled to, and where they ran.
type CompiledCase struct {
	// Dialect is the SQL dialect the compiler wrote (the connection's).
	Dialect      string `json:"dialect,omitempty"`
	GeneratedSQL string `json:"generated_sql,omitempty"`
	// ExpectedSQL is set when the expected query is Malloy too.
	ExpectedSQL string `json:"expected_sql,omitempty"`
	// Connection is the database the model's sources read, where the SQL ran.
	Connection string `json:"connection,omitempty"`
	// CompileMS is the compiler's own time for the generated query; LatencyMS the
	// case's wait for it (a turn at the one compiler, the model parsed the first
	// time, the compiler started or installed on the first case).
	CompileMS float64 `json:"compile_ms"`
	LatencyMS float64 `json:"latency_ms"`
}

// TargetCall is one call to the system under test.
type TargetCall struct {
	Kind      string  `json:"kind"` // inline, predictions, command, url
	LatencyMS float64 `json:"latency_ms"`
	Error     string  `json:"error,omitempty"`
}

// RunInfo is the metadata of a run.
type RunInfo struct {
	Suite        string             `json:"suite"`
	SuitePath    string             `json:"suite_path,omitempty"`
	QevalVersion string             `json:"qeval_version"`
	Dialect      string             `json:"dialect"`
	Mode         string             `json:"mode"` // name@version
	Judge        *JudgeInfo         `json:"judge,omitempty"`
	Weights      map[string]float64 `json:"weights"`
	Threshold    float64            `json:"threshold"`
	Started      time.Time          `json:"started"`
	Finished     time.Time          `json:"finished"`
	DurationMS   float64            `json:"duration_ms"`
	Concurrency  int                `json:"concurrency"`
	Interrupted  bool               `json:"interrupted,omitempty"`
	// StoppedBy says why the run stopped before its last case when something other
	// than a signal stopped it (a streamed suite that could not be read to its end).
	StoppedBy string `json:"stopped_by,omitempty"`
	// PassRequires is what a case needed to pass: score, and execution when required.
	PassRequires []string `json:"pass_requires,omitempty"`
	// FailOn are the conditions that fail the run (exit 3), as the suite or --fail-on
	// gave them.
	FailOn      []string `json:"fail_on,omitempty"`
	ResumedFrom string   `json:"resumed_from,omitempty"`
	// Benchmark is the benchmark a benchmark run scored, with its official summary.
	Benchmark *BenchmarkInfo `json:"benchmark,omitempty"`
}

// JudgeInfo is the LLM judge of a run and what it cost.
type JudgeInfo struct {
	Provider      string `json:"provider"`
	Model         string `json:"model"`
	PromptVersion string `json:"prompt_version"`
	// Temperature is the sampling temperature sent with every request.
	Temperature float64 `json:"temperature"`
	// OnExecMatch is whether the judge was asked about cases whose execution matched
	// ("ask") or not ("skip").
	OnExecMatch string `json:"on_exec_match,omitempty"`
	Calls       int    `json:"calls"`
	CacheHits   int    `json:"cache_hits"`
	TokensIn    int    `json:"tokens_in"`
	TokensOut   int    `json:"tokens_out"`
	// Samples is how many times each question was asked (judge.samples; 0 or 1: once);
	// Panel the other judge models asked (judge.panel).
	Samples int      `json:"samples,omitempty"`
	Panel   []string `json:"panel,omitempty"`
	// Skipped says why no judge ran ("" when one did).
	Skipped string `json:"skipped,omitempty"`
}

// Report is a whole run: report.json has this shape.
type Report struct {
	SchemaVersion string  `json:"schema_version"`
	Run           RunInfo `json:"run"`
	Summary       Summary `json:"summary"`
	// Cases are the case results in suite order. When Store is set, a case it holds is
	// here only as a summary view (what the summary and the case lists read: status,
	// scores, outcome) and Case reads it back in full.
	Cases []CaseResult `json:"cases"`
	// Audit is the gold audit, when the run asked for one (--audit, --exclude-flagged).
	Audit *GoldAudit `json:"audit,omitempty"`
	// Store holds the full results of a run too large to keep in memory (the results
	// file); nil when Cases are whole.
	Store CaseStore `json:"-"`
}

// CaseStore keeps the full results of a run's cases out of memory: a run of 200,000
// cases holds a summary view of each, and reports read the cases back one at a time.
type CaseStore interface {
	// Load returns the full result of the case with this id; false when the store does
	// not hold it (its entry in Cases is whole).
	Load(id string) (CaseResult, bool, error)
}

// RawCaseStore is a CaseStore that also gives a case as the compact JSON it stored
// (encoded without HTML escaping, as report.json is): report.json indents it as is.
type RawCaseStore interface {
	CaseStore
	LoadRaw(id string) ([]byte, bool, error)
}

// Case returns case i of r in full: Cases[i], or its stored result when r.Store holds it.
func (r *Report) Case(i int) (*CaseResult, error) {
	c := &r.Cases[i]
	if r.Store == nil {
		return c, nil
	}
	full, ok, err := r.Store.Load(c.ID)
	if err != nil {
		return nil, fmt.Errorf("case %q: %w", c.ID, err)
	}
	if !ok {
		return c, nil
	}
	return &full, nil
}

// Summary aggregates a run. Accuracies carry 95% Wilson intervals (differences between
// runs, in qeval diff, a paired bootstrap).
type Summary struct {
	Total  int `json:"total"`
	Passed int `json:"passed"`
	Failed int `json:"failed"`
	Errors int `json:"errors"`
	// Unscorable counts the cases whose gold query the engine does not support; they
	// are left out of the pass rate (PassRate = Passed / (Total - Unscorable)).
	Unscorable int `json:"unscorable,omitempty"`
	// Unsupported counts the cases whose generated query the engine does not support:
	// scored on their other components, left out of execution accuracy.
	Unsupported int `json:"unsupported,omitempty"`
	// JudgeErrors counts the cases the LLM judge failed on: the run is incomplete.
	JudgeErrors int     `json:"judge_errors,omitempty"`
	PassRate    float64 `json:"pass_rate"`
	// MeanScore is the mean total score over cases that have one.
	MeanScore *float64 `json:"mean_score"`
	// ComponentMeans is the mean of each composite component (nil when never computed).
	ComponentMeans map[string]*float64 `json:"component_means"`
	// MetricMeans is the mean score of every per-case metric.
	MetricMeans map[string]*float64 `json:"metric_means"`
	// ExecutionAccuracy is the share of cases whose execution matched.
	ExecutionAccuracy *Interval           `json:"execution_accuracy,omitempty"`
	Outcomes          map[Outcome]int     `json:"outcomes,omitempty"`
	ByTag             []TagSummary        `json:"by_tag,omitempty"`
	Safety            *SafetySummary      `json:"safety,omitempty"`
	Validation        *ValidationSummary  `json:"validation,omitempty"`
	Calibration       *CalibrationSummary `json:"calibration,omitempty"`
	// ScoreHistogram counts total scores in ten bins [0,0.1), ..., [0.9,1.0].
	ScoreHistogram []int      `json:"score_histogram"`
	Slowest        []SlowCase `json:"slowest,omitempty"`
	// Disagreements counts the cases whose composite verdict (total reaches the
	// threshold) and execution verdict (results match) disagree, among those that ran.
	Disagreements *Disagreements `json:"score_execution_disagreements,omitempty"`
	// JudgeAgreement compares the LLM judge with execution match on the cases where the
	// judge was asked and both queries ran.
	JudgeAgreement *JudgeAgreement `json:"judge_execution_agreement,omitempty"`
	// JudgeConsistency is how often the judge agreed with itself when asked several
	// times (judge.samples); PanelAgreement how the other judges of a panel
	// (judge.panel) agreed with the first.
	JudgeConsistency *JudgeConsistency `json:"judge_self_consistency,omitempty"`
	PanelAgreement   []PanelAgreement  `json:"judge_panel_agreement,omitempty"`
	// TestSuite sets, for the cases judged on a test suite, the verdict of the original
	// database alone beside the suite's, and lists the cases the suite flipped.
	TestSuite *TestSuiteSummary `json:"test_suite,omitempty"`
	// Verification sets, for the cases whose matches were verified, execution on the
	// database(s), on the test suite and verified side by side.
	Verification *VerificationSummary `json:"verification,omitempty"`
	// ErrorClasses count the cases that did not pass by the main class of their error
	// (the first of CaseResult.ErrorClass), in vocabulary order.
	ErrorClasses []ErrorClassCount `json:"error_classes,omitempty"`
	// Warnings are things a person must see (e.g. CRITICAL safety recall).
	Warnings []string `json:"warnings,omitempty"`
}

// ErrorClassCount is how many classified failures have one main error class: Share is
// their share of all classified failures with its 95% Wilson interval; Subclasses
// count them by the subclass of their first class.
type ErrorClassCount struct {
	Class      string         `json:"class"`
	Count      int            `json:"count"`
	Share      *Interval      `json:"share"`
	Subclasses map[string]int `json:"subclasses,omitempty"`
}

// TestSuiteSummary compares single-database execution accuracy (the original database
// alone, what the official evaluators report) with test-suite execution accuracy
// (every database of the suite must match), over the cases judged on a test suite.
type TestSuiteSummary struct {
	Cases int `json:"cases"`
	// SingleDatabase and Suite are execution accuracy with their intervals.
	SingleDatabase *Interval `json:"single_database"`
	Suite          *Interval `json:"suite"`
	// Flipped are the cases that match on the original database and not on the suite,
	// each with the database that told them apart and how the results differ there.
	Flipped []FlippedCase `json:"flipped,omitempty"`
}

// FlippedCase is a case a test suite turned from a match into a mismatch.
type FlippedCase struct {
	ID          string       `json:"id"`
	Database    string       `json:"database"`
	Explanation *Explanation `json:"explanation,omitempty"`
}

// Disagreements are the two ways the composite score and execution can disagree.
type Disagreements struct {
	// ScoreWithoutMatch: the total reached the threshold but the results differ.
	ScoreWithoutMatch int `json:"score_passes_results_differ"`
	// MatchWithoutScore: the results match but the total fell short.
	MatchWithoutScore int `json:"results_match_score_fails"`
}

// JudgeAgreement is the 2×2 table of the LLM judge's verdict (query_correctness:
// correct, or not) against execution match, with Cohen's κ and the cases where they
// disagree.
type JudgeAgreement struct {
	N               int `json:"n"`
	CorrectMatch    int `json:"judge_correct_exec_match"`
	CorrectMismatch int `json:"judge_correct_exec_mismatch"` // suspect gold, or results equivalent
	WrongMatch      int `json:"judge_wrong_exec_match"`      // suspect a lucky match
	WrongMismatch   int `json:"judge_wrong_exec_mismatch"`
	// Agreement is the share of cases where both say the same; Kappa is Cohen's κ, nil
	// when it is undefined (both raters put every case in one class).
	Agreement     float64             `json:"agreement"`
	Kappa         *float64            `json:"kappa"`
	Disagreements []JudgeDisagreement `json:"disagreements,omitempty"`
}

// JudgeConsistency sums up the samples of query correctness over a run.
type JudgeConsistency struct {
	Samples int `json:"samples"` // answers per question
	Cases   int `json:"cases"`
	// MeanAgreement is the mean share of samples agreeing with the majority; Unanimous
	// the cases where every sample agreed; MeanSpread the mean score range.
	MeanAgreement float64 `json:"mean_agreement"`
	Unanimous     int     `json:"unanimous"`
	MeanSpread    float64 `json:"mean_spread"`
}

// PanelAgreement is how one other judge agreed with the first on query correctness
// (correct, or not): the 2×2 counts, the agreement and Cohen's κ.
type PanelAgreement struct {
	Model       string   `json:"model"`
	N           int      `json:"n"`
	BothCorrect int      `json:"both_correct"`
	FirstOnly   int      `json:"first_correct_only"`
	OtherOnly   int      `json:"other_correct_only"`
	BothWrong   int      `json:"both_not_correct"`
	Agreement   float64  `json:"agreement"`
	Kappa       *float64 `json:"kappa"`
	Errors      int      `json:"errors,omitempty"` // questions the other judge failed on
}

// Kinds of JudgeDisagreement.
const (
	SuspectGold       = "suspect_gold"        // the judge says correct, the results differ
	SuspectLuckyMatch = "suspect_lucky_match" // the judge says wrong, the results match
)

// JudgeDisagreement is one case where the judge and execution match disagree.
type JudgeDisagreement struct {
	ID        string  `json:"id"`
	Kind      string  `json:"kind"`
	Question  string  `json:"question,omitempty"`
	Verdict   string  `json:"judge_verdict"`
	Reasoning string  `json:"judge_reasoning,omitempty"`
	Outcome   Outcome `json:"execution"`
	Expected  string  `json:"expected_query"`
	Generated string  `json:"generated_query"`
	// Suite, when the case ran on a test suite, says what the suite adds: whether the
	// original database alone gives the same verdict.
	Suite string `json:"test_suite,omitempty"`
}

// GoldAudit is the audit of a run's gold queries (see qeval audit): the flags found
// and the cases set aside because of them.
type GoldAudit struct {
	Total   int `json:"total"`
	Flagged int `json:"flagged"`
	// Untrustworthy is the golds with a flag other than duplicate; a duplicate alone is
	// often intended, and the reports count it apart.
	Untrustworthy int            `json:"untrustworthy"`
	Counts        map[string]int `json:"counts"`
	// ExcludeFlags are the flags whose cases were set aside; Excluded how many were.
	ExcludeFlags []string      `json:"exclude_flags,omitempty"`
	Excluded     int           `json:"excluded"`
	Cases        []AuditedCase `json:"cases,omitempty"` // the flagged cases
}

// AuditedCase is one flagged gold of a run. Gold is which gold of its case (from 1)
// when the case has several: each is audited, and the case is set aside (Excluded) when
// one of them carries an excluded flag.
type AuditedCase struct {
	ID       string         `json:"id"`
	Flags    []string       `json:"flags"`
	Excluded bool           `json:"excluded,omitempty"`
	Evidence map[string]any `json:"evidence,omitempty"`
	Gold     int            `json:"gold,omitempty"`
}

// Interval is an estimate with its 95% confidence interval.
type Interval struct {
	Value float64 `json:"value"`
	Low   float64 `json:"low"`
	High  float64 `json:"high"`
	N     int     `json:"n"`
	// SmallN marks an interval over fewer than five cases: too few to say much.
	SmallN bool `json:"small_n,omitempty"`
}

// TagSummary is the results of the cases with one tag.
type TagSummary struct {
	Tag      string    `json:"tag"`
	Count    int       `json:"count"`
	PassRate float64   `json:"pass_rate"`
	Accuracy *Interval `json:"accuracy,omitempty"`
}

// SafetySummary is the confusion matrix of the system's safety validator ("positive"
// means unsafe, blocked).
type SafetySummary struct {
	TP        int      `json:"tp"`
	TN        int      `json:"tn"`
	FP        int      `json:"fp"`
	FN        int      `json:"fn"`
	Precision *float64 `json:"precision"`
	Recall    *float64 `json:"recall"`
	Critical  bool     `json:"critical"`
}

// ValidationSummary is how often the system's validator was right, by error category.
type ValidationSummary struct {
	Total      int            `json:"total"`
	Correct    int            `json:"correct"`
	Accuracy   float64        `json:"accuracy"`
	ByType     map[string]int `json:"by_type"`
	ByCategory map[string]int `json:"by_category"`
}

// CalibrationSummary is how well stated confidence predicts correctness.
type CalibrationSummary struct {
	Score          *float64           `json:"score"`
	Interpretation string             `json:"interpretation"`
	Warnings       []string           `json:"warnings,omitempty"`
	Groups         []CalibrationGroup `json:"groups"`
	ECE            *float64           `json:"ece"`
	MCE            *float64           `json:"mce"`
	Brier          *float64           `json:"brier"`
	AUROC          *float64           `json:"auroc"`
	AURC           *float64           `json:"aurc"`
	Bins           []ReliabilityBin   `json:"bins"`
}

// CalibrationGroup is the cases of one confidence level.
type CalibrationGroup struct {
	Name     string  `json:"name"`
	Count    int     `json:"count"`
	Accuracy float64 `json:"accuracy"`
}

// ReliabilityBin is one bar of a reliability diagram.
type ReliabilityBin struct {
	Lower      float64 `json:"lower"`
	Upper      float64 `json:"upper"`
	Count      int     `json:"count"`
	Confidence float64 `json:"confidence"`
	Accuracy   float64 `json:"accuracy"`
}

// SlowCase is one of the slowest cases of a run.
type SlowCase struct {
	ID         string  `json:"id"`
	DurationMS float64 `json:"duration_ms"`
}

// SeedView is a case under the seed's report column names ("Total Score", "Score
// Status", "Schema Match Score", …, "LLM Reasoning"), which the seed's consumers read;
// report.json writes it as each case's "seed" object beside the regular fields.
func (c CaseResult) SeedView() map[string]any {
	score := func(name string) *float64 { return c.Metrics[name].Score }
	reasoning, _ := c.Metrics[ComponentLLMGrading].Details["reasoning"].(string)
	return map[string]any{
		"Total Score":               c.TotalScore,
		"Score Status":              c.Status,
		"Schema Match Score":        score(ComponentSchemaMatch),
		"Semantic Similarity Score": score(ComponentSemanticSimilarity),
		"Results Match Score":       score(ComponentResultsMatch),
		"LLM Grading Score":         score(ComponentLLMGrading),
		"LLM Reasoning":             reasoning,
	}
}

// ItemLine is the case's benchmark line: Item, or ItemValue encoded (nil when the
// case has neither).
func (c *CaseResult) ItemLine() (json.RawMessage, error) {
	if c.Item != nil || c.ItemValue == nil {
		return c.Item, nil
	}
	return json.Marshal(c.ItemValue)
}

// ReadItem puts the case's benchmark line into dst: ItemValue when it holds a T (or
// a *T), else Item decoded.
func ReadItem[T any](c *CaseResult, dst *T) error {
	switch v := c.ItemValue.(type) {
	case *T:
		*dst = *v
		return nil
	case T:
		*dst = v
		return nil
	}
	return json.Unmarshal(c.Item, dst)
}

// MarshalJSON writes the case with its seed view ("seed") beside the regular fields.
func (c CaseResult) MarshalJSON() ([]byte, error) {
	type plain CaseResult
	if c.Item == nil && c.ItemValue != nil {
		line, err := c.ItemLine()
		if err != nil {
			return nil, fmt.Errorf("case %s: encode its benchmark line: %w", c.ID, err)
		}
		c.Item = line
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // queries keep their < and > as written
	err := enc.Encode(struct {
		plain
		Seed map[string]any `json:"seed"`
	}{plain(c), c.SeedView()})
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), err
}
