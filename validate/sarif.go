package validate

import (
	"fmt"
	"io"
	"strings"

	"github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"
)

// Located is a verdict and where its query is: the input file and the 1-based line of
// the query in it.
type Located struct {
	File string
	Line int
	Verdict
}

// categoryRules are the rule ids of the problems that come without one (the SQL
// checks and syntax errors): one rule per category.
var categoryRules = map[string]string{
	Syntax: "syntax", Schema: "schema", Safety: "safety", Other: "other",
}

// WriteSARIF writes the problems and warnings of the verdicts as a SARIF 2.1.0 log, the
// format code-scanning tools read: one result per problem, at the query's line (and at
// the problem's column when the query is one line), with the rules that found them.
func WriteSARIF(w io.Writer, version string, items []Located) error {
	run := sarif.NewRunWithInformationURI("qeval validate", "https://github.com/qeval/qeval")
	run.Tool.Driver.Version = &version
	for _, r := range KQLRules {
		run.AddRule(r.ID).WithName(r.Name).
			WithShortDescription(sarif.NewMultiformatMessageString().WithText(r.Description)).
			WithDefaultConfiguration(sarif.NewReportingConfiguration().WithLevel(r.Level))
	}
	for _, cat := range []string{Syntax, Schema, Safety, Other} {
		run.AddRule(categoryRules[cat]).WithName(cat).
			WithShortDescription(sarif.NewMultiformatMessageString().WithText("a " + cat + " problem found by the SQL checks"))
	}
	for _, it := range items {
		for _, p := range append(append([]Problem{}, it.Problems...), it.Warnings...) {
			id, level := categoryRules[p.Category], LevelError
			if p.Rule != "" {
				id, _, _ = strings.Cut(p.Rule, " ")
			}
			if p.Level != "" {
				level = p.Level
			}
			if id == "" {
				id = "other"
			}
			msg := p.Message
			region := sarif.NewRegion().WithStartLine(max(it.Line, 1))
			switch {
			case p.Line > 1:
				msg = fmt.Sprintf("%s (query line %d, column %d)", msg, p.Line, p.Col)
			case p.Col > 0:
				region.WithStartColumn(p.Col)
			}
			run.CreateResultForRule(id).WithLevel(level).
				WithMessage(sarif.NewTextMessage(msg)).
				AddLocation(sarif.NewLocationWithPhysicalLocation(sarif.NewPhysicalLocation().
					WithArtifactLocation(sarif.NewSimpleArtifactLocation(it.File)).
					WithRegion(region)))
		}
	}
	return sarif.NewReport().AddRun(run).PrettyWrite(w)
}
