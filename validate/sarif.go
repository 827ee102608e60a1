package validate

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
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

// The SARIF 2.1.0 log, as much of it as qeval fills: written with encoding/json (a
// SARIF library would be initialised at every start of qeval, with the JSON-schema
// validator it brings). The tests validate the output against the schema.
type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool             sarifTool     `json:"tool"`
		Language         string        `json:"language"`
		NewlineSequences []string      `json:"newlineSequences"`
		Results          []sarifResult `json:"results"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name           string      `json:"name"`
		Language       string      `json:"language"`
		Version        string      `json:"version"`
		InformationURI string      `json:"informationUri"`
		Rules          []sarifRule `json:"rules"`
	}
	sarifRule struct {
		ID                   string        `json:"id"`
		Name                 string        `json:"name"`
		ShortDescription     sarifText     `json:"shortDescription"`
		DefaultConfiguration *sarifDefault `json:"defaultConfiguration,omitempty"`
	}
	sarifDefault struct {
		Level string `json:"level"`
	}
	sarifText struct {
		Text string `json:"text"`
	}
	sarifResult struct {
		RuleID    string          `json:"ruleId"`
		RuleIndex int             `json:"ruleIndex"`
		Level     string          `json:"level"`
		Message   sarifText       `json:"message"`
		Locations []sarifLocation `json:"locations"`
	}
	sarifLocation struct {
		PhysicalLocation struct {
			ArtifactLocation struct {
				URI string `json:"uri"`
			} `json:"artifactLocation"`
			Region sarifRegion `json:"region"`
		} `json:"physicalLocation"`
	}
	sarifRegion struct {
		StartLine   int `json:"startLine"`
		StartColumn int `json:"startColumn,omitempty"`
	}
)

// WriteSARIF writes the problems and warnings of the verdicts as a SARIF 2.1.0 log, the
// format code-scanning tools read: one result per problem, at the query's line (and at
// the problem's column when the query is one line), with the rules that found them.
func WriteSARIF(w io.Writer, version string, items []Located) error {
	driver := sarifDriver{Name: "qeval validate", Language: "en-US", Version: version, InformationURI: "https://github.com/qeval/qeval"}
	for _, r := range KQLRules {
		driver.Rules = append(driver.Rules, sarifRule{ID: r.ID, Name: r.Name, ShortDescription: sarifText{r.Description},
			DefaultConfiguration: &sarifDefault{r.Level}})
	}
	for _, cat := range []string{Syntax, Schema, Safety, Other} {
		driver.Rules = append(driver.Rules, sarifRule{ID: categoryRules[cat], Name: cat,
			ShortDescription: sarifText{"a " + cat + " problem found by the SQL checks"}})
	}
	run := sarifRun{Tool: sarifTool{driver}, Language: "en-US", NewlineSequences: []string{"\r\n", "\n"}, Results: []sarifResult{}}
	for _, it := range items {
		for _, p := range append(append([]Problem{}, it.Problems...), it.Warnings...) {
			run.Results = append(run.Results, sarifResultOf(&driver, it, p))
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(sarifLog{Schema: "https://raw.githubusercontent.com/oasis-tcs/sarif-spec/main/sarif-2.1/schema/sarif-schema-2.1.0.json", Version: "2.1.0", Runs: []sarifRun{run}})
}

// sarifResultOf is the result of the problem p of the query it, under its rule.
func sarifResultOf(driver *sarifDriver, it Located, p Problem) sarifResult {
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
	res := sarifResult{RuleID: id, RuleIndex: slices.IndexFunc(driver.Rules, func(r sarifRule) bool { return r.ID == id }),
		Level: level, Message: sarifText{p.Message}, Locations: make([]sarifLocation, 1)}
	loc := &res.Locations[0].PhysicalLocation
	loc.ArtifactLocation.URI = it.File
	loc.Region.StartLine = max(it.Line, 1)
	switch {
	case p.Line > 1:
		res.Message.Text = fmt.Sprintf("%s (query line %d, column %d)", p.Message, p.Line, p.Col)
	case p.Col > 0:
		loc.Region.StartColumn = p.Col
	}
	return res
}
