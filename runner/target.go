package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/qeval/qeval/internal/lines"
	"github.com/qeval/qeval/internal/proclimit"

	"github.com/qeval/qeval"
)

// Output is what the system under test answered for one case.
type Output struct {
	Query      string                `json:"query"`
	Confidence *qeval.Confidence     `json:"confidence,omitempty"`
	Validator  *qeval.ValidatorFlags `json:"validator,omitempty"`
}

// Request is what qeval sends to a command or HTTP target for one case. The expected
// query is never sent.
type Request struct {
	ID       string   `json:"id"`
	Question string   `json:"question"`
	Dialect  string   `json:"dialect"`
	Database string   `json:"database,omitempty"`
	Tags     []string `json:"tags,omitempty"`
	// MalloyModel is, in a Malloy suite, the model the answer is written against: its
	// files (absolute paths) and the database its sources read.
	MalloyModel *qeval.MalloyModel `json:"malloy_model,omitempty"`
}

// Target produces the generated query of a case.
type Target interface {
	// Kind is "inline", "predictions", "command" or "url".
	Kind() string
	// Generate answers one case. It is safe for concurrent use and honours ctx.
	Generate(ctx context.Context, s *qeval.Suite, c qeval.Case) (Output, error)
}

// NewTarget builds the target a suite's `target:` (or the command line) describes: a
// predictions file, a command or an HTTP endpoint; nil or an empty target reads the
// cases themselves. Relative paths (the predictions file, the command and its working
// folder) are taken from dir ("" for the current folder).
func NewTarget(t *qeval.Target, dir string) (Target, error) {
	if t == nil {
		return Inline{}, nil
	}
	rel := func(p string) string {
		if dir == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(dir, p)
	}
	switch {
	case t.Predictions != "":
		return LoadPredictions(rel(t.Predictions))
	case len(t.Command) > 0:
		return &Command{Argv: t.Command, Timeout: time.Duration(t.Timeout), Dir: dir}, nil
	case t.URL != "":
		return &HTTP{URL: t.URL, Headers: t.Headers, Timeout: time.Duration(t.Timeout)}, nil
	}
	return Inline{}, nil
}

// Inline reads the generated query from the case itself.
type Inline struct{}

func (Inline) Kind() string { return "inline" }

func (Inline) Generate(_ context.Context, _ *qeval.Suite, c qeval.Case) (Output, error) {
	if c.GeneratedQuery == nil {
		return Output{}, &qeval.Error{Code: qeval.CodeInvalid, Message: "no generated_query in the case and no target configured",
			Hint: "add generated_query to the case, or run with --predictions, --target-command or --target-url"}
	}
	return Output{Query: *c.GeneratedQuery, Confidence: c.Confidence, Validator: c.Validator}, nil
}

// Predictions reads generated queries from a file: JSONL objects with "id" and "query"
// (or "generated_query", and optionally "confidence" and "validator"), or plain text
// with one query per line in case order. A JSONL file overlays the suite: a case it
// does not name keeps its own generated_query (and is an error only without one).
type Predictions struct {
	byID   map[string]Output
	byLine []Output
	path   string
	// position of each case of the suite indexed, for predictions by line (built once
	// per suite: a search per case was quadratic in the suite's size)
	mu       sync.Mutex
	indexed  *qeval.Suite
	position map[string]int
}

// LoadPredictions reads a predictions file.
func LoadPredictions(path string) (*Predictions, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeNotFound, Op: "open predictions " + path, Message: "no such file", Err: err}
	}
	p := &Predictions{path: path}
	sc := lines.New(bytes.NewReader(data))
	jsonl := strings.HasSuffix(strings.ToLower(path), ".jsonl")
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if !jsonl {
			p.byLine = append(p.byLine, Output{Query: text})
			continue
		}
		if text == "" {
			continue
		}
		var rec struct {
			ID             string                `json:"id"`
			Query          *string               `json:"query"`
			GeneratedQuery *string               `json:"generated_query"`
			Confidence     *qeval.Confidence     `json:"confidence"`
			Validator      *qeval.ValidatorFlags `json:"validator"`
		}
		if err := json.Unmarshal([]byte(text), &rec); err != nil {
			return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: fmt.Sprintf("read predictions %s:%d", path, line), Message: err.Error()}
		}
		q := rec.Query
		if q == nil {
			q = rec.GeneratedQuery
		}
		if rec.ID == "" || q == nil {
			return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: fmt.Sprintf("read predictions %s:%d", path, line), Message: `each line needs "id" and "query"`}
		}
		if p.byID == nil {
			p.byID = map[string]Output{}
		}
		p.byID[rec.ID] = Output{Query: *q, Confidence: rec.Confidence, Validator: rec.Validator}
	}
	return p, nil
}

