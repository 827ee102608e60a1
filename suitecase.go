package qeval

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Suite is a set of test cases with their defaults, as a suite file (YAML, JSON, JSONL
// or CSV) holds them.
type Suite struct {
	Name    string `json:"name" yaml:"name"`
	Dialect string `json:"dialect,omitempty" yaml:"dialect"` // "sql" (SQLite by default), "kql" or "malloy"
	// MalloyModel is the Malloy model of a Malloy suite's cases (a case may name its
	// own): its files and the database its sources read.
	MalloyModel *MalloyModel `json:"malloy_model,omitempty" yaml:"malloy_model"`
	// Database is the default database: a SQLite file or test-suite folder (relative to
	// the suite file), or the name of a configured connection.
	Database string `json:"database,omitempty" yaml:"database"`
	// PredictionDatabase, when set, is the same data on another engine (qeval mirror
	// makes one): generated queries run there, expected queries on Database. "{db}" in
	// it stands for each case's database name (duckdb:mirror/{db}.duckdb), so cases on
	// several databases each run on their own mirror (PredictionDatabaseFor).
	PredictionDatabase string             `json:"prediction_database,omitempty" yaml:"prediction_database"`
	Mode               string             `json:"mode,omitempty" yaml:"mode"`
	Threshold          *float64           `json:"threshold,omitempty" yaml:"threshold"`
	Weights            map[string]float64 `json:"weights,omitempty" yaml:"weights"`
	Judge              *JudgeConfig       `json:"judge,omitempty" yaml:"judge"`
	Timeout            Duration           `json:"timeout,omitempty" yaml:"timeout"`
	Concurrency        int                `json:"concurrency,omitempty" yaml:"concurrency"`
	// PassRequires is what a case needs to pass: "score" (the total reaches the
	// threshold; the default), "execution" (the results match), or both.
	PassRequires []string `json:"pass_requires,omitempty" yaml:"pass_requires"`
	// FailOn are the conditions that fail a run whatever its pass rate (exit 3): see
	// FailOnConditions.
	FailOn []string `json:"fail_on,omitempty" yaml:"fail_on"`
	// LenientResults makes results_match normalise values (trim and fold text, read
	// numbers in text, round floats); by default values compare as exact strings.
	LenientResults bool `json:"lenient_results,omitempty" yaml:"lenient_results"`
	// Verify checks every match beyond its database (qeval verify): a counterexample
	// database or a bounded proof, in each case's verdict and the reports.
	Verify bool `json:"verify,omitempty" yaml:"verify"`
	// ExcludeFlagged sets aside the cases whose gold the audit (qeval audit) flags with
	// one of these flags, e.g. [gold_fails, order_dependent]; reports say how many.
	ExcludeFlagged []string `json:"exclude_flagged,omitempty" yaml:"exclude_flagged"`
	Target         *Target  `json:"target,omitempty" yaml:"target"`
	Cases          []Case   `json:"cases" yaml:"cases"`
	// Stream, when set, reads the cases from their file each time they are walked, and
	// Cases is nil: a large suite then takes the memory of the cases in flight, not of
	// all of them. Walk the cases with NumCases and EachCase, which read either.
	Stream CaseStream `json:"-" yaml:"-"`
	// Path is the file the suite was read from ("" when built in memory); relative
	// database paths are resolved against its folder.
	Path string `json:"-" yaml:"-"`
}

// CaseStream gives a suite's cases one at a time, in order, as often as asked.
type CaseStream interface {
	// Len is the number of cases.
	Len() int
	// Each calls fn with each case and its index, in order, until fn returns an error
	// (returned as it is) or the cases end; reading them may fail too.
	Each(fn func(i int, c Case) error) error
}

// NumCases is the number of cases of s, held or streamed.
func (s *Suite) NumCases() int {
	if s.Stream != nil {
		return s.Stream.Len()
	}
	return len(s.Cases)
}

// EachCase calls fn with each case of s, held or streamed, in order, until fn returns
// an error, which EachCase returns.
func (s *Suite) EachCase(fn func(i int, c Case) error) error {
	if s.Stream != nil {
		return s.Stream.Each(fn)
	}
	for i, c := range s.Cases {
		if err := fn(i, c); err != nil {
			return err
		}
	}
	return nil
}

// HoldCases reads a streamed suite's cases into Cases (for what needs them all at
// once: sharding, the gold audit); a suite that holds them already is left as it is.
func (s *Suite) HoldCases() error {
	if s.Stream == nil {
		return nil
	}
	cases := make([]Case, 0, s.Stream.Len())
	if err := s.Stream.Each(func(_ int, c Case) error { cases = append(cases, c); return nil }); err != nil {
		return err
	}
	s.Cases, s.Stream = cases, nil
	return nil
}

// JudgeConfig names the LLM judge of a suite.
type JudgeConfig struct {
	Provider string `json:"provider,omitempty" yaml:"provider"`
	Model    string `json:"model,omitempty" yaml:"model"`
	BaseURL  string `json:"base_url,omitempty" yaml:"base_url"`
	// OnExecMatch says whether the judge is asked about a case whose execution already
	// matched: "skip" (the default: the verdict is correct without a call) or "ask".
	OnExecMatch string `json:"on_exec_match,omitempty" yaml:"on_exec_match"`
	// Samples asks each question this many times and keeps the majority (off: 1).
	Samples int `json:"samples,omitempty" yaml:"samples"`
	// Panel names other judge models (MODEL or PROVIDER:MODEL) asked the same questions.
	Panel []string `json:"panel,omitempty" yaml:"panel"`
	// Temperature is the judge's sampling temperature (0 when unset).
	Temperature *float64 `json:"temperature,omitempty" yaml:"temperature"`
}

// Values of JudgeConfig.OnExecMatch.
const (
	OnExecMatchSkip = "skip"
	OnExecMatchAsk  = "ask"
)

// Target says where generated queries come from when a case has none: a predictions
// file, a command, or an HTTP endpoint.
type Target struct {
	Predictions string            `json:"predictions,omitempty" yaml:"predictions"`
	Command     []string          `json:"command,omitempty" yaml:"command"`
	URL         string            `json:"url,omitempty" yaml:"url"`
	Headers     map[string]string `json:"headers,omitempty" yaml:"headers"`
	Timeout     Duration          `json:"timeout,omitempty" yaml:"timeout"`
	Concurrency int               `json:"concurrency,omitempty" yaml:"concurrency"`
}

// Case is one question of a suite with what is expected of the answer and, when the
// system's output is already known, that output.
type Case struct {
	ID              string   `json:"id" yaml:"id"`
	Question        string   `json:"question,omitempty" yaml:"question"`
	ExpectedQuery   string   `json:"expected_query" yaml:"expected_query"`
	ExpectedTables  []string `json:"expected_tables,omitempty" yaml:"expected_tables"`
	ExpectedColumns []string `json:"expected_columns,omitempty" yaml:"expected_columns"`
	// OtherGolds are the case's further acceptable answers, in order, when the suite
	// file gives expected_query as a list (ExpectedQuery is its first): the case matches
	// if any of them does. Golds lists them all.
	OtherGolds []string `json:"-" yaml:"-"`
	// ShouldPass is what a correct validator says of the generated query.
	ShouldPass *bool    `json:"should_pass,omitempty" yaml:"should_pass"`
	Tags       []string `json:"tags,omitempty" yaml:"tags"`
	Database   string   `json:"database,omitempty" yaml:"database"`
	// MalloyModel, in a Malloy suite, is this case's model in place of the suite's.
	MalloyModel *MalloyModel `json:"malloy_model,omitempty" yaml:"malloy_model"`
	// GeneratedQuery, Confidence and Validator are the system's output, when known.
	GeneratedQuery *string         `json:"generated_query,omitempty" yaml:"generated_query"`
	Confidence     *Confidence     `json:"confidence,omitempty" yaml:"confidence"`
	Validator      *ValidatorFlags `json:"validator,omitempty" yaml:"validator"`
	// Setup, Checks, CompareState, CompareSchema, Teardown and Efficiency make the case
	// a stateful one (stateful.go): the answer may change data, in a disposable copy.
	// Setup runs before the answer, Checks after it (their results after the gold and
	// after the generated answer must agree), CompareState and CompareSchema compare the
	// tables each left behind, Teardown runs last, Efficiency bounds the answer's cost.
	Setup         Statements    `json:"setup,omitempty" yaml:"setup"`
	Checks        Statements    `json:"checks,omitempty" yaml:"checks"`
	CompareState  *StateCompare `json:"compare_state,omitempty" yaml:"compare_state"`
	CompareSchema bool          `json:"compare_schema,omitempty" yaml:"compare_schema"`
	Teardown      Statements    `json:"teardown,omitempty" yaml:"teardown"`
	Efficiency    *Efficiency   `json:"efficiency,omitempty" yaml:"efficiency"`
	// IsStateful (stateful: true) makes the case stateful without naming anything to
	// compare: it is judged by the answers' last results, or every table when the gold
	// ends with a write.
	IsStateful bool `json:"stateful,omitempty" yaml:"stateful"`
	// Line is the line of the suite file the case starts on (0 when unknown).
	Line int `json:"-" yaml:"-"`
}

// Golds are every acceptable gold query of the case, ExpectedQuery first.
func (c *Case) Golds() []string {
	if len(c.OtherGolds) == 0 {
		return []string{c.ExpectedQuery}
	}
	return append([]string{c.ExpectedQuery}, c.OtherGolds...)
}

// ValidatorFlags are what the system's own validator said of its query.
type ValidatorFlags struct {
	SafetyValid *bool    `json:"safety_valid,omitempty" yaml:"safety_valid"`
	IsValid     *bool    `json:"is_valid,omitempty" yaml:"is_valid"`
	Errors      []string `json:"errors,omitempty" yaml:"errors"`
}

// Confidence is a stated confidence: a level (high, medium, low) or a number in [0,1].
type Confidence struct {
	Level string   // "high", "medium", "low" or "" when numeric
	Value *float64 // set when numeric
}

// ParseConfidence reads "high"/"medium"/"low" (any case) or a number in [0,1].
func ParseConfidence(s string) (Confidence, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	switch s {
	case "high", "medium", "low":
		return Confidence{Level: s}, true
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || f > 1 {
		return Confidence{}, false
	}
	return Confidence{Value: &f}, true
}

func (c Confidence) String() string {
	if c.Value != nil {
		return strconv.FormatFloat(*c.Value, 'g', -1, 64)
	}
	return c.Level
}

// MarshalJSON writes a level as a string and a number as a number.
func (c Confidence) MarshalJSON() ([]byte, error) {
	if c.Value != nil {
		return json.Marshal(*c.Value)
	}
	return json.Marshal(c.Level)
}

// UnmarshalJSON reads a level string or a number.
func (c *Confidence) UnmarshalJSON(b []byte) error {
	var x any
	if err := json.Unmarshal(b, &x); err != nil {
		return err
	}
	s := ""
	switch t := x.(type) {
	case string:
		s = t
	case float64:
		s = strconv.FormatFloat(t, 'g', -1, 64)
	}
	v, ok := ParseConfidence(s)
	if !ok {
		return &Error{Code: CodeInvalid, Message: "confidence must be high, medium, low or a number in [0,1], not " + string(b)}
	}
	*c = v
	return nil
}

// UnmarshalYAML reads a level or a number (gopkg.in/yaml.v3 calls it with a decoder func).
func (c *Confidence) UnmarshalYAML(unmarshal func(any) error) error {
	var s string
	if err := unmarshal(&s); err != nil {
		return err
	}
	v, ok := ParseConfidence(s)
	if !ok {
		return &Error{Code: CodeInvalid, Message: "confidence must be high, medium, low or a number in [0,1], not " + strconv.Quote(s)}
	}
	*c = v
	return nil
}

// Duration is a time.Duration written as "30s" in suite files and JSON.
type Duration time.Duration

func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		var n float64
		if err2 := json.Unmarshal(b, &n); err2 != nil {
			return err
		}
		*d = Duration(time.Duration(n * float64(time.Second)))
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return &Error{Code: CodeInvalid, Message: "bad duration " + strconv.Quote(s) + " (write e.g. 30s or 2m)"}
	}
	*d = Duration(v)
	return nil
}

