package metric

import (
	"context"

	"github.com/qeval/qeval"
)

// LLMGrading asks j for a grade in [0, 1] of in.Generated against in.Expected, judged
// on table selection, filters, aggregations and transformations, expected result
// equivalence, logic and efficiency; it is the "LLM grading" part of the composite
// score. Identical queries (see QueryCorrectness) score 1 without a call; an execution
// match does not, since the grade also weighs logic and efficiency. With no judge the
// metric is skipped; a judge failure scores 0 with the error.
//
// Details: reasoning, llm_called, cached, shortcut, provider, model, prompt_version,
// latency_ms, attempts, input_tokens, output_tokens, and error_code and hint on failure.
func LLMGrading(ctx context.Context, j qeval.Judge, in qeval.JudgeInput, opt JudgeOptions) Result {
	in.Task = qeval.TaskLLMGrading
	if r, ok := judgeShortcut(j, in, opt); ok {
		return r
	}
	return askJudge(ctx, NameLLMGrading, j, in, opt)
}

// llmGrading is the calculator of the metrics table.
func llmGrading(ctx context.Context, c *Case, opt *Options) (Result, error) {
	r := LLMGrading(ctx, opt.Judge, judgeInput(c, opt.Judge), JudgeOptions{Now: opt.Now, OutageSkips: true})
	return judgeFailed(r, c, opt), nil
}
