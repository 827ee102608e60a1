package suite

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"github.com/qeval/qeval/internal/lines"

	"go.yaml.in/yaml/v3"

	"github.com/qeval/qeval"
)

// Options tell Load what else a suite may say. Parse looks at nothing but the data:
// databases are resolved by Check with a catalog.
type Options struct {
	// CheckMode, when set, reports whether a comparison mode name is known.
	CheckMode func(name string) error
	// Defaults fill what a cases-only file (JSONL, CSV) cannot say.
	Defaults qeval.Suite
	// SpiderDB is the database folder of a Spider examples file (dev.json).
	SpiderDB string
}

// Load reads a suite file: YAML (.yaml, .yml), JSON (.json), JSONL (.jsonl: one case
// per line) or CSV (.csv: a header row, then one case per row). Two benchmark formats
// are read natively: Spider's examples file (dev.json, with Options.SpiderDB) and
// NL2KQL's JSONL ({"context", "baseline"} per line). Every problem found is reported
// at once, each with its file:line and case id.
func Load(path string, opt Options) (*qeval.Suite, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeNotFound, Op: "open suite " + path, Message: "no such file", Err: err}
	}
	return Parse(path, data, opt)
}

// Parse reads a suite from data; name gives the format by its extension (.yaml, .yml,
// .json, .jsonl, .csv), names the suite in messages, and is the folder relative
// database paths are resolved against.
func Parse(name string, data []byte, opt Options) (*qeval.Suite, error) {
	path := name
	p := &problems{file: path}
	var s *qeval.Suite
	switch ext := strings.ToLower(filepath.Ext(path)); {
	case ext == ".json" && isSpiderJSON(data):
		s = parseSpider(data, p, opt)
	case ext == ".yaml" || ext == ".yml" || ext == ".json":
		s = parseDocument(data, p)
	case ext == ".jsonl" && isNL2KQL(data):
		s = parseNL2KQL(data, p, opt)
	case ext == ".jsonl" && isCritic(data):
		s = parseCritic(data, p, opt)
	case ext == ".jsonl":
		s = parseJSONL(data, p, opt.Defaults)
	case ext == ".csv":
		s = parseCSV(data, p, opt.Defaults)
	default:
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "open suite " + path,
			Message: "unknown suite format " + filepath.Ext(path), Hint: "use .yaml, .yml, .json, .jsonl or .csv"}
	}
	if s == nil {
		return nil, p.err()
	}
	s.Path = path
	if s.Name == "" {
		s.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	check(s, p, opt)
	if len(p.list) > 0 {
		return nil, p.err()
	}
	return s, nil
}

// Dir is the folder a suite's relative paths (databases, predictions, commands) are
// taken from: the suite file's folder, or "" for a suite built in memory.
func Dir(s *qeval.Suite) string {
	if s.Path == "" {
		return ""
	}
	return filepath.Dir(s.Path)
}

// problems collects every problem of a suite file.
// MaxCaseBytes bounds one case of a JSONL or CSV suite (its line, its row): a longer
// one is a problem of the suite, read past rather than held. Queries are bounded at
// qeval.DefaultMaxQueryBytes when they run.
const MaxCaseBytes = 8 << 20

type problems struct {
	file string
	list []string
	// goldsBad holds the lines of the cases whose expected_query list was reported
	// (their golds are not "missing" too).
	goldsBad map[int]bool
}

func (p *problems) badGolds(line int) {
	if p.goldsBad == nil {
		p.goldsBad = map[int]bool{}
	}
	p.goldsBad[line] = true
}

func (p *problems) add(line int, caseID, format string, args ...any) {
	loc := p.file
	if line > 0 {
		loc = fmt.Sprintf("%s:%d", p.file, line)
	}
	if caseID != "" {
		loc += fmt.Sprintf(": case %q", caseID)
	}
	p.list = append(p.list, loc+": "+fmt.Sprintf(format, args...))
}

func (p *problems) err() error {
	n := len(p.list)
	noun := "problems"
	if n == 1 {
		noun = "problem"
	}
	return &qeval.Error{Code: qeval.CodeInvalid, Op: "load suite " + p.file,
		Message: fmt.Sprintf("%d %s:\n  - %s", n, noun, strings.Join(p.list, "\n  - ")),
		Hint:    "see docs/suites.md for the keys a suite may have"}
}

// yamlKeys returns the yaml keys of a struct type, for unknown-field checks.
func yamlKeys(v any) map[string]bool {
	keys := map[string]bool{}
	t := reflect.TypeOf(v)
	for i := 0; i < t.NumField(); i++ {
		tag := strings.Split(t.Field(i).Tag.Get("yaml"), ",")[0]
		if tag != "" && tag != "-" {
			keys[tag] = true
		}
	}
	return keys
}