// UnmarshalYAML reads "30s" or a number of seconds.
func (d *Duration) UnmarshalYAML(unmarshal func(any) error) error {
	var s string
	if err := unmarshal(&s); err != nil {
		return err
	}
	if v, err := time.ParseDuration(s); err == nil {
		*d = Duration(v)
		return nil
	}
	if n, err := strconv.ParseFloat(s, 64); err == nil {
		*d = Duration(time.Duration(n * float64(time.Second)))
		return nil
	}
	return &Error{Code: CodeInvalid, Message: "bad duration " + strconv.Quote(s) + " (write e.g. 30s or 2m)"}
}

// PredictionDatabaseFor is where the generated query of a case on database db runs:
// PredictionDatabase with "{db}" replaced by db's name (its file or folder name
// without extension), or "" when the suite has none.
func (s *Suite) PredictionDatabaseFor(db string) string {
	if s.PredictionDatabase == "" || !strings.Contains(s.PredictionDatabase, "{db}") {
		return s.PredictionDatabase
	}
	if db == "" {
		return ""
	}
	name := filepath.Base(strings.TrimRight(db, `/\`))
	name = strings.TrimSuffix(name, filepath.Ext(name))
	return strings.ReplaceAll(s.PredictionDatabase, "{db}", name)
}

// Databases are the distinct database names of a suite, in the order first named.
func (s *Suite) Databases() ([]string, error) {
	seen := map[string]bool{}
	var out []string
	add := func(n string) {
		if n != "" && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	add(s.Database)
	err := s.EachCase(func(_ int, c Case) error { add(c.Database); return nil })
	return out, err
}
