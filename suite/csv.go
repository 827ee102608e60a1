package suite

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/qeval/qeval"
)

// CSV columns: id, question, expected_query, expected_tables, expected_columns,
// should_pass, tags, database, generated_query, confidence, safety_valid, is_valid,
// validator_errors. List cells separate items with ";" (or "|"). A case with several
// golds repeats the expected_query column, one gold per cell (empty cells are skipped).
var csvColumns = map[string]bool{
	"id": true, "question": true, "expected_query": true, "expected_tables": true, "expected_columns": true,
	"should_pass": true, "tags": true, "database": true, "generated_query": true, "confidence": true,
	"safety_valid": true, "is_valid": true, "validator_errors": true,
}

func parseCSV(data []byte, p *problems, defaults qeval.Suite) *qeval.Suite {
	s := defaults
	s.Cases = nil
	if err := eachCSV(bytes.NewReader(data), p, func(c qeval.Case) error {
		s.Cases = append(s.Cases, c)
		return nil
	}); err == errNoHeader {
		return nil
	}
	return &s
}

// errNoHeader is eachCSV's answer to a file without a header row (a problem it added).
var errNoHeader = errors.New("no header row")

// eachCSV reads a CSV suite's cases from r, a row each after the header row, and calls
// fn with each; a row that cannot be read is a problem and is skipped. It returns fn's
// first error, or errNoHeader.
func eachCSV(in io.Reader, p *problems, fn func(c qeval.Case) error) error {
	r := csv.NewReader(in)
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err != nil {
		p.add(1, "", "no header row: %v", err)
		return errNoHeader
	}
	col := map[string]int{}
	var goldCols []int // every expected_query column, in order
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
		if !csvColumns[h] {
			p.add(1, "", "unknown column %q (known: %s)", h, sortedKeys(csvColumns))
			continue
		}
		col[h] = i
		if h == "expected_query" {
			goldCols = append(goldCols, i)
		}
	}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			// FieldPos is only defined after a successful Read; a parse error has its line
			var pe *csv.ParseError
			line := 0
			if errors.As(err, &pe) {
				line = pe.StartLine
			}
			p.add(line, "", "%v", err)
			continue
		}
		line, _ := r.FieldPos(0)
		get := func(name string) string {
			if i, ok := col[name]; ok && i < len(rec) {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		c := qeval.Case{Line: line, ID: get("id"), Question: get("question"),
			ExpectedTables: list(get("expected_tables")), ExpectedColumns: list(get("expected_columns")),
			Tags: list(get("tags")), Database: get("database")}
		var golds []string
		for _, i := range goldCols {
			if i < len(rec) && strings.TrimSpace(rec[i]) != "" {
				golds = append(golds, strings.TrimSpace(rec[i]))
			}
		}
		if len(golds) > 0 {
			setGolds(&c, golds)
		}
		boolCell := func(name string) *bool {
			v := get(name)
			if v == "" {
				return nil
			}
			b, err := strconv.ParseBool(strings.ToLower(v))
			if err != nil {
				p.add(line, c.ID, "column %s: %q is not true or false", name, v)
				return nil
			}
			return &b
		}
		c.ShouldPass = boolCell("should_pass")
		if g := get("generated_query"); g != "" {
			c.GeneratedQuery = &g
		}
		if v := get("confidence"); v != "" {
			conf, ok := qeval.ParseConfidence(v)
			if !ok {
				p.add(line, c.ID, "confidence %q must be high, medium, low or a number in [0,1]", v)
			} else {
				c.Confidence = &conf
			}
		}
		sv, iv, errs := boolCell("safety_valid"), boolCell("is_valid"), list(get("validator_errors"))
		if sv != nil || iv != nil || len(errs) > 0 {
			c.Validator = &qeval.ValidatorFlags{SafetyValid: sv, IsValid: iv, Errors: errs}
		}
		if err := fn(c); err != nil {
			return err
		}
	}
}

func list(cell string) []string {
	if cell == "" {
		return nil
	}
	sep := ";"
	if !strings.Contains(cell, ";") && strings.Contains(cell, "|") {
		sep = "|"
	}
	var out []string
	for _, x := range strings.Split(cell, sep) {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}
