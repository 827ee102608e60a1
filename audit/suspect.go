package audit

import (
	"context"

	"github.com/qeval/qeval"
)

// suspectEvidence is the evidence of suspect_gold: databases on which several systems'
// predictions agree with each other and differ from the gold.
type suspectEvidence struct {
	Databases []suspectDatabase `json:"databases"`
}

// suspectDatabase is one counterexample database with the systems that agree there.
type suspectDatabase struct {
	Database string `json:"database"`
	// Systems are the agreeing systems (0-based, in the order predictions were given);
	// WithGold counts the systems whose prediction returns the gold's result there.
	Systems  []int           `json:"systems"`
	WithGold int             `json:"with_gold"`
	Gold     [][]qeval.Value `json:"gold"`
	Agreed   [][]qeval.Value `json:"agreed"`
}

// suspect runs the gold and every system's prediction on each counterexample database
// of the item, and flags the gold suspect_gold where at least two predictions agree
// with each other, differ from the gold, and outnumber the predictions that return the
// gold's result there.
func suspect(ctx context.Context, it Item, f *Finding, opt *Options) {
	if len(it.Counterexamples) == 0 || opt.OpenCounterexample == nil {
		return
	}
	n := 0
	for _, p := range it.Preds {
		if p != "" {
			n++
		}
	}
	if n < 2 {
		return
	}
	var ev suspectEvidence
	for _, db := range it.Counterexamples {
		if d, ok := suspectOn(ctx, it, db, opt); ok {
			ev.Databases = append(ev.Databases, d)
		}
	}
	if len(ev.Databases) > 0 {
		f.flag(SuspectGold, ev)
	}
}

// suspectOn checks one counterexample database.
func suspectOn(ctx context.Context, it Item, db string, opt *Options) (suspectDatabase, bool) {
	ex, err := opt.OpenCounterexample(db, opt.Limits)
	if err != nil {
		return suspectDatabase{}, false
	}
	defer ex.Close()
	g, _, ordered := opt.Mode.Prepare(it.Gold, it.Gold, compareOptions)
	gold, err := ex.Query(ctx, g)
	if err != nil {
		return suspectDatabase{}, false
	}
	// group the predictions by result: each group's first result stands for it
	type group struct {
		rs      *qeval.ResultSet
		systems []int
	}
	var groups []*group
	withGold := 0
	for s, p := range it.Preds {
		if p == "" {
			continue
		}
		_, q, _ := opt.Mode.Prepare(it.Gold, p, compareOptions)
		rs, err := ex.Query(ctx, q)
		if err != nil {
			continue
		}
		if opt.Mode.Equal(gold, rs, ordered) {
			withGold++
			continue
		}
		placed := false
		for _, gr := range groups {
			if opt.Mode.Equal(gr.rs, rs, ordered) {
				gr.systems = append(gr.systems, s)
				placed = true
				break
			}
		}
		if !placed {
			groups = append(groups, &group{rs: rs, systems: []int{s}})
		}
	}
	var best *group
	for _, gr := range groups {
		if len(gr.systems) >= 2 && (best == nil || len(gr.systems) > len(best.systems)) {
			best = gr
		}
	}
	// the systems that side with the gold there must be fewer than those that agree
	// against it: else the gold has the better support, and the others share a mistake
	if best == nil || len(best.systems) <= withGold {
		return suspectDatabase{}, false
	}
	return suspectDatabase{Database: db, Systems: best.systems, WithGold: withGold, Gold: head(gold.Rows), Agreed: head(best.rs.Rows)}, true
}
