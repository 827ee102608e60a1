package report

import (
	"fmt"
	"strings"

	"github.com/qeval/qeval"
)

// htmlState is one thing a stateful case compared that differed: a check, a table (its
// rows added, removed and changed, in a table), the definitions or the cost.
type htmlState struct {
	Title, Note string
	Table       *htmlTable
}

// stateHTML is what differed of a stateful case's state, for the HTML report.
func stateHTML(s *qeval.StateVerdict) []htmlState {
	if s == nil {
		return nil
	}
	var out []htmlState
	for _, c := range s.Checks {
		switch {
		case c.Equal:
		case c.Error != "":
			out = append(out, htmlState{Title: fmt.Sprintf("Check %d: %s", c.Index, clip(c.Query, 200)), Note: "fails after the generated answer: " + c.Error})
		case c.Explanation != nil:
			out = append(out, htmlState{Title: fmt.Sprintf("Check %d: %s", c.Index, clip(c.Query, 200)), Note: c.Explanation.String()})
		}
	}
	for _, t := range s.Tables {
		if t.Equal {
			continue
		}
		st := htmlState{Title: fmt.Sprintf("Table %s (gold %d rows, generated %d)", t.Table, t.GoldRows, t.PredRows), Note: t.Note}
		if t.Note == "" {
			st.Note = fmt.Sprintf("%d added, %d removed, %d changed", t.AddedCount, t.RemovedCount, t.ChangedCount)
			if t.OtherOrder {
				st.Note = "the same rows in another order"
			}
			st.Table = diffTable(t)
		}
		out = append(out, st)
	}
	if len(s.Schema) > 0 {
		out = append(out, htmlState{Title: "Definitions", Note: strings.Join(s.Schema, "; ")})
	}
	if s.Result != nil && !s.Result.Equal {
		out = append(out, htmlState{Title: "Last results", Note: s.Result.String()})
	}
	if c := s.Cost; c != nil && !c.Within {
		out = append(out, htmlState{Title: "Cost", Note: c.String()})
	}
	return out
}

// diffTable shows a table's differing rows, each marked added, removed or changed.
func diffTable(t qeval.TableDiff) *htmlTable {
	out := &htmlTable{Columns: append([]string{""}, t.Columns...)}
	add := func(mark string, row []qeval.Value) {
		cells := []string{mark}
		for _, v := range row {
			cells = append(cells, clip(v.String(), 80))
		}
		out.Rows = append(out.Rows, cells)
	}
	for _, r := range t.Added {
		add("added", r)
	}
	for _, r := range t.Removed {
		add("removed", r)
	}
	for _, c := range t.Changed {
		add("gold", c.Gold)
		add("generated", c.Pred)
	}
	out.More = t.AddedCount - len(t.Added) + t.RemovedCount - len(t.Removed) + t.ChangedCount - len(t.Changed)
	return out
}
