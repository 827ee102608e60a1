package kql

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/qeval/qeval/internal/testdata"
)

// TestLiteralCoverage checks, on every corpus query, that each literal token of the
// text (strings, numbers, time spans, typed literals) lies inside a literal node of the
// tree: nothing the query says is dropped on the floor. It is an internal test because
// it needs the lexer's tokens.
func TestLiteralCoverage(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "shared", "data", "kql")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("shared KQL data not found at %s: %v", dir, err)
	}
	if err := testdata.CheckShared(filepath.Dir(dir)); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"samples/community_samples.jsonl":   "kql",
		"samples/stormevents_queries.jsonl": "kql",
		"nl2kql/Defender_Evaluation.jsonl":  "baseline",
		"oracle/docs_emulator_cases.jsonl":  "kql",
	}
	for path, field := range files {
		f, err := os.Open(filepath.Join(dir, path))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for line := 1; sc.Scan(); line++ {
			var rec map[string]any
			if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
				t.Fatalf("%s:%d: %v", path, line, err)
			}
			src, _ := rec[field].(string)
			if msg := uncoveredLiteral(src); msg != "" {
				t.Errorf("%s:%d: %s", path, line, msg)
			}
			if msg := lostIdent(src); msg != "" {
				t.Errorf("%s:%d: %s", path, line, msg)
			}
		}
		f.Close()
	}
}

// uncoveredLiteral returns a description of the first literal token not inside a
// literal node, or "".
func uncoveredLiteral(src string) string {
	s, err := Parse(src)
	if err != nil {
		return ""
	}
	var spans []Span
	Inspect(s, func(n Node) bool {
		switch v := n.(type) {
		case *Literal, *Placeholder, *ObjectLit:
			spans = append(spans, Span{n.Pos(), n.End()})
		case *Ident:
			if v.Bracketed {
				spans = append(spans, Span{n.Pos(), n.End()})
			}
		}
		return true
	})
	toks, _ := lex(src)
	for _, tk := range toks {
		switch tk.kind {
		case tString, tLong, tReal, tTimespan, tTyped:
		default:
			continue
		}
		covered := false
		for _, sp := range spans {
			if sp.From <= tk.pos && tk.end <= sp.To {
				covered = true
				break
			}
		}
		if !covered {
			line, col := position(src, lineStarts(src), tk.pos)
			return "literal " + tk.text + " at " + itoa(line) + ":" + itoa(col) + " is not in the tree"
		}
	}
	return ""
}

// lostIdent returns a description of the first identifier of src that Format of the
// parsed tree no longer contains (by count), or "": the tree keeps every name.
func lostIdent(src string) string {
	s, err := Parse(src)
	if err != nil {
		return ""
	}
	count := func(text string) map[string]int {
		m := map[string]int{}
		toks, _ := lex(text)
		for i, tk := range toks {
			switch {
			case tk.kind == tIdent:
				m[strings.ToLower(tk.text)]++
			case tk.kind == tString && i > 0 && toks[i-1].text == "[" && toks[i+1].text == "]":
				m[strings.ToLower(tk.val)]++ // a bracketed name
			}
		}
		return m
	}
	out := count(Format(s))
	for name, n := range count(src) {
		if out[name] < n {
			return "identifier " + name + " appears " + itoa(n) + " times in the query, " + itoa(out[name]) + " in Format's output"
		}
	}
	return ""
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}
