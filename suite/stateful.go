package suite

import (
	"github.com/qeval/qeval"
)

// statefulFields are the fields of a stateful case read on their own (before the rest
// of the case), so that a bad value is a problem naming its field and, in YAML, its
// line.
var statefulFields = []string{"setup", "checks", "teardown", "compare_state"}

// decodeStateful decodes the value of one of statefulFields into c with dec (a YAML
// node's or a JSON value's decoder).
func decodeStateful(c *qeval.Case, key string, dec func(v any) error) error {
	switch key {
	case "setup":
		return dec(&c.Setup)
	case "checks":
		return dec(&c.Checks)
	case "teardown":
		return dec(&c.Teardown)
	}
	var sc qeval.StateCompare
	if err := dec(&sc); err != nil {
		return err
	}
	c.CompareState = &sc
	return nil
}

// keepStateful copies the fields decodeStateful read from src into dst.
func keepStateful(dst *qeval.Case, src qeval.Case) {
	dst.Setup, dst.Checks, dst.Teardown, dst.CompareState = src.Setup, src.Checks, src.Teardown, src.CompareState
}

func statefulProblem(p *problems, line int, id, key string, err error) {
	p.add(line, id, "field %s %s", key, qeval.ErrorMessage(err))
}