var (
	suiteKeys     = yamlKeys(qeval.Suite{})
	caseKeys      = yamlKeys(qeval.Case{})
	validatorKeys = yamlKeys(qeval.ValidatorFlags{})
	judgeKeys     = yamlKeys(qeval.JudgeConfig{})
	targetKeys    = yamlKeys(qeval.Target{})
	malloyKeys    = yamlKeys(qeval.MalloyModel{})
)

func sortedKeys(m map[string]bool) string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// checkKeys reports keys of a mapping node that are not in known.
func checkKeys(n *yaml.Node, known map[string]bool, what, caseID string, p *problems) {
	if n == nil || n.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if !known[k.Value] {
			p.add(k.Line, caseID, "unknown %s field %q (known: %s)", what, k.Value, sortedKeys(known))
		}
	}
}

func child(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// parseDocument reads a YAML or JSON suite (JSON is read by the YAML parser, which
// keeps line numbers).
func parseDocument(data []byte, p *problems) *qeval.Suite {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		line, msg := yamlSyntaxError(data, err)
		p.add(line, "", "%s", msg)
		return nil
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		p.add(0, "", "a suite is a mapping with name, defaults and cases")
		return nil
	}
	root := doc.Content[0]
	checkKeys(root, suiteKeys, "suite", "", p)
	checkKeys(child(root, "judge"), judgeKeys, "judge", "", p)
	checkKeys(child(root, "target"), targetKeys, "target", "", p)
	checkKeys(child(root, "malloy_model"), malloyKeys, "malloy_model", "", p)
	s := &qeval.Suite{}
	// decode everything but the cases, then each case on its own for its line number
	head := *root
	head.Content = nil
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value != "cases" {
			head.Content = append(head.Content, root.Content[i], root.Content[i+1])
		}
	}
	if err := head.Decode(s); err != nil {
		addDecodeError(p, "", err)
	}
	cases := child(root, "cases")
	if cases == nil {
		p.add(root.Line, "", "no cases: a suite needs a `cases:` list")
		return s
	}
	if cases.Kind != yaml.SequenceNode {
		p.add(cases.Line, "", "`cases` must be a list")
		return s
	}
	for i, cn := range cases.Content {
		if cn.Kind != yaml.MappingNode {
			p.add(cn.Line, "", "case %d is not a mapping", i+1)
			continue
		}
		s.Cases = append(s.Cases, documentCase(cn, p))
	}
	return s
}

// documentCase reads one case of a YAML or JSON suite from its mapping node cn. Its
// keys are checked; a list of golds and the stateful fields are read on their own, and
// the rest is decoded as usual. A problem is added to p, and the case keeps what could
// be read.
func documentCase(cn *yaml.Node, p *problems) qeval.Case {
	c := qeval.Case{Line: cn.Line}
	id := ""
	if idn := child(cn, "id"); idn != nil {
		id = idn.Value
	}
	checkKeys(cn, caseKeys, "case", id, p)
	checkKeys(child(cn, "validator"), validatorKeys, "validator", id, p)
	checkKeys(child(cn, "malloy_model"), malloyKeys, "malloy_model", id, p)
	var golds []string
	if gn := child(cn, "expected_query"); gn != nil && gn.Kind == yaml.SequenceNode {
		// several golds: read here, the rest of the case as usual
		var ok bool
		if golds, ok = yamlGolds(gn, id, p); !ok {
			golds = nil
			p.badGolds(cn.Line)
		}
		cn = withoutKey(cn, "expected_query")
	}
	var st qeval.Case
	for _, key := range statefulFields {
		if n := child(cn, key); n != nil && !(n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null") {
			if err := decodeStateful(&st, key, n.Decode); err != nil {
				statefulProblem(p, n.Line, id, key, err)
			}
			cn = withoutKey(cn, key)
		}
	}
	if err := cn.Decode(&c); err != nil {
		addDecodeError(p, id, err)
	}
	keepStateful(&c, st)
	if len(golds) > 0 {
		setGolds(&c, golds)
	}
	c.Line = cn.Line
	return c
}

func addDecodeError(p *problems, id string, err error) {
	var te *yaml.TypeError
	if ok := asTypeError(err, &te); ok {
		for _, e := range te.Errors {
			line := 0
			fmt.Sscanf(e, "line %d:", &line)
			msg := e
			if i := strings.Index(e, ": "); i >= 0 && line > 0 {
				msg = e[i+2:]
			}
			p.add(line, id, "%s", msg)
		}
		return
	}
	p.add(0, id, "%s", qeval.ErrorMessage(err))
}

