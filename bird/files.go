package bird

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Separator joins a predicted query and its db_id in BIRD's prediction files.
const Separator = "\t----- bird -----\t"

// Prediction is one entry of a BIRD prediction file.
type Prediction struct {
	// Key is the entry's JSON key, the question index as text.
	Key string
	// SQL is the query as the official scripts take it: the text before Separator,
	// the whole value trimmed when it has no (or more than one) separator, and " " when
	// the value is not a string.
	SQL string
	// DBID is the text after Separator ("" when there is none); the official scripts
	// ignore it and use the gold line's db_id.
	DBID string
}

// Predictions is a prediction file in its file order, with what is wrong with it.
type Predictions struct {
	List []Prediction
	// Duplicates are keys given more than once; as in Python, the last value is kept
	// at the position of the first.
	Duplicates []string
}

// ReadPredictions reads the JSON object BIRD's generation scripts write: question
// index (as a string key) → "<sql>\t----- bird -----\t<db_id>". name labels errors.
func ReadPredictions(r io.Reader, name string) (*Predictions, error) {
	dec := json.NewDecoder(r)
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("read predictions %s: %w", name, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("read predictions %s: want a JSON object (question index → \"<sql>%s<db_id>\"), found %v",
			name, strings.ReplaceAll(Separator, "\t", `\t`), tok)
	}
	out := &Predictions{}
	at := map[string]int{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("read predictions %s: %w", name, err)
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("read predictions %s: key %q: %w", name, key, err)
		}
		p := parsePrediction(key, raw)
		if i, dup := at[key]; dup {
			out.Duplicates = append(out.Duplicates, key)
			out.List[i] = p
			continue
		}
		at[key] = len(out.List)
		out.List = append(out.List, p)
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("read predictions %s: %w", name, err)
	}
	return out, nil
}

func parsePrediction(key string, raw json.RawMessage) Prediction {
	var s string
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '"' || json.Unmarshal(t, &s) != nil {
		return Prediction{Key: key, SQL: " "}
	}
	parts := strings.Split(s, Separator)
	if len(parts) != 2 {
		return Prediction{Key: key, SQL: pyStrip(s)}
	}
	return Prediction{Key: key, SQL: parts[0], DBID: parts[1]}
}

// pyStrip trims what Python's str.strip() trims: Unicode white space.
func pyStrip(s string) string { return strings.TrimSpace(s) }

// Gold is one gold item.
type Gold struct {
	SQL        string
	DBID       string
	Difficulty string // simple, moderate, challenging, or "" when unknown
	// Err says why the line could not be read; the item is then a gold_error.
	Err error
}

// ReadGold reads gold items: BIRD's dev.sql / mini_dev_*.sql lines "<sql>\t<db_id>",
// or, when the file starts with '[' or '{', a dev.json array or mini_dev JSONL of
// objects with "SQL", "db_id" and "difficulty". A malformed line becomes an item with
// Err set (naming the file and line), so the others are still scored; an unreadable
// file is an error.
func ReadGold(r io.Reader, name string) ([]Gold, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read gold %s: %w", name, err)
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && (trimmed[0] == '[' || trimmed[0] == '{') {
		recs, err := readRecords(data, name)
		if err != nil {
			return nil, err
		}
		out := make([]Gold, len(recs))
		for i, rec := range recs {
			out[i] = Gold{SQL: rec.SQL, DBID: rec.DBID, Difficulty: rec.Difficulty, Err: rec.err}
			if rec.err == nil && rec.SQL == "" {
				out[i].Err = fmt.Errorf("%s: item %d: no \"SQL\" field", name, i)
			}
		}
		return out, nil
	}
	var out []Gold
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 64*1024*1024)
	line := 0
	for sc.Scan() {
		line++
		// As the official scripts: strip the line, then exactly one TAB.
		parts := strings.Split(pyStrip(sc.Text()), "\t")
		if len(parts) != 2 {
			out = append(out, Gold{Err: fmt.Errorf("%s:%d: want \"<sql><TAB><db_id>\", found %d TAB-separated fields", name, line, len(parts))})
			continue
		}
		out = append(out, Gold{SQL: parts[0], DBID: parts[1]})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read gold %s: %w", name, err)
	}
	return out, nil
}

// record is one object of a dev.json array or a mini_dev JSONL file.
type record struct {
	SQL        string `json:"SQL"`
	DBID       string `json:"db_id"`
	Difficulty string `json:"difficulty"`
	err        error
}

// readRecords reads a JSON array or JSON lines of objects. A line (or element) that
// does not decode becomes a record with err set.
func readRecords(data []byte, name string) ([]record, error) {
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '[' {
		var raws []json.RawMessage
		if err := json.Unmarshal(t, &raws); err != nil {
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
		out := make([]record, len(raws))
		for i, raw := range raws {
			if err := json.Unmarshal(raw, &out[i]); err != nil {
				out[i].err = fmt.Errorf("%s: item %d: %w", name, i, err)
			}
		}
		return out, nil
	}
	var out []record
	line := 0
	for _, l := range bytes.Split(data, []byte("\n")) {
		line++
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		var rec record
		if err := json.Unmarshal(l, &rec); err != nil {
			rec.err = fmt.Errorf("%s:%d: %w", name, line, err)
		}
		out = append(out, rec)
	}
	return out, nil
}

// ReadDifficulties reads the "difficulty" of each item from BIRD's dev.json (array) or
// mini_dev JSONL, in file order; an item without one gets "".
func ReadDifficulties(r io.Reader, name string) ([]string, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	recs, err := readRecords(data, name)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(recs))
	for i, rec := range recs {
		if rec.err != nil {
			return nil, rec.err
		}
		out[i] = rec.Difficulty
	}
	return out, nil
}
