package metric

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// WriteTable prints one line per metric, in table order: name, score (or skipped or
// error) and a short note.
func WriteTable(w io.Writer, results map[string]Result) {
	if why := generatedParseError(results); why != "" {
		fmt.Fprintf(w, "generated query does not parse: %s\n\n", why)
	}
	fmt.Fprintf(w, "%-20s %-8s %s\n", "METRIC", "SCORE", "NOTE")
	for _, name := range Names() {
		r, ok := results[name]
		if !ok {
			continue
		}
		score, note := "", ""
		switch {
		case r.Error != nil && r.Error.GeneratedQuery:
			score, note = "0.000", "the generated query does not parse"
		case r.Error != nil:
			score, note = "0.000", "ERROR: "+r.Error.Message
		case r.Skipped != nil:
			score, note = "skipped", *r.Skipped
		case r.Score != nil:
			score, note = strconv.FormatFloat(*r.Score, 'f', 3, 64), noteOf(name, r.Details)
		}
		fmt.Fprintf(w, "%-20s %-8s %s\n", name, score, oneLine(note))
	}
}

// noteOf summarises the details of a scored metric in a few words.
func noteOf(name string, d map[string]any) string {
	var parts []string
	add := func(label string, v any) {
		switch x := v.(type) {
		case nil:
		case string:
			if x != "" {
				parts = append(parts, label+x)
			}
		case []string:
			if len(x) > 0 {
				parts = append(parts, label+strings.Join(x, ", "))
			}
		case float64:
			parts = append(parts, label+strconv.FormatFloat(x, 'f', 2, 64))
		default:
			parts = append(parts, label+fmt.Sprint(x))
		}
	}
	switch name {
	case NameExecutionMatch:
		add("", d["outcome"])
		add("mode ", d["mode"])
		add("", d["error"])
	case NameTableAccuracy, NameSchemaMatch:
		add("missing: ", d["missing"])
		add("extra: ", d["extra"])
		if len(parts) == 0 {
			add("matched: ", d["matched"])
		}
	case NameSafetyValidation:
		add("", d["classification"])
		add("", d["warning"])
		add("", d["error"])
	case NameValidationAccuracy:
		add("", d["type"])
		add("category ", d["category"])
	case NameSemanticSimilarity:
		add("tables ", d["tables"])
		add("filters ", d["filters"])
		add("aggregations ", d["aggregations"])
	case NameResultsMatch:
		parts = append(parts, fmt.Sprintf("%v of %v expected rows found", d["matched"], d["expected_rows"]))
	default:
		add("", d["verdict"])
		add("", d["reasoning"])
	}
	if len(parts) == 0 {
		keys := make([]string, 0, len(d))
		for k := range d {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			add(k+" ", d[k])
		}
	}
	return strings.Join(parts, "; ")
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}
