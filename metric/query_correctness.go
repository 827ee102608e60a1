package metric

import (
	"context"
	"strings"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/internal/lexbyte"
)

// JudgeOptions tunes the judge-based metrics.
type JudgeOptions struct {
	// ExecMatch says the execution match held for the case.
	ExecMatch bool
	// JudgeExecMatch asks the judge even when ExecMatch holds. By default query
	// correctness takes an execution match as correct without a call.
	JudgeExecMatch bool
	// NoJudgeReason is the skip reason when the judge is nil (NoJudgeReason when empty),
	// e.g. "no LLM judge: ANTHROPIC_API_KEY is not set".
	NoJudgeReason string
	// Now is the clock of error timestamps (time.Now when nil).
	Now func() time.Time
	// OutageSkips turns a judge outage (the provider down or timing out) into a skip
	// marked judge_error instead of a failure scored 0: a run does so, since the judge,
	// not the model, failed. A single call reports the failure.
	OutageSkips bool
}

// Reasonings of the answers given without asking the model.
const (
	ReasonIdentical = "Queries are identical"
	ReasonExecMatch = "Execution results match; the judge was not asked"
)

// QueryCorrectness asks j whether in.Generated answers the question as in.Expected
// does: correct 1, partially_correct 0.5, incorrect 0, with the model's reasoning.
//
// Queries that are the same after normalising whitespace, keyword case and a trailing
// semicolon score 1 without a call, with or without a judge: the seed's answer, and
// one no model is needed for. An execution match also scores 1 without a call (unless
// opt.JudgeExecMatch). With no judge everything else is skipped, with the reason. A
// judge failure (timeout, provider gave up, malformed reply) scores 0 with the error.
//
// Details: verdict, reasoning, llm_called, cached, shortcut ("identical",
// "execution_match"), provider, model, prompt_version, latency_ms, attempts,
// input_tokens, output_tokens, and error_code and hint on failure.
func QueryCorrectness(ctx context.Context, j qeval.Judge, in qeval.JudgeInput, opt JudgeOptions) Result {
	in.Task = qeval.TaskQueryCorrectness
	if r, ok := judgeShortcut(j, in, opt); ok {
		return r
	}
	if opt.ExecMatch && !opt.JudgeExecMatch {
		return Scored(1, map[string]any{"verdict": qeval.JudgeCorrect, "reasoning": ReasonExecMatch,
			"llm_called": false, "cached": false, "shortcut": "execution_match"})
	}
	return askJudge(ctx, NameQueryCorrectness, j, in, opt)
}

// judgeShortcut answers without the model: 1 for identical queries (query
// correctness: with or without a judge), skipped without a judge.
func judgeShortcut(j qeval.Judge, in qeval.JudgeInput, opt JudgeOptions) (Result, bool) {
	noJudge := func() (Result, bool) {
		reason := opt.NoJudgeReason
		if reason == "" {
			reason = NoJudgeReason
		}
		return Skip(reason), true
	}
	if j == nil && in.Task != qeval.TaskQueryCorrectness {
		return noJudge()
	}
	if strings.TrimSpace(in.Generated) == "" {
		return Skip("no generated query"), true
	}
	if strings.TrimSpace(in.Expected) == "" {
		return Skip("no expected query"), true
	}
	if normalizeQuery(in.Generated, in.Dialect) == normalizeQuery(in.Expected, in.Dialect) {
		d := map[string]any{"reasoning": ReasonIdentical, "llm_called": false, "cached": false, "shortcut": "identical"}
		if in.Task == qeval.TaskQueryCorrectness {
			d["verdict"] = qeval.JudgeCorrect
		}
		return Scored(1, d), true
	}
	if j == nil {
		return noJudge()
	}
	return Result{}, false
}

