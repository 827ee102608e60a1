package exactmatch

// Tally averages verdicts over a group of items (a hardness level, a turn) the way the
// official evaluator does: exact match over all items; a component's accuracy over the
// items whose prediction has it, its recall over the items whose gold has it, and its F1
// from those two averages (1 when both are 0, and all three 0 for an empty group).
type Tally struct {
	Count int
	exact int
	acc   [10]float64
	rec   [10]float64
	accN  [10]int
	recN  [10]int
}

// Add counts one item. A nil result (the gold query could not be parsed) counts as a
// miss without partial scores.
func (t *Tally) Add(r *Result) {
	t.Count++
	if r == nil {
		return
	}
	if r.Exact {
		t.exact++
	}
	for i, c := range Components {
		s := r.Partial[c]
		if s.PredTotal > 0 {
			t.acc[i] += s.Acc
			t.accN[i]++
		}
		if s.LabelTotal > 0 {
			t.rec[i] += s.Rec
			t.recN[i]++
		}
	}
}

// AddExact counts one item's exact verdict only (the official joint and turn rows).
func (t *Tally) AddExact(exact bool) {
	t.Count++
	if exact {
		t.exact++
	}
}

// Exact is the exact-match accuracy of the group.
func (t *Tally) Exact() float64 {
	if t.Count == 0 {
		return 0
	}
	return float64(t.exact) / float64(t.Count)
}

// Partial is the averaged accuracy, recall and F1 of each component.
func (t *Tally) Partial() map[string]Score {
	out := make(map[string]Score, len(Components))
	for i, c := range Components {
		var s Score
		if t.Count > 0 {
			if t.accN[i] > 0 {
				s.Acc = t.acc[i] / float64(t.accN[i])
			}
			if t.recN[i] > 0 {
				s.Rec = t.rec[i] / float64(t.recN[i])
			}
			if s.Acc == 0 && s.Rec == 0 {
				s.F1 = 1
			} else {
				s.F1 = 2 * s.Acc * s.Rec / (s.Acc + s.Rec)
			}
		}
		s.LabelTotal, s.PredTotal = t.recN[i], t.accN[i]
		out[c] = s
	}
	return out
}
