package suite

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/qeval/qeval"
)

// A case's expected_query is one query or a list of acceptable ones (several golds):
// the case matches if any of them does. A list is read here, for every format; each
// problem names the item, from 1.

// setGolds sets c's golds from a list that was read whole (golds non-empty).
func setGolds(c *qeval.Case, golds []string) {
	c.ExpectedQuery, c.OtherGolds = golds[0], nil
	if len(golds) > 1 {
		c.OtherGolds = golds[1:]
	}
}

// jsonGolds reads the expected_query of a JSONL line: a string, a list of strings, or
// null (missing). The problems say what is wrong, without the file, line and case.
func jsonGolds(raw json.RawMessage) (golds []string, problems []string) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	switch raw[0] {
	case '"':
		var q string
		if err := json.Unmarshal(raw, &q); err != nil {
			return nil, []string{"field expected_query: " + err.Error()}
		}
		return []string{q}, nil
	case '[':
	default:
		return nil, []string{"field expected_query must be a string or a list of strings, not " + qeval.JSONValueKind(qeval.JSONKind(raw))}
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, []string{"field expected_query: " + err.Error()}
	}
	if len(items) == 0 {
		return nil, []string{emptyGoldList}
	}
	for i, it := range items {
		var q string
		if k := qeval.JSONKind(it); k != "string" {
			problems = append(problems, fmt.Sprintf("field expected_query: item %d must be a string (a query), not %s", i+1, qeval.JSONValueKind(k)))
		} else if json.Unmarshal(it, &q); strings.TrimSpace(q) == "" {
			problems = append(problems, fmt.Sprintf("field expected_query: item %d is empty", i+1))
		}
		golds = append(golds, q)
	}
	if len(problems) > 0 {
		return nil, problems
	}
	return golds, nil
}

const emptyGoldList = "field expected_query is an empty list: give at least one gold query"

// yamlGolds reads a case's expected_query given as a YAML (or JSON) list, reporting
// each problem at its item's line. ok is false when there was one.
func yamlGolds(n *yaml.Node, caseID string, p *problems) (golds []string, ok bool) {
	if len(n.Content) == 0 {
		p.add(n.Line, caseID, "%s", emptyGoldList)
		return nil, false
	}
	ok = true
	for i, it := range n.Content {
		switch {
		case it.Kind != yaml.ScalarNode || it.ShortTag() != "!!str":
			p.add(it.Line, caseID, "field expected_query: item %d must be a string (a query), not %s", i+1, yamlKind(it))
			ok = false
		case strings.TrimSpace(it.Value) == "":
			p.add(it.Line, caseID, "field expected_query: item %d is empty", i+1)
			ok = false
		}
		golds = append(golds, it.Value)
	}
	return golds, ok
}

// yamlKind names a YAML node's kind in JSON's words, with its article.
func yamlKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "an object (a mapping)"
	case yaml.SequenceNode:
		return "an array (a list)"
	case yaml.AliasNode:
		return "an alias"
	}
	switch n.ShortTag() {
	case "!!int", "!!float":
		return "a number"
	case "!!bool":
		return "a bool"
	case "!!null":
		return "null"
	}
	return "a " + strings.TrimPrefix(n.ShortTag(), "!!")
}

// withoutKey is a copy of the mapping node n without key's entry (n is not changed).
func withoutKey(n *yaml.Node, key string) *yaml.Node {
	out := *n
	out.Content = make([]*yaml.Node, 0, len(n.Content))
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value != key {
			out.Content = append(out.Content, n.Content[i], n.Content[i+1])
		}
	}
	return &out
}
