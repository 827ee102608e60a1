package suite

import (
	"os"
	"strconv"
	"strings"

	"github.com/qeval/qeval"
)

// Component names of the composite score, the keys of `weights`.
var Components = []string{"schema_match", "semantic_similarity", "results_match", "llm_grading"}

// check reports what is wrong with a decoded suite; ids are filled in where missing.
func check(s *qeval.Suite, p *problems, opt Options) {
	switch strings.ToLower(s.Dialect) {
	case "", "sql", "sqlite", "kql":
	default:
		p.add(0, "", "unknown dialect %q (known: sql, kql)", s.Dialect)
	}
	if s.Mode != "" && opt.CheckMode != nil {
		if err := opt.CheckMode(s.Mode); err != nil {
			p.add(0, "", "%s", qeval.ErrorMessage(err))
		}
	}
	if s.Threshold != nil && (*s.Threshold < 0 || *s.Threshold > 1) {
		p.add(0, "", "threshold %v is outside [0, 1]", *s.Threshold)
	}
	known := map[string]bool{}
	for _, c := range Components {
		known[c] = true
	}
	for k, w := range s.Weights {
		if !known[k] {
			p.add(0, "", "unknown weight %q (known: %s)", k, strings.Join(Components, ", "))
		} else if w < 0 {
			p.add(0, "", "weight %s is negative", k)
		}
	}
	if s.Target != nil {
		n := 0
		for _, set := range []bool{s.Target.Predictions != "", len(s.Target.Command) > 0, s.Target.URL != ""} {
			if set {
				n++
			}
		}
		if n > 1 {
			p.add(0, "", "target: give one of predictions, command or url, not %d", n)
		}
		if s.Target.Predictions != "" {
			if _, err := os.Stat(ResolveDatabase(s, s.Target.Predictions, nil)); err != nil {
				p.add(0, "", "target predictions file %q not found", s.Target.Predictions)
			}
		}
	}
	if len(s.Cases) == 0 {
		p.add(0, "", "the suite has no cases")
	}
	checkDB := func(line int, id, name string) {
		if name == "" || opt.Connections[name] {
			return
		}
		path := ResolveDatabase(s, name, opt.Connections)
		if _, err := os.Stat(path); err != nil {
			p.add(line, id, "unknown database %q (no such file or folder %s, and no connection of that name)", name, path)
		}
	}
	checkDB(0, "", s.Database)
	ids := map[string]int{}
	for i := range s.Cases {
		c := &s.Cases[i]
		if strings.TrimSpace(c.ID) == "" {
			c.ID = strconv.Itoa(i + 1)
		}
		if first, dup := ids[c.ID]; dup {
			p.add(c.Line, c.ID, "duplicate id (first used on line %d)", first)
		} else {
			ids[c.ID] = c.Line
		}
		if strings.TrimSpace(c.ExpectedQuery) == "" {
			p.add(c.Line, c.ID, "missing expected_query")
		}
		checkDB(c.Line, c.ID, c.Database)
	}
}
