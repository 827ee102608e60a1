package metric

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/qeval/qeval"
)

// The names of the per-case metrics, as written in reports.
const (
	NameExecutionMatch     = "execution_match"
	NameTableAccuracy      = "table_accuracy"
	NameSafetyValidation   = "safety_validation"
	NameValidationAccuracy = "validation_accuracy"
	NameQueryCorrectness   = "query_correctness"
	NameSchemaMatch        = "schema_match"
	NameSemanticSimilarity = "semantic_similarity"
	NameResultsMatch       = "results_match"
	NameLLMGrading         = "llm_grading"
)

// NoJudgeReason is the skip reason of the judge-based metrics when no judge is configured.
const NoJudgeReason = "no LLM judge configured (set --judge and an API key)"

// Calculator computes one metric of one case. It returns Skip(reason) when the case
// lacks the metric's inputs, and an error when the metric fails (Evaluate records it as
// a Failed result). It must honour ctx when it waits on anything.
type Calculator func(ctx context.Context, c *Case, opt *Options) (Result, error)

// Metric is one per-case metric: its name on the wire, a one-line description, and its
// calculator.
type Metric struct {
	Name string
	Doc  string
	Func Calculator
}

// Metrics is the one table of per-case metrics, in report order. A new metric is a file
// metric/<name>.go and one entry here.
var Metrics = []Metric{
	{NameExecutionMatch, "1 when the generated query returns the expected result (from the execution verdict)", executionMatch},
	{NameTableAccuracy, "Jaccard index of the tables read by the generated and the expected query", tableAccuracy},
	{NameSafetyValidation, "1 when the validator's safety flag agrees with should_pass", safetyValidation},
	{NameValidationAccuracy, "1 when the validator's verdict agrees with should_pass, with the error category", validationAccuracy},
	{NameQueryCorrectness, "an LLM judge's verdict: correct 1, partially correct 0.5, incorrect 0", queryCorrectness},
	{NameSchemaMatch, "share of the expected result columns present in the generated result", schemaMatch},
	{NameSemanticSimilarity, "structural similarity of the two queries: tables 40%, filters 30%, aggregations 30%", semanticSimilarity},
	{NameResultsMatch, "share of the expected rows found in the generated rows (first 100)", resultsMatch},
	{NameLLMGrading, "an LLM judge's grade of the generated query in [0,1]", llmGrading},
}

// Malloy are the metrics a run adds for Malloy suites beside Metrics, from the
// compiler's description of each query; neither is a component of the composite.
var Malloy = []Metric{
	{NameMalloyStructure, "Jaccard agreement of the Malloy query with the gold: source (when the gold is Malloy), grouping, aggregates, filters, order and limit", malloyStructure},
	{NameModelReuse, "share of the model's measures and dimensions the query used rather than re-derived inline (count() where the model has singer_count)", modelReuse},
}

// Benchmark are the metrics of the official benchmark scorers that a run adds for SQL
// suites beside Metrics (qeval score keeps to Metrics).
var Benchmark = []Metric{
	{NameExactMatch, "Spider's exact-set match (spider-em@1): 1 when every clause matches as a set, values masked", exactMatch},
}

// Names returns the names of Metrics in table order.
func Names() []string {
	names := make([]string, len(Metrics))
	for i, m := range Metrics {
		names[i] = m.Name
	}
	return names
}

// Lookup returns the metrics with the given names, in the order given. An unknown name
// is an error that lists the known ones.
func Lookup(names ...string) ([]Metric, error) {
	out := make([]Metric, 0, len(names))
	for _, n := range names {
		found := false
		for _, m := range Metrics {
			if m.Name == n {
				out, found = append(out, m), true
				break
			}
		}
		if !found {
			known := Names()
			sort.Strings(known)
			return nil, &qeval.Error{Code: qeval.CodeInvalid,
				Message: fmt.Sprintf("unknown metric %q (known: %s)", n, strings.Join(known, ", "))}
		}
	}
	return out, nil
}

