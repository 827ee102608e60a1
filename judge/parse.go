package judge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/qeval/qeval"
)

// errReply is the message of every reply that does not fit the tool's schema.
type errReply string

func (e errReply) Error() string { return string(e) }

// toolInput returns the structured answer of c: the tool call's arguments or, for
// servers that ignore a forced tool (some OpenAI-compatible ones), a JSON object the
// model wrote as text.
func toolInput(c *qeval.Completion, tool string) (json.RawMessage, error) {
	if len(bytes.TrimSpace(c.ToolInput)) > 0 {
		return c.ToolInput, nil
	}
	text := strings.TrimSpace(c.Text)
	text = strings.TrimPrefix(text, "```json")
	text = strings.TrimPrefix(text, "```")
	text = strings.TrimSuffix(text, "```")
	text = strings.TrimSpace(text)
	if strings.HasPrefix(text, "{") && json.Valid([]byte(text)) {
		return json.RawMessage(text), nil
	}
	if c.Text == "" {
		return nil, errReply("malformed reply: no " + tool + " tool call and no text")
	}
	return nil, errReply(fmt.Sprintf("malformed reply: no %s tool call (text: %q)", tool, truncate(c.Text, 120)))
}

// object decodes a tool input into its fields.
func object(raw json.RawMessage) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, errReply(fmt.Sprintf("malformed reply: tool input is not a JSON object: %s", truncate(string(raw), 120)))
	}
	return m, nil
}

func reasoning(m map[string]json.RawMessage) (string, error) {
	raw, ok := m["reasoning"]
	if !ok {
		return "", errReply("reply does not fit the schema: no \"reasoning\"")
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", errReply(fmt.Sprintf("reply does not fit the schema: \"reasoning\" is %s, want a string", truncate(string(raw), 60)))
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return "", errReply("reply does not fit the schema: \"reasoning\" is empty")
	}
	return s, nil
}

// verdictScores maps each verdict of query correctness to its score.
var verdictScores = map[string]float64{
	qeval.JudgeCorrect:          1.0,
	qeval.JudgePartiallyCorrect: 0.5,
	qeval.JudgeIncorrect:        0.0,
}

func parseVerdict(raw json.RawMessage) (string, float64, string, error) {
	m, err := object(raw)
	if err != nil {
		return "", 0, "", err
	}
	why, err := reasoning(m)
	if err != nil {
		return "", 0, "", err
	}
	var v string
	if err := json.Unmarshal(m["verdict"], &v); err != nil {
		return "", 0, "", errReply("reply does not fit the schema: \"verdict\" is missing or not a string")
	}
	// Accept "Partially correct" and "partially-correct" for partially_correct.
	norm := strings.NewReplacer(" ", "_", "-", "_").Replace(strings.ToLower(strings.TrimSpace(v)))
	score, ok := verdictScores[norm]
	if !ok {
		return "", 0, "", errReply(fmt.Sprintf("reply does not fit the schema: verdict %q is not one of correct, partially_correct, incorrect", truncate(v, 40)))
	}
	return norm, score, why, nil
}

func parseGrade(raw json.RawMessage) (string, float64, string, error) {
	m, err := object(raw)
	if err != nil {
		return "", 0, "", err
	}
	why, err := reasoning(m)
	if err != nil {
		return "", 0, "", err
	}
	s, ok := m["score"]
	if !ok {
		return "", 0, "", errReply("reply does not fit the schema: no \"score\"")
	}
	var score float64
	if err := json.Unmarshal(s, &score); err != nil {
		// Some models quote numbers: "0.8".
		var str string
		if json.Unmarshal(s, &str) != nil {
			return "", 0, "", errReply(fmt.Sprintf("reply does not fit the schema: \"score\" is %s, want a number", truncate(string(s), 40)))
		}
		if score, err = strconv.ParseFloat(strings.TrimSpace(str), 64); err != nil {
			return "", 0, "", errReply(fmt.Sprintf("reply does not fit the schema: \"score\" is %q, want a number", truncate(str, 40)))
		}
	}
	if math.IsNaN(score) || score < 0 || score > 1 {
		return "", 0, "", errReply(fmt.Sprintf("reply does not fit the schema: score %g is outside [0, 1]", score))
	}
	return "", score, why, nil
}
