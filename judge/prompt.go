package judge

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"text/template"
	"unicode/utf8"

	"github.com/qeval/qeval"
)

//go:embed prompts
var promptFS embed.FS

// A prompt is one version of what the judge asks for a task: the system text, the
// template of the user message and the tool the model must call. Any change to one of
// them is a new version; old versions stay so that older runs can be reproduced.
type prompt struct {
	version string // task@n, recorded in every verdict and in the cache key
	system  string
	input   *template.Template
	tool    qeval.Tool
	parse   func(tool json.RawMessage) (verdict string, score float64, reasoning string, err error)
}

// The prompt versions in use.
const (
	QueryCorrectnessV1 = "query_correctness@1"
	LLMGradingV1       = "llm_grading@1"
)

var prompts = map[qeval.JudgeTask]*prompt{
	qeval.TaskQueryCorrectness: {
		version: QueryCorrectnessV1,
		system:  mustRead("prompts/query_correctness.v1.system.txt"),
		input:   inputV1,
		tool: qeval.Tool{
			Name:        "record_verdict",
			Description: "Record whether the generated query answers the request the way the reference query does.",
			Schema: json.RawMessage(`{"type":"object","properties":{` +
				`"reasoning":{"type":"string","description":"Two to five sentences naming the decisive difference, or why the queries are equivalent."},` +
				`"verdict":{"type":"string","enum":["correct","partially_correct","incorrect"]}},` +
				`"required":["reasoning","verdict"],"additionalProperties":false}`),
		},
		parse: parseVerdict,
	},
	qeval.TaskLLMGrading: {
		version: LLMGradingV1,
		system:  mustRead("prompts/llm_grading.v1.system.txt"),
		input:   inputV1,
		tool: qeval.Tool{
			Name:        "record_grade",
			Description: "Record how close the generated query comes to the reference query, from 0 to 1.",
			Schema: json.RawMessage(`{"type":"object","properties":{` +
				`"reasoning":{"type":"string","description":"Two to five sentences on the points that decided the score."},` +
				`"score":{"type":"number","minimum":0,"maximum":1}},` +
				`"required":["reasoning","score"],"additionalProperties":false}`),
		},
		parse: parseGrade,
	},
}

var inputV1 = template.Must(template.New("input.v1.tmpl").Option("missingkey=error").
	Parse(mustRead("prompts/input.v1.tmpl")))

func mustRead(name string) string {
	b, err := promptFS.ReadFile(name)
	if err != nil {
		panic(err) // embedded at build time; a missing file is a build mistake
	}
	return strings.TrimSpace(string(b))
}

// PromptVersion returns the version of the prompt used for task, or an error naming
// the known tasks.
func PromptVersion(task qeval.JudgeTask) (string, error) {
	p, err := promptFor(task)
	if err != nil {
		return "", err
	}
	return p.version, nil
}

func promptFor(task qeval.JudgeTask) (*prompt, error) {
	if p, ok := prompts[task]; ok {
		return p, nil
	}
	known := make([]string, 0, len(prompts))
	for t := range prompts {
		known = append(known, string(t))
	}
	sort.Strings(known)
	return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "judge",
		Message: fmt.Sprintf("unknown judge task %q (known: %s)", task, strings.Join(known, ", "))}
}

// Limits on what of a case goes into the prompt, so that one huge schema or result
// cannot blow the context window or the bill.
const (
	DefaultPreviewRows = 5     // rows of each result shown
	maxPreviewCols     = 20    // columns of each result shown
	maxCellRunes       = 80    // characters of one cell
	maxSchemaRunes     = 20000 // characters of the schema DDL
)

// render returns the user message for in.
func render(p *prompt, in qeval.JudgeInput, previewRows int) (string, error) {
	data := struct {
		Dialect, Question, Schema, Expected, Generated string
		ExpectedResult, GeneratedResult                string
	}{
		Dialect:   strings.TrimSpace(in.Dialect),
		Question:  strings.TrimSpace(in.Question),
		Schema:    truncate(strings.TrimSpace(in.Schema), maxSchemaRunes),
		Expected:  strings.TrimSpace(in.Expected),
		Generated: strings.TrimSpace(in.Generated),
	}
	if in.ExpectedResult != nil {
		data.ExpectedResult = preview(in.ExpectedResult, previewRows)
	}
	if in.GeneratedResult != nil {
		data.GeneratedResult = preview(in.GeneratedResult, previewRows)
	}
	var b bytes.Buffer
	if err := p.input.Execute(&b, data); err != nil {
		return "", &qeval.Error{Code: qeval.CodeInternal, Op: "judge: render prompt " + p.version, Err: err}
	}
	return strings.TrimSpace(b.String()), nil
}

// preview renders the first rows of r as a small pipe-separated table, saying how many
// rows there were in all.
func preview(r *qeval.ResultSet, rows int) string {
	var b strings.Builder
	cols := len(r.Columns)
	shownCols := min(cols, maxPreviewCols)
	for i := 0; i < shownCols; i++ {
		if i > 0 {
			b.WriteString(" | ")
		}
		b.WriteString(truncate(r.Columns[i].Name, maxCellRunes))
	}
	if shownCols < cols {
		fmt.Fprintf(&b, " | … (%d more columns)", cols-shownCols)
	}
	n := min(len(r.Rows), rows)
	for _, row := range r.Rows[:n] {
		b.WriteByte('\n')
		for i := 0; i < min(len(row), shownCols); i++ {
			if i > 0 {
				b.WriteString(" | ")
			}
			b.WriteString(truncate(strings.ReplaceAll(row[i].String(), "\n", " "), maxCellRunes))
		}
	}
	b.WriteByte('\n')
	switch {
	case len(r.Rows) == 0:
		b.WriteString("(no rows)")
	case n < len(r.Rows):
		b.WriteString("(first " + strconv.Itoa(n) + " of " + strconv.Itoa(len(r.Rows)) + " rows)")
	case n == 1:
		b.WriteString("(1 row)")
	default:
		b.WriteString("(" + strconv.Itoa(n) + " rows)")
	}
	return b.String()
}

func truncate(s string, maxRunes int) string {
	if utf8.RuneCountInString(s) <= maxRunes {
		return s
	}
	r := []rune(s)
	return string(r[:maxRunes]) + "…"
}

// cacheKey is the SHA-256 of everything that decides the answer: provider, model,
// prompt version and the rendered request.
func cacheKey(provider, model string, p *prompt, req qeval.CompletionRequest) string {
	h := sha256.New()
	b, _ := json.Marshal([]any{"qeval-judge", provider, model, p.version, req.System, req.Messages, req.Tool.Name, req.Tool.Schema, req.MaxTokens, req.Temperature})
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))
}

// PromptVersions names the prompts of both judge tasks, e.g.
// "query_correctness@1, llm_grading@1".
func PromptVersions() string {
	var out []string
	for _, t := range []qeval.JudgeTask{qeval.TaskQueryCorrectness, qeval.TaskLLMGrading} {
		if v, err := PromptVersion(t); err == nil {
			out = append(out, v)
		}
	}
	return strings.Join(out, ", ")
}
