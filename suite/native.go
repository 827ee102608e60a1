package suite

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/qeval/qeval/internal/lines"

	"github.com/qeval/qeval"
)

// spiderExample is one entry of Spider's dev.json / train.json, or of BIRD's dev.json
// (its gold in "SQL", its hint in "evidence").
type spiderExample struct {
	DBID     string `json:"db_id"`
	Question string `json:"question"`
	Query    string `json:"query"`
	// SQL is BIRD's gold; Spider's "sql" (its parsed form, an object) lands here too,
	// since encoding/json matches keys without case, so it is read only as a string.
	SQL      json.RawMessage `json:"SQL"`
	Evidence string          `json:"evidence"`
}

// isSpiderJSON reports whether data is a Spider examples file: a JSON array of objects
// with db_id, question and query.
func isSpiderJSON(data []byte) bool {
	t := bytes.TrimSpace(data)
	if len(t) == 0 || t[0] != '[' {
		return false
	}
	var probe []map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(t))
	if err := dec.Decode(&probe); err != nil || len(probe) == 0 {
		return false
	}
	_, a := probe[0]["db_id"]
	_, b := probe[0]["query"]
	_, c := probe[0]["SQL"]
	return a && (b || c)
}

// parseSpider reads Spider's examples file as a suite: one case per example (id = its
// 0-based index), the gold SQL as expected query, the database DBDIR/<db_id> (every
// .sqlite file there is a test-suite database), the db_id as a tag, and the official
// spider-ts comparison.
func parseSpider(data []byte, p *problems, opt Options) *qeval.Suite {
	if opt.SpiderDB == "" {
		p.add(0, "", "a Spider examples file needs the database folder (--spider-db DIR: DIR/<db_id>/<db_id>.sqlite)")
		return nil
	}
	var ex []spiderExample
	if err := json.Unmarshal(data, &ex); err != nil {
		p.add(0, "", "not a Spider examples file: %v", err)
		return nil
	}
	dbDir, _ := filepath.Abs(opt.SpiderDB)
	s := opt.Defaults
	s.Cases = nil
	if s.Mode == "" {
		s.Mode = qeval.OfficialMode
	}
	s.Dialect = "sql"
	for i, e := range ex {
		if e.Query == "" {
			json.Unmarshal(e.SQL, &e.Query) // a string, or left empty
		}
		if e.Evidence != "" {
			// BIRD's external knowledge is part of the question the system was given
			e.Question = strings.TrimSpace(e.Question + " Hint: " + e.Evidence)
		}
		if e.DBID == "" || e.Query == "" {
			p.add(0, strconv.Itoa(i), "example %d lacks db_id or query", i)
			continue
		}
		s.Cases = append(s.Cases, qeval.Case{ID: strconv.Itoa(i), Question: e.Question, ExpectedQuery: e.Query,
			Database: filepath.Join(dbDir, e.DBID), Tags: []string{e.DBID}})
	}
	return &s
}

// isNL2KQL reports whether data is NL2KQL's JSONL: objects with "context" (the
// question) and "baseline" (the gold KQL).
func isNL2KQL(data []byte) bool {
	line, _, _ := bytes.Cut(bytes.TrimSpace(data), []byte("\n"))
	var probe map[string]json.RawMessage
	if json.Unmarshal(line, &probe) != nil {
		return false
	}
	_, a := probe["context"]
	_, b := probe["baseline"]
	return a && b
}

// parseNL2KQL reads the NL2KQL benchmark's JSONL as a KQL suite: one case per line
// (id = its 1-based line number).
func parseNL2KQL(data []byte, p *problems, opt Options) *qeval.Suite {
	s := opt.Defaults
	s.Cases = nil
	s.Dialect = "kql"
	sc := lines.New(bytes.NewReader(data))
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		var rec struct {
			Context  string `json:"context"`
			Baseline string `json:"baseline"`
		}
		if err := json.Unmarshal([]byte(text), &rec); err != nil || rec.Baseline == "" {
			p.add(line, "", "want a JSON object with \"context\" and \"baseline\"%s", errSuffix(err))
			continue
		}
		s.Cases = append(s.Cases, qeval.Case{ID: strconv.Itoa(line), Question: strings.TrimSpace(rec.Context),
			ExpectedQuery: rec.Baseline, Line: line})
	}
	return &s
}

func errSuffix(err error) string {
	if err == nil {
		return ""
	}
	return fmt.Sprintf(" (%v)", err)
}