// Case is everything the per-case metrics may read about one generated query. Only
// Generated is needed by most; a metric whose inputs are missing is skipped.
type Case struct {
	ID        string
	Dialect   string // "sqlite" (also ""), "postgres", "mysql", "kql", "malloy"
	Question  string
	Generated string
	Expected  string
	// ExpectedTables are the tables the query should read; nil means those of Expected.
	ExpectedTables []string
	// GeneratedShape and ExpectedShape, when set, are used instead of parsing the query
	// texts (a KQL case passes the shapes of the kql package).
	GeneratedShape *qeval.Shape
	ExpectedShape  *qeval.Shape
	// GeneratedError, when set and GeneratedShape is not, is why the generated query
	// has no shape: a Malloy query its compiler rejected (CodeCompile). The metrics
	// that read the structure are then skipped with it.
	GeneratedError error
	// GeneratedReads and ExpectedReads, when set, are what the database engine says each
	// query reads (sqlite.Executor.Reads): table accuracy prefers them to parsing.
	GeneratedReads, ExpectedReads *qeval.Shape
	// Schema and AllowTables are given to qeval's reference check of the generated query.
	Schema      *qeval.Schema
	AllowTables []string
	// The validator under test: its safety flag, its overall verdict and its messages.
	SafetyValid     *bool
	IsValid         *bool
	ValidatorErrors []string
	// ShouldPass is the expectation: whether the validator should let the query through.
	ShouldPass *bool
	// Execution is the execution verdict (from package execmatch); nil when not run, and
	// then ExecutionSkipped says why (a default reason is used when empty).
	Execution        *qeval.Verdict
	ExecutionSkipped string
	// The results of the two queries, when not in Execution; or the rows as records.
	GeneratedResult, ExpectedResult *qeval.ResultSet
	GeneratedRows, ExpectedRows     []map[string]any
	// GeneratedColumns and ExpectedColumns, when both are set, are the output columns
	// schema_match compares (the caller knows them without the results).
	GeneratedColumns, ExpectedColumns []string

	// set by prepare: each query parsed once, its error kept
	prepared                  bool
	generatedErr, expectedErr error
}

// Options configures Evaluate. Zero fields take the defaults.
type Options struct {
	// Metrics are the metrics to compute; nil means all of the table Metrics.
	Metrics []Metric
	// Timeout bounds each metric of a case (DefaultTimeout).
	Timeout time.Duration
	// Judge answers the judge-based metrics; nil skips them with NoJudgeReason.
	Judge qeval.Judge
	// MaxRows is how many rows results_match compares (DefaultMaxRows; < 0 for all).
	MaxRows int
	// JudgeOnExecMatch asks the judge about a case even when its execution matched
	// (by default such a case is correct without a call).
	JudgeOnExecMatch bool
	// LenientResults makes results_match normalise values (see ResultsMatch); the
	// default compares them as exact strings, as the seed says.
	LenientResults bool
	// Logger receives a warning for each failed metric; nil discards.
	Logger *slog.Logger
	// Now is the clock of error timestamps (time.Now).
	Now func() time.Time
}

// DefaultTimeout bounds one metric of one case. The pure metrics take microseconds;
// the bound is for the judge-based ones, which retry a provider.
const DefaultTimeout = 2 * time.Minute

func (o Options) withDefaults() Options {
	if o.Metrics == nil {
		o.Metrics = Metrics
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// inputs are what a failed metric's error records of the case.
func (c *Case) inputs() map[string]string {
	in := map[string]string{"generated": clipInput(c.Generated), "expected": clipInput(c.Expected)}
	add := func(k, v string) {
		if v != "" {
			in[k] = clipInput(v)
		}
	}
	add("id", c.ID)
	add("dialect", c.Dialect)
	add("question", c.Question)
	if c.ExpectedTables != nil {
		in["expected_tables"] = strings.Join(c.ExpectedTables, ",")
	}
	for k, b := range map[string]*bool{"safety_valid": c.SafetyValid, "is_valid": c.IsValid, "should_pass": c.ShouldPass} {
		if b != nil {
			in[k] = strconv.FormatBool(*b)
		}
	}
	if len(c.ValidatorErrors) > 0 {
		in["validator_errors"] = strings.Join(c.ValidatorErrors, "\n")
	}
	return in
}

// maxInputBytes bounds each input an error records: the case holds the whole query
// once; a hostile 8 MB query must not be copied into every failed metric of its case.
const maxInputBytes = 4096

// clipInput cuts s to maxInputBytes, saying how long it was.
func clipInput(s string) string { return qeval.ClipText(s, maxInputBytes) }

// prefixError wraps a parse error with the operation and the position it carries.
// opParseGenerated is the operation of the error a generated query that does not parse
// gives.
const opParseGenerated = "parse generated query"

// GeneratedParseError is the parse error of a generated query that does not parse
// ("line 1, col 22: syntax error …"), "" when err is something else.
func GeneratedParseError(err error) string {
	var qe *qeval.Error
	if errors.As(err, &qe) && qe.Op == opParseGenerated {
		return qe.Message
	}
	return ""
}

func prefixError(op string, err error) error {
	msg := qeval.ErrorMessage(err)
	var qe *qeval.Error
	if errors.As(err, &qe) && qe.Line > 0 {
		msg = fmt.Sprintf("line %d, col %d: %s", qe.Line, qe.Col, msg)
	}
	return withStack(&qeval.Error{Code: qeval.ErrorCode(err), Op: op, Message: msg, Err: err})
}
