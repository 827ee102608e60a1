package suite

import (
	"bufio"
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
	// stateful cases: a cell of statements each (checks: one query per statement),
	// compare_state all or tables separated by ";", compare_state_ordered and
	// compare_schema true or false, efficiency_max_ratio a number
	"setup": true, "checks": true, "compare_state": true, "compare_state_ordered": true, "compare_schema": true,
	"teardown": true, "efficiency_max_ratio": true, "stateful": true,
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

// eachCSV reads a CSV suite's cases from in, a row each after the header row, and calls
// fn with each; a row that cannot be read, or is longer than MaxCaseBytes, is a problem
// and is skipped. It returns fn's first error, or errNoHeader.
func eachCSV(in io.Reader, p *problems, fn func(c qeval.Case) error) error {
	recs := &csvRecords{r: bufio.NewReaderSize(in, 64<<10), max: MaxCaseBytes}
	h, err := readCSVHeader(recs, p)
	if err != nil {
		return err
	}
	for {
		rec, line, err := recs.read(p)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if rec == nil {
			continue // a row with a problem, or a blank line
		}
		if err := fn(h.csvCase(rec, line, p)); err != nil {
			return err
		}
	}
}

// csvHeader says where a CSV suite's known columns are, as its header row names them.
type csvHeader struct {
	col      map[string]int // a known column's position, by its lowercase name
	goldCols []int          // every expected_query column, in order
}

// readCSVHeader reads a CSV suite's header row, skipping blank lines before it. An
// unknown column is a problem and is left out; a header row that is missing or cannot
// be read is a problem too, and the error is then errNoHeader.
func readCSVHeader(recs *csvRecords, p *problems) (csvHeader, error) {
	var header []string
	line := 1 // the header's line: blank lines may come before it
	for header == nil {
		n := len(p.list)
		rec, at, err := recs.read(p)
		if err != nil {
			p.add(line, "", "no header row: %v", err)
			return csvHeader{}, errNoHeader
		}
		if len(p.list) > n {
			return csvHeader{}, errNoHeader // the row that should be the header is a problem
		}
		header, line = rec, at
	}
	h := csvHeader{col: map[string]int{}}
	for i, name := range header {
		name = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(name, "\ufeff")))
		if !csvColumns[name] {
			p.add(line, "", "unknown column %q (known: %s)", name, sortedKeys(csvColumns))
			continue
		}
		h.col[name] = i
		if name == "expected_query" {
			h.goldCols = append(h.goldCols, i)
		}
	}
	return h, nil
}

// csvCase reads the case on one row of a CSV suite, the row that starts on line. A cell
// that cannot be read is a problem and is left out of the case.
func (h csvHeader) csvCase(rec []string, line int, p *problems) qeval.Case {
	get := func(name string) string {
		if i, ok := h.col[name]; ok && i < len(rec) {
			return strings.TrimSpace(rec[i])
		}
		return ""
	}
	c := qeval.Case{Line: line, ID: get("id"), Question: get("question"),
		ExpectedTables: list(get("expected_tables")), ExpectedColumns: list(get("expected_columns")),
		Tags: list(get("tags")), Database: get("database")}
	var golds []string
	for _, i := range h.goldCols {
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
	csvStateful(&c, get, boolCell, line, p)
	return c
}

// csvStateful reads the stateful columns of a row into c.
func csvStateful(c *qeval.Case, get func(string) string, boolCell func(string) *bool, line int, p *problems) {
	stmts := func(name string) qeval.Statements {
		if v := get(name); v != "" {
			return qeval.Statements{v}
		}
		return nil
	}
	c.Setup, c.Checks, c.Teardown = stmts("setup"), stmts("checks"), stmts("teardown")
	if v := get("compare_state"); v != "" {
		sc := &qeval.StateCompare{Tables: list(v)}
		if strings.EqualFold(v, "all") {
			sc = &qeval.StateCompare{All: true}
		}
		if o := boolCell("compare_state_ordered"); o != nil {
			sc.Ordered = *o
		}
		c.CompareState = sc
	} else if get("compare_state_ordered") != "" {
		p.add(line, c.ID, "column compare_state_ordered without compare_state (all, or tables separated by ;)")
	}
	if b := boolCell("compare_schema"); b != nil {
		c.CompareSchema = *b
	}
	if b := boolCell("stateful"); b != nil {
		c.IsStateful = *b
	}
	if v := get("efficiency_max_ratio"); v != "" {
		r, err := strconv.ParseFloat(v, 64)
		if err != nil {
			p.add(line, c.ID, "column efficiency_max_ratio: %q is not a number", v)
			return
		}
		c.Efficiency = &qeval.Efficiency{MaxRatio: r}
	}
}

// csvRecords cuts CSV text into records before encoding/csv parses each: that one holds
// a record whole however long (a 200 MB field cost 1 GB before its case was refused),
// these keep at most max bytes of one and read past the rest. A record ends at a line
// end outside quotes; a quote opens a quoted field only where the field starts, as
// encoding/csv has it.
type csvRecords struct {
	r    *bufio.Reader
	max  int
	line int // lines read so far
	buf  []byte
}

// csv field states, as the record is cut
const (
	fieldStart = iota
	unquoted
	quoted
	quoteInQuoted // a quote in a quoted field: its end, or the first of two
)

// read returns the next record parsed and the line it starts on; a record that cannot
// be parsed, or is too long, is a problem and comes back nil, as does a blank line. The
// error is io.EOF at the end, or a read error.
func (s *csvRecords) read(p *problems) ([]string, int, error) {
	start := s.line + 1
	b, tooLong, state := s.buf[:0], false, fieldStart
	for {
		chunk, err := s.r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			err = nil
		} else if err != nil && !errors.Is(err, io.EOF) {
			return nil, start, err
		}
		for _, c := range chunk {
			switch {
			case c == '\n':
			case state == fieldStart && c == '"':
				state = quoted
			case state == quoted && c == '"':
				state = quoteInQuoted
			case state == quoteInQuoted && c == '"':
				state = quoted
			case state == quoted:
			case c == ',':
				state = fieldStart
			default:
				state = unquoted
			}
		}
		if len(b)+len(chunk) > s.max {
			tooLong = true
		}
		if !tooLong {
			if len(b)+len(chunk) > cap(b) { // twice as large: append grows a large slice by a quarter
				b = append(make([]byte, 0, max(2*cap(b), len(b)+len(chunk))), b...)
			}
			b = append(b, chunk...)
		}
		ended := len(chunk) > 0 && chunk[len(chunk)-1] == '\n'
		if ended {
			s.line++
		}
		if err != nil && len(b) == 0 && !tooLong {
			return nil, start, io.EOF
		}
		if (ended && state != quoted) || err != nil {
			break
		}
	}
	s.buf = b
	if tooLong {
		p.add(start, "", "the row is longer than %d bytes: a case is at most that (its queries at most %d)", s.max, qeval.DefaultMaxQueryBytes)
		return nil, start, nil
	}
	r := csv.NewReader(bytes.NewReader(b))
	r.FieldsPerRecord = -1
	rec, err := r.Read()
	if errors.Is(err, io.EOF) {
		return nil, start, nil
	}
	if err != nil {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			pe.StartLine += start - 1
			pe.Line += start - 1
			p.add(pe.StartLine, "", "%v", pe)
		} else {
			p.add(start, "", "%v", err)
		}
		return nil, start, nil
	}
	return rec, start, nil
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