func asTypeError(err error, te **yaml.TypeError) bool {
	t, ok := err.(*yaml.TypeError)
	if ok {
		*te = t
	}
	return ok
}

// parseJSONL reads one case per line; blank lines and lines starting with // are skipped.
// jsonCase is a case as a JSONL line holds it; its id may be a string or a number.
type jsonCase struct {
	qeval.Case
	ID json.RawMessage `json:"id"`
	// ExpectedQuery is one query or a list of them (jsonGolds).
	ExpectedQuery json.RawMessage `json:"expected_query"`
	// the stateful fields, read one by one (statefulFields)
	Setup        json.RawMessage `json:"setup"`
	Checks       json.RawMessage `json:"checks"`
	Teardown     json.RawMessage `json:"teardown"`
	CompareState json.RawMessage `json:"compare_state"`
}

// parseJSONCase reads one JSONL line with encoding/json (a YAML parser took 5× the
// memory of a long line and was slow on large suites): unknown keys and bad values are
// problems of that line; ok is false when the line is not a JSON object at all.
func parseJSONCase(line []byte, n int, p *problems) (qeval.Case, bool) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(line, &raw); err != nil {
		p.add(n, "", "not a JSON object: %s", strings.TrimPrefix(err.Error(), "json: "))
		return qeval.Case{}, false
	}
	var jc jsonCase
	err := json.Unmarshal(line, &jc)
	c := jc.Case
	if id := bytes.TrimSpace(jc.ID); len(id) > 0 && string(id) != "null" {
		if id[0] == '"' {
			json.Unmarshal(id, &c.ID)
		} else {
			c.ID = string(id) // a number, as written
		}
	}
	for _, key := range statefulFields {
		if v := bytes.TrimSpace(raw[key]); len(v) > 0 && string(v) != "null" {
			if err := decodeStateful(&c, key, func(x any) error { return json.Unmarshal(v, x) }); err != nil {
				statefulProblem(p, n, c.ID, key, err)
			}
		}
	}
	golds, bad := jsonGolds(jc.ExpectedQuery)
	if len(bad) > 0 {
		p.badGolds(n)
		for _, msg := range bad {
			p.add(n, c.ID, "%s", msg)
		}
	} else if len(golds) > 0 {
		setGolds(&c, golds)
	}
	var unknown []string
	for k := range raw {
		if !caseKeys[k] {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	for _, k := range unknown {
		p.add(n, c.ID, "unknown case field %q (known: %s)", k, sortedKeys(caseKeys))
	}
	if err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			p.add(n, c.ID, "field %s must be %s", strings.TrimPrefix(te.Field, "Case."), qeval.JSONTypeProblem(te))
		} else {
			p.add(n, c.ID, "%s", strings.TrimPrefix(qeval.ErrorMessage(err), "json: "))
		}
	}
	return c, true
}

func parseJSONL(data []byte, p *problems, defaults qeval.Suite) *qeval.Suite {
	s := defaults
	s.Cases = make([]qeval.Case, 0, bytes.Count(data, []byte("\n"))+1) // a case per line, at most
	eachJSONL(bytes.NewReader(data), p, func(c qeval.Case) error {
		s.Cases = append(s.Cases, c)
		return nil
	})
	return &s
}

// eachJSONL reads a JSONL suite's cases from r, one per line (blank lines and // comments
// skipped), and calls fn with each case it could read; a line that is no JSON object is
// a problem and is skipped. It returns fn's first error, or the reader's.
func eachJSONL(r io.Reader, p *problems, fn func(c qeval.Case) error) error {
	// lines reads past a line longer than its bound, and goes on: a bufio.Scanner
	// stopped at its buffer size and every case after a long line was silently
	// dropped; holding the line whole cost 1 GB for a line of 200 MB.
	sc := lines.NewMax(r, MaxCaseBytes)
	line := 0
	for sc.Scan() {
		line++
		if sc.TooLong() {
			p.add(line, "", "the line is longer than %d bytes: a case is at most that (its queries at most %d)", MaxCaseBytes, qeval.DefaultMaxQueryBytes)
			continue
		}
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 || bytes.HasPrefix(text, []byte("//")) {
			continue
		}
		c, ok := parseJSONCase(text, line, p)
		if !ok {
			continue
		}
		c.Line = line
		if err := fn(c); err != nil {
			return err
		}
	}
	return sc.Err()
}