// askJudge calls j and turns its verdict or error into a Result.
func askJudge(ctx context.Context, name string, j qeval.Judge, in qeval.JudgeInput, opt JudgeOptions) Result {
	v, err := j.Judge(ctx, in)
	d := map[string]any{
		"llm_called":     v.LLMCalled,
		"cached":         v.Cached,
		"provider":       v.Provider,
		"model":          v.Model,
		"prompt_version": v.PromptVersion,
		"latency_ms":     float64(v.Latency.Microseconds()) / 1000,
		"attempts":       v.Attempts,
		"input_tokens":   v.InputTokens,
		"output_tokens":  v.OutputTokens,
	}
	if err != nil && opt.OutageSkips && judgeOutage(err) {
		// the judge, not the model, failed: the component is skipped with the reason
		// (the total renormalised, as without a key) and the case is marked, so the
		// summary counts it apart and --resume asks again
		reason := "the LLM judge failed: " + qeval.ErrorMessage(err)
		d["judge_error"] = true
		d["error_code"] = string(qeval.ErrorCode(err))
		return Result{Skipped: &reason, Details: d}
	}
	if err != nil {
		now := time.Now
		if opt.Now != nil {
			now = opt.Now
		}
		r := Failed(&Error{Metric: name, Message: qeval.ErrorMessage(err), Timestamp: now().UTC().Truncate(time.Millisecond)})
		d["error_code"] = string(qeval.ErrorCode(err))
		if h := qeval.ErrorHint(err); h != "" {
			d["hint"] = h
		}
		r.Details = d
		return r
	}
	if v.Verdict != "" {
		d["verdict"] = v.Verdict
	}
	d["reasoning"] = v.Reasoning
	if sm := v.Samples; sm != nil {
		d["samples"] = sm.N
		d["sample_scores"] = sm.Scores
		if len(sm.Verdicts) > 0 {
			d["sample_verdicts"] = sm.Verdicts
		}
		d["sample_agreement"] = sm.Agreement
		d["sample_spread"] = sm.Spread
	}
	if len(v.Panel) > 0 {
		// plain maps, so that a report read back (--resume, qeval diff) has the same shape
		panel := make([]any, len(v.Panel))
		for i, p := range v.Panel {
			m := map[string]any{"provider": p.Provider, "model": p.Model, "score": p.Score}
			if p.Verdict != "" {
				m["verdict"] = p.Verdict
			}
			if p.Error != "" {
				m["error"] = p.Error
			}
			panel[i] = m
		}
		d["panel"] = panel
	}
	return Scored(v.Score, d)
}

// judgeOutage reports a judge error that is the provider's fault (down, timing out,
// refusing): not a verdict on the query.
func judgeOutage(err error) bool {
	switch qeval.ErrorCode(err) {
	case qeval.CodeUnavailable, qeval.CodeTimeout:
		return true
	}
	return false
}

// IsJudgeError reports whether a metric was skipped because the judge failed.
func IsJudgeError(r Result) bool {
	b, _ := r.Details["judge_error"].(bool)
	return b && r.Skipped != nil
}

// queryCorrectness is the calculator of the metrics table.
func queryCorrectness(ctx context.Context, c *Case, opt *Options) (Result, error) {
	match := c.Execution != nil && c.Execution.Match
	r := QueryCorrectness(ctx, opt.Judge, judgeInput(c, opt.Judge), JudgeOptions{ExecMatch: match, JudgeExecMatch: opt.JudgeOnExecMatch, Now: opt.Now, OutageSkips: true})
	return judgeFailed(r, c, opt), nil
}

// judgeFailed records the case's inputs in a failed judge result and logs it, as
// Evaluate does for the other metrics.
func judgeFailed(r Result, c *Case, opt *Options) Result {
	if r.Error != nil {
		r.Error.Inputs = c.inputs()
		if opt.Logger != nil {
			opt.Logger.Warn("metric failed", "metric", r.Error.Metric, "case", c.ID, "error", r.Error.Message)
		}
	}
	return r
}