func (p *Predictions) Kind() string { return "predictions" }

func (p *Predictions) Generate(_ context.Context, s *qeval.Suite, c qeval.Case) (Output, error) {
	if p.byID != nil {
		if o, ok := p.byID[c.ID]; ok {
			return o, nil
		}
		if c.GeneratedQuery != nil {
			return Inline{}.Generate(context.Background(), s, c)
		}
		return Output{}, &qeval.Error{Code: qeval.CodeNotFound, Message: fmt.Sprintf("no prediction for case %q in %s, and no generated_query in the case", c.ID, p.path)}
	}
	p.mu.Lock()
	if p.indexed != s {
		position := make(map[string]int, s.NumCases())
		err := s.EachCase(func(i int, c qeval.Case) error {
			if _, dup := position[c.ID]; !dup {
				position[c.ID] = i
			}
			return nil
		})
		if err != nil {
			p.mu.Unlock()
			return Output{}, err
		}
		p.indexed, p.position = s, position
	}
	i, ok := p.position[c.ID]
	p.mu.Unlock()
	if !ok {
		return Output{}, &qeval.Error{Code: qeval.CodeNotFound, Message: "case " + c.ID + " not in the suite"}
	}
	if i < len(p.byLine) {
		return p.byLine[i], nil
	}
	return Output{}, &qeval.Error{Code: qeval.CodeNotFound,
		Message: fmt.Sprintf("%s has %d lines; case %q is number %d", p.path, len(p.byLine), c.ID, i+1)}
}

// Command runs a program per case: the case as JSON (Request) on its stdin, an Output as
// JSON on its stdout, within Timeout.
type Command struct {
	Argv    []string
	Timeout time.Duration
	Dir     string
}

func (t *Command) Kind() string { return "command" }

func (t *Command) Generate(ctx context.Context, s *qeval.Suite, c qeval.Case) (Output, error) {
	if len(t.Argv) == 0 {
		return Output{}, &qeval.Error{Code: qeval.CodeInvalid, Message: "target command is empty"}
	}
	ctx, cancel := context.WithTimeout(ctx, orDefault(t.Timeout))
	defer cancel()
	// the command is ended once its reply passes the cap: its output was read (and
	// dropped) until its timeout, and a command that writes without end kept a CPU busy
	// writing for a minute per case
	run, end := context.WithCancel(ctx)
	defer end()
	body, _ := json.Marshal(request(s, c))
	cmd := proclimit.Command(run, t.Argv[0], t.Argv[1:]...)
	cmd.Dir = t.Dir
	cmd.Stdin = bytes.NewReader(body)
	var stdout, stderr bytes.Buffer
	reply := &capped{w: &stdout, n: MaxTargetReplyBytes, over: end}
	cmd.Stdout, cmd.Stderr = reply, &limited{w: &stderr, n: 64 << 10}
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if ctx.Err() == context.DeadlineExceeded {
		return Output{}, &qeval.Error{Code: qeval.CodeTimeout, Message: fmt.Sprintf("target command %s timed out after %s", t.Argv[0], orDefault(t.Timeout))}
	}
	if reply.exceeded {
		return Output{}, &qeval.Error{Code: qeval.CodeTooLarge,
			Message: fmt.Sprintf("target command %s wrote more than %d bytes: it was ended and its reply dropped", t.Argv[0], MaxTargetReplyBytes)}
	}
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 500 {
			msg = msg[:500] + "…"
		}
		return Output{}, &qeval.Error{Code: qeval.CodeUnavailable, Message: fmt.Sprintf("target command %s: %v: %s", t.Argv[0], err, msg)}
	}
	return decodeOutput(stdout.Bytes(), "target command "+t.Argv[0])
}

// HTTP posts the case as JSON (Request) to URL and reads an Output as JSON.
type HTTP struct {
	URL     string
	Headers map[string]string
	Timeout time.Duration
	Client  *http.Client
}

func (t *HTTP) Kind() string { return "url" }

