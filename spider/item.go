package spider

import (
	"strconv"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/exactmatch"
)

// Item is one item's line of `qeval spider --items`.
type Item struct {
	Index       int           `json:"index"`
	Interaction *int          `json:"interaction,omitempty"`
	Turn        *int          `json:"turn,omitempty"`
	DBID        string        `json:"db_id"`
	Hardness    *string       `json:"hardness"`
	Exec        *bool         `json:"exec,omitempty"`
	Outcome     qeval.Outcome `json:"outcome,omitempty"`
	Error       *string       `json:"error"`
	Mode        string        `json:"mode,omitempty"`
	PredMS      *float64      `json:"pred_ms,omitempty"`
	GoldMS      *float64      `json:"gold_ms,omitempty"`
	Candidates  int           `json:"candidates,omitempty"`
	CapHit      bool          `json:"candidate_cap_hit,omitempty"`
	PredEngine  string        `json:"pred_engine,omitempty"`
	Explanation string        `json:"explanation,omitempty"`
	// On a test suite: the verdict on the original database alone, and the database
	// that told the results apart.
	ExecOriginal *bool  `json:"exec_original_database,omitempty"`
	Database     string `json:"database,omitempty"`
	// Difference says how the results differ, on a mismatch.
	Difference *qeval.Explanation          `json:"difference,omitempty"`
	Exact      *bool                       `json:"exact,omitempty"`
	Partial    map[string]exactmatch.Score `json:"partial,omitempty"`
	ParseError string                      `json:"pred_parse_error,omitempty"`
	ExactError string                      `json:"exact_error,omitempty"`
	// ErrorClass says why a wrong prediction is wrong (package errclass), most specific
	// first.
	ErrorClass []qeval.ErrorClass `json:"error_class,omitempty"`
	// With --verify (qeval verify): what verifying the item decided.
	*Verification
}

// Verification is an item's verification in its line: status, bound, counterexample,
// reason and the time it took.
type Verification struct {
	Status qeval.VerifyStatus `json:"status"`
	Bound  int                `json:"bound"`
	// Counterexample is the database file that tells gold and prediction apart (null
	// when none was written).
	Counterexample *string `json:"counterexample"`
	Reason         string  `json:"reason"`
	MS             float64 `json:"ms"`
	Tries          int     `json:"tries,omitempty"`
}

func (it *Item) turn() int {
	if it.Turn == nil {
		return 0
	}
	return *it.Turn
}

// Meta is what the summary needs besides the items.
type Meta struct {
	Etype     string `json:"etype"`
	Mode      string `json:"mode,omitempty"`
	MultiTurn bool   `json:"multi_turn,omitempty"`
	// EmptyInteractions counts the interactions with no item (blank lines in a row in
	// a SParC/CoSQL file): each counts, vacuously right, for joint accuracy.
	EmptyInteractions int `json:"empty_interactions,omitempty"`
	// PrintMismatches prints each exact-match miss before the table.
	PrintMismatches bool `json:"print_mismatches,omitempty"`
	// Verify is set when the matches were verified.
	Verify *VerifyMeta `json:"verify,omitempty"`
}

// VerifyMeta is how the matches were verified.
type VerifyMeta struct {
	Bound int    `json:"bound"`
	Out   string `json:"out,omitempty"`
}

// rebuild reads a run's items back from its cases, in the run's order.
func rebuild(meta Meta, cases []qeval.CaseResult) (*scored, error) {
	s := &scored{meta: meta, items: make([]Item, len(cases)), hardness: make([]*string, len(cases))}
	doExec, doMatch := meta.Etype != "match", meta.Etype != "exec"
	if doExec {
		s.verdicts = make([]qeval.Verdict, len(cases))
	}
	if doMatch {
		s.exact = make([]*exactmatch.Result, len(cases))
	}
	byInteraction := map[int][]int{}
	var order []int
	for i, c := range cases {
		it := &s.items[i]
		if err := qeval.ReadItem(&c, it); err != nil {
			return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "read the Spider item of case " + strconv.Quote(c.ID), Message: err.Error()}
		}
		s.hardness[i] = it.Hardness
		inter := 0
		if it.Interaction != nil {
			inter = *it.Interaction
		}
		if _, ok := byInteraction[inter]; !ok {
			order = append(order, inter)
		}
		byInteraction[inter] = append(byInteraction[inter], i)
		if doExec {
			s.verdicts[i] = it.verdict()
		}
		if doMatch && it.ExactError == "" {
			r := &exactmatch.Result{Partial: it.Partial, ParseError: it.ParseError}
			if it.Exact != nil {
				r.Exact = *it.Exact
			}
			if it.Hardness != nil {
				r.Hardness = *it.Hardness
			}
			s.exact[i] = r
		}
	}
	for _, k := range order {
		s.interactions = append(s.interactions, byInteraction[k])
	}
	if meta.MultiTurn {
		for range meta.EmptyInteractions {
			s.interactions = append(s.interactions, nil)
		}
	} else {
		s.interactions = [][]int{slicesOf(len(cases))}
	}
	return s, nil
}

// verdict is the execution verdict an item line records.
func (it *Item) verdict() qeval.Verdict {
	v := qeval.Verdict{Outcome: it.Outcome, Mode: it.Mode, Candidates: it.Candidates, CandidateCapHit: it.CapHit, OriginalMatch: it.ExecOriginal}
	if it.Exec != nil {
		v.Match = *it.Exec
	}
	if it.Error != nil {
		v.Error = *it.Error
	}
	if it.PredMS != nil {
		v.PredTime = time.Duration(*it.PredMS * float64(time.Millisecond))
	}
	if it.GoldMS != nil {
		v.GoldTime = time.Duration(*it.GoldMS * float64(time.Millisecond))
	}
	return v
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// slicesOf is 0…n-1.
func slicesOf(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}
