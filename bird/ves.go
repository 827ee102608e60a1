package bird

import (
	"context"
	"math"
	"time"

	"github.com/qeval/qeval"
)

// Reward is BIRD's R-VES reward for a gold/pred cost ratio (evaluation_ves.py): 0 for
// a ratio of 0 (a wrong or failed prediction), 1.25 from 2 up, 1 from 1, 0.75 from
// 0.5, 0.5 from 0.25, else 0.25.
func Reward(ratio float64) float64 {
	switch {
	case ratio == 0:
		return 0
	case ratio >= 2:
		return 1.25
	case ratio >= 1:
		return 1
	case ratio >= 0.5:
		return 0.75
	case ratio >= 0.25:
		return 0.5
	}
	return 0.25
}

// DropOutliers keeps the values strictly within three population standard deviations
// of the mean, as the official script's clean_abnormal does. When all values are
// equal nothing is strictly within, and the result is empty (the official script then
// fails and scores the item 0).
func DropOutliers(xs []float64) []float64 {
	mean, std := meanStd(xs)
	var out []float64
	for _, x := range xs {
		if x < mean+3*std && x > mean-3*std {
			out = append(out, x)
		}
	}
	return out
}

func meanStd(xs []float64) (mean, std float64) {
	if len(xs) == 0 {
		return 0, 0
	}
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		std += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(std / float64(len(xs)))
}

// ves times the pair VESRuns times (pred, then gold, as the official script does) and
// sets the wall-clock reward; with a StepCounter it also sets the VM-step reward.
func (e *Evaluator) ves(ctx context.Context, ex qeval.Executor, pred, gold string, it *Item) {
	ratios := make([]float64, 0, e.opt.VESRuns)
	failed := false
	for r := 0; r < e.opt.VESRuns && !failed; r++ {
		pt, err1 := e.timed(ctx, ex, pred)
		gt, err2 := e.timed(ctx, ex, gold)
		if err1 != nil || err2 != nil || pt <= 0 {
			failed = true
			break
		}
		ratios = append(ratios, gt.Seconds()/pt.Seconds())
	}
	reward, ratio := 0.0, 0.0
	if !failed {
		kept := DropOutliers(ratios)
		if len(kept) > 0 {
			for _, x := range kept {
				ratio += x
			}
			ratio /= float64(len(kept))
			reward = Reward(ratio)
		}
		_, std := meanStd(ratios)
		it.TimeRatioStd = &std
	}
	it.RVES, it.TimeRatio = &reward, &ratio
	sc, ok := ex.(StepCounter)
	if !ok {
		return
	}
	ps, err1 := sc.VMSteps(ctx, pred)
	gs, err2 := sc.VMSteps(ctx, gold)
	sr, sreward := 0.0, 0.0
	if err1 == nil && err2 == nil {
		sr = float64(gs) / float64(max(ps, 1))
		sreward = Reward(sr)
	}
	it.RVESSteps, it.StepRatio = &sreward, &sr
}

func (e *Evaluator) timed(ctx context.Context, ex qeval.Executor, sql string) (time.Duration, error) {
	r := e.query(ctx, ex, sql)
	if r.err != nil {
		return 0, r.err
	}
	return r.dur, nil
}