func (t *HTTP) Generate(ctx context.Context, s *qeval.Suite, c qeval.Case) (Output, error) {
	ctx, cancel := context.WithTimeout(ctx, orDefault(t.Timeout))
	defer cancel()
	body, _ := json.Marshal(request(s, c))
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.URL, bytes.NewReader(body))
	if err != nil {
		return Output{}, &qeval.Error{Code: qeval.CodeInvalid, Message: "target url: " + err.Error()}
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range t.Headers {
		req.Header.Set(k, os.ExpandEnv(v))
	}
	client := t.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return Output{}, &qeval.Error{Code: qeval.CodeTimeout, Message: fmt.Sprintf("target url %s timed out after %s", t.URL, orDefault(t.Timeout))}
		}
		return Output{}, &qeval.Error{Code: qeval.CodeUnavailable, Message: "target url: " + err.Error()}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(qeval.CapReader(resp.Body, MaxTargetReplyBytes, "the reply of target url "+t.URL))
	if qeval.ErrorCode(err) == qeval.CodeTooLarge {
		return Output{}, err
	}
	if err != nil {
		return Output{}, &qeval.Error{Code: qeval.CodeUnavailable, Message: "target url: read reply: " + err.Error()}
	}
	if resp.StatusCode/100 != 2 {
		snippet := strings.TrimSpace(string(data))
		if len(snippet) > 300 {
			snippet = snippet[:300] + "…"
		}
		return Output{}, &qeval.Error{Code: qeval.CodeUnavailable, Message: fmt.Sprintf("target url %s: %s: %s", t.URL, resp.Status, snippet)}
	}
	return decodeOutput(data, "target url "+t.URL)
}

func request(s *qeval.Suite, c qeval.Case) Request {
	db := c.Database
	if db == "" {
		db = s.Database
	}
	req := Request{ID: c.ID, Question: c.Question, Dialect: dialectOf(s), Database: db, Tags: c.Tags}
	if req.Dialect == qeval.DialectMalloy {
		if m := s.MalloyModelFor(c); m != nil {
			for i, f := range m.Files {
				if !filepath.IsAbs(f) && s.Path != "" {
					if abs, err := filepath.Abs(filepath.Join(filepath.Dir(s.Path), f)); err == nil {
						m.Files[i] = abs
					}
				}
			}
			req.MalloyModel = m
		}
	}
	return req
}

func decodeOutput(data []byte, who string) (Output, error) {
	var o Output
	if err := json.Unmarshal(bytes.TrimSpace(data), &o); err != nil {
		return Output{}, &qeval.Error{Code: qeval.CodeInvalid, Message: fmt.Sprintf("%s: reply is not JSON {\"query\": ...}: %v", who, err)}
	}
	if strings.TrimSpace(o.Query) == "" {
		return Output{}, &qeval.Error{Code: qeval.CodeInvalid, Message: who + `: reply has no "query"`}
	}
	return o, nil
}

// DefaultTargetTimeout bounds one target call.
const DefaultTargetTimeout = 60 * time.Second

// MaxTargetReplyBytes caps a target's reply (a command's stdout, an HTTP body): past
// it the reply is too_large, and a command is ended.
const MaxTargetReplyBytes = 16 << 20

func orDefault(d time.Duration) time.Duration {
	if d <= 0 {
		return DefaultTargetTimeout
	}
	return d
}

// capped writes at most n bytes to w; past them it calls over, once, and fails.
type capped struct {
	w        io.Writer
	n        int
	over     func()
	exceeded bool
}

func (c *capped) Write(p []byte) (int, error) {
	if len(p) > c.n {
		if !c.exceeded {
			c.exceeded = true
			c.over()
		}
		return 0, errReplyTooLarge
	}
	c.n -= len(p)
	return c.w.Write(p)
}

var errReplyTooLarge = errors.New("the reply is too large")

// limited writes at most n bytes to w and drops the rest.
type limited struct {
	w io.Writer
	n int
}

func (l *limited) Write(p []byte) (int, error) {
	k := len(p)
	if k > l.n {
		p = p[:l.n]
	}
	l.n -= len(p)
	l.w.Write(p)
	return k, nil
}

// TargetFlags name a target on the command line (they win over the suite's own).
type TargetFlags struct {
	Predictions, Command, URL string
	Timeout                   time.Duration
}

// BuildTarget picks where generated queries come from: a flag (paths from the
// current folder), else the suite's target (paths from the suite's folder), else the
// cases themselves.
func BuildTarget(s *qeval.Suite, f TargetFlags) (Target, error) {
	predictions, command, url, timeout := f.Predictions, f.Command, f.URL, f.Timeout
	var t qeval.Target
	dir := ""
	switch {
	case predictions != "" || command != "" || url != "":
		t = qeval.Target{Predictions: predictions, URL: url, Command: strings.Fields(command)}
		if s.Target != nil {
			t.Timeout = s.Target.Timeout
		}
	case s.Target != nil:
		t = *s.Target
		if s.Path != "" {
			dir = filepath.Dir(s.Path)
		}
	}
	if timeout > 0 {
		t.Timeout = qeval.Duration(timeout)
	}
	return NewTarget(&t, dir)
}
