package suite

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/internal/lines"
)

// Query is one query of a list of queries (qeval parse and validate): its line from 0,
// its text, and Err when the line held no query.
type Query struct {
	Index int
	Text  string
	Err   string
}

// ReadQueries reads a list of queries from r, named name in messages: one per line, or
// with jsonl the string field of each line's JSON object. Every line is an entry,
// blank ones too, so output lines stay aligned with input lines; a JSONL line without
// the field is an entry whose Err names the line.
func ReadQueries(r io.Reader, name string, jsonl bool, field string) ([]Query, error) {
	sc := lines.New(r)
	var out []Query
	for i := 0; sc.Scan(); i++ {
		q := Query{Index: i, Text: strings.TrimSuffix(sc.Text(), "\r")}
		if jsonl {
			q.Text, q.Err = jsonField(q.Text, field)
			if q.Err != "" {
				q.Err = fmt.Sprintf("%s:%d: %s", name, i+1, q.Err)
			}
		}
		out = append(out, q)
	}
	if err := sc.Err(); err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "read " + name, Message: err.Error(), Err: err}
	}
	return out, nil
}

// jsonField is the string field of a JSON object line, or why there is none.
func jsonField(line, field string) (string, string) {
	var obj map[string]any
	if err := json.Unmarshal([]byte(line), &obj); err != nil {
		return "", "not a JSON object: " + err.Error()
	}
	s, ok := obj[field].(string)
	if !ok {
		return "", fmt.Sprintf("no string field %q", field)
	}
	return s, ""
}
