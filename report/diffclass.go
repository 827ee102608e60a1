package report

import (
	"maps"
	"slices"

	"github.com/qeval/qeval"
)

// ClassDelta is how one main error class changed between two runs, over the cases in
// both: Base and Head count the cases failing with it (their first class) in each run;
// Fixed those failing with it in base that pass in head, Broken those passing in base
// that fail with it in head.
type ClassDelta struct {
	Class  string `json:"class"`
	Base   int    `json:"base"`
	Head   int    `json:"head"`
	Fixed  int    `json:"fixed"`
	Broken int    `json:"broken"`
}

// classTally counts the classes of paired cases.
type classTally map[string]*ClassDelta

func (t classTally) get(class string) *ClassDelta {
	d := t[class]
	if d == nil {
		d = &ClassDelta{Class: class}
		t[class] = d
	}
	return d
}

func (t classTally) add(b, h *qeval.CaseResult) {
	bc, hc := mainClassOf(b), mainClassOf(h)
	if bc != "" {
		t.get(bc).Base++
		if h.Status == qeval.StatusPass {
			t.get(bc).Fixed++
		}
	}
	if hc != "" {
		t.get(hc).Head++
		if b.Status == qeval.StatusPass {
			t.get(hc).Broken++
		}
	}
}

// deltas lists the classes in vocabulary order, any other after them by name.
func (t classTally) deltas() []ClassDelta {
	names := slices.Clone(qeval.ErrorClassNames)
	for _, c := range slices.Sorted(maps.Keys(t)) {
		if !slices.Contains(names, c) {
			names = append(names, c)
		}
	}
	var out []ClassDelta
	for _, n := range names {
		if d := t[n]; d != nil {
			out = append(out, *d)
		}
	}
	return out
}

func mainClassOf(c *qeval.CaseResult) string {
	if c.Status == qeval.StatusPass {
		return ""
	}
	return qeval.MainErrorClass(c.ErrorClass)
}
