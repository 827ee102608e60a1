package judge

import (
	"context"
	"sort"
	"sync"

	"github.com/qeval/qeval"
)

// Sampled asks j each question n times (samples 0..n-1, each cached apart, so a run
// repeated with the same cache asks nothing) and answers with the majority: the most
// frequent verdict (a tie goes to the lower score), or for a grade the median score.
// The verdict's Samples say how the answers spread. With the judge's temperature at 0
// the samples mostly repeat one answer; a spread needs a temperature above 0.
//
// A sample that fails fails the whole answer: a majority of fewer answers than asked
// would not be the measure the run asked for. n ≤ 1 returns j.
func Sampled(j qeval.Judge, n int) qeval.Judge {
	if n <= 1 {
		return j
	}
	return &sampled{j: j, n: n}
}

type sampled struct {
	j qeval.Judge
	n int
}

func (s *sampled) Judge(ctx context.Context, in qeval.JudgeInput) (qeval.JudgeVerdict, error) {
	vs := make([]qeval.JudgeVerdict, s.n)
	errs := make([]error, s.n)
	var wg sync.WaitGroup
	for k := range s.n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			q := in
			q.Sample = k
			vs[k], errs[k] = s.j.Judge(ctx, q)
		}()
	}
	wg.Wait()
	for k, err := range errs {
		if err != nil {
			return vs[k], err
		}
	}
	return majority(vs), nil
}

// majority folds the samples into one verdict; see Sampled.
func majority(vs []qeval.JudgeVerdict) qeval.JudgeVerdict {
	smp := &qeval.JudgeSamples{N: len(vs)}
	lo, hi := vs[0].Score, vs[0].Score
	for _, v := range vs {
		smp.Scores = append(smp.Scores, v.Score)
		if v.Verdict != "" {
			smp.Verdicts = append(smp.Verdicts, v.Verdict)
		}
		lo, hi = min(lo, v.Score), max(hi, v.Score)
	}
	smp.Spread = hi - lo
	pick := 0
	agree := 0
	if len(smp.Verdicts) == len(vs) {
		count := map[string]int{}
		for _, v := range vs {
			count[v.Verdict]++
		}
		for k, v := range vs {
			c, best := count[v.Verdict], count[vs[pick].Verdict]
			if c > best || c == best && v.Score < vs[pick].Score {
				pick = k
			}
		}
		agree = count[vs[pick].Verdict]
	} else {
		order := make([]int, len(vs))
		for k := range order {
			order[k] = k
		}
		sort.SliceStable(order, func(a, b int) bool { return vs[order[a]].Score < vs[order[b]].Score })
		pick = order[(len(order)-1)/2] // the lower median
		for _, v := range vs {
			if d := v.Score - vs[pick].Score; d <= 0.25 && d >= -0.25 {
				agree++
			}
		}
	}
	smp.Agreement = float64(agree) / float64(len(vs))
	out := vs[pick]
	out.Samples = smp
	out.Cached, out.LLMCalled = true, false
	out.Attempts, out.InputTokens, out.OutputTokens, out.Latency = 0, 0, 0, 0
	for _, v := range vs {
		out.Cached = out.Cached && v.Cached
		out.LLMCalled = out.LLMCalled || v.LLMCalled
		out.Attempts += v.Attempts
		out.InputTokens += v.InputTokens
		out.OutputTokens += v.OutputTokens
		out.Latency = max(out.Latency, v.Latency)
	}
	return out
}

// Panel asks the first judge and every other one the same question, at once. The
// answer is the first judge's, with the others' in its Panel (an other judge's failure
// is recorded there, not returned: the panel informs, the first judge decides).
func Panel(first qeval.Judge, others ...qeval.Judge) qeval.Judge {
	if len(others) == 0 {
		return first
	}
	return &panel{first: first, others: others}
}

type panel struct {
	first  qeval.Judge
	others []qeval.Judge
}

func (p *panel) Judge(ctx context.Context, in qeval.JudgeInput) (qeval.JudgeVerdict, error) {
	out := make([]qeval.PanelVerdict, len(p.others))
	var wg sync.WaitGroup
	for k, o := range p.others {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := o.Judge(ctx, in)
			out[k] = qeval.PanelVerdict{Provider: v.Provider, Model: v.Model, Verdict: v.Verdict, Score: v.Score}
			if err != nil {
				out[k].Error = qeval.ErrorMessage(err)
			}
		}()
	}
	v, err := p.first.Judge(ctx, in)
	wg.Wait()
	if err == nil {
		v.Panel = out
	}
	return v, err
}