// judgeInput is what the judge sees of c: the queries, the question, the schema as
// DDL (only when there is a judge to read it: writing it out costs a large schema's
// size per case) and, when execution ran, the results.
func judgeInput(c *Case, j qeval.Judge) qeval.JudgeInput {
	in := qeval.JudgeInput{Question: c.Question, Generated: c.Generated, Expected: c.Expected,
		Dialect: c.Dialect, GeneratedResult: c.GeneratedResult, ExpectedResult: c.ExpectedResult}
	if in.Dialect == "" {
		in.Dialect = "sqlite"
	}
	if v := c.Execution; v != nil {
		if v.Pred != nil {
			in.GeneratedResult = v.Pred
		}
		if v.Gold != nil {
			in.ExpectedResult = v.Gold
		}
	}
	if c.Schema != nil && j != nil {
		var b strings.Builder
		for _, t := range c.Schema.Tables {
			if t.DDL != "" {
				b.WriteString(strings.TrimSuffix(strings.TrimSpace(t.DDL), ";"))
			} else {
				b.WriteString("CREATE TABLE " + t.Name + " (")
				for i, col := range t.Columns {
					if i > 0 {
						b.WriteString(", ")
					}
					b.WriteString(strings.TrimSpace(col.Name + " " + col.Type))
				}
				b.WriteString(")")
			}
			b.WriteString(";\n")
		}
		in.Schema = b.String()
	}
	return in
}

// normalizeQuery is the text of q with whitespace collapsed, SQL keywords in lower case
// and trailing semicolons dropped. Quoted strings and identifiers, and comments, are
// kept as written. KQL keywords are case-sensitive, so KQL keeps its case.
func normalizeQuery(q, dialect string) string {
	q = strings.TrimSpace(q)
	for strings.HasSuffix(q, ";") {
		q = strings.TrimSpace(strings.TrimSuffix(q, ";"))
	}
	foldKeywords := !strings.EqualFold(dialect, "kql") && !strings.EqualFold(dialect, "kusto")
	var b strings.Builder
	prevWord, space := false, false
	emit := func(tok string, word bool) {
		// A space survives only between two words: "a = 1" and "a=1" are the same.
		if space && prevWord && word {
			b.WriteByte(' ')
		}
		b.WriteString(tok)
		prevWord, space = word, false
	}
	for i := 0; i < len(q); {
		c := q[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			space = true
			i++
		case c == '\'' || c == '"' || c == '`':
			j := i + 1
			for j < len(q) {
				if q[j] == c {
					if j+1 < len(q) && q[j+1] == c { // doubled quote inside the literal
						j += 2
						continue
					}
					break
				}
				j++
			}
			j = min(j+1, len(q))
			emit(q[i:j], true)
			i = j
		case c == '-' && i+1 < len(q) && q[i+1] == '-' || c == '/' && i+1 < len(q) && q[i+1] == '/' && !foldKeywords:
			j := strings.IndexByte(q[i:], '\n')
			if j < 0 {
				j = len(q) - i
			}
			if b.Len() > 0 { // a comment is always set apart
				b.WriteByte(' ')
			}
			b.WriteString(strings.TrimSpace(q[i : i+j]))
			prevWord, space = true, false
			i += j
		case isWordByte(c):
			j := i
			for j < len(q) && isWordByte(q[j]) {
				j++
			}
			w := q[i:j]
			if foldKeywords && sqlKeywords[strings.ToLower(w)] {
				w = strings.ToLower(w)
			}
			emit(w, true)
			i = j
		default:
			emit(q[i:i+1], false)
			i++
		}
	}
	return b.String()
}

// isWordByte: a word here may also hold $, @ and # (MySQL and T-SQL names, variables).
func isWordByte(c byte) bool { return c == '$' || c == '@' || c == '#' || lexbyte.IsWord(c) }

// sqlKeywords are the words whose case SQL ignores: keywords and the common functions.
var sqlKeywords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`select from where and or not join inner left right full outer cross
		natural on using as group by order having limit offset union intersect except all distinct in
		is null like ilike glob regexp between case when then else end exists asc desc with recursive
		count sum avg min max total group_concat string_agg true false cast coalesce ifnull nullif iif
		lower upper length round abs substr substring trim replace instr over partition window rows
		range values escape collate nulls first last top fetch next only filter date time datetime
		timestamp interval extract strftime julianday integer int real text varchar numeric float
		boolean bigint`) {
		m[w] = true
	}
	return m
}()
