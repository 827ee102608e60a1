package malloy

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/qeval/qeval"
)

// maxLine bounds one line of the protocol (a compiled query with its description).
const maxLine = 64 << 20

// message is one line of the protocol, either way: a request or its reply (id), a
// question of the bridge (ask) or its answer.
type message struct {
	ID     int    `json:"id,omitempty"`
	Op     string `json:"op,omitempty"`
	Ask    int    `json:"ask,omitempty"`
	Answer int    `json:"answer,omitempty"`

	// requests
	Model   string     `json:"model,omitempty"`
	Dialect string     `json:"dialect,omitempty"`
	Files   []fileText `json:"files,omitempty"`
	Query   string     `json:"query,omitempty"`
	Warm    bool       `json:"warm,omitempty"` // hello: warm the compiler up first

	// replies
	OK      bool            `json:"ok,omitempty"`
	Version string          `json:"version,omitempty"`
	SQL     string          `json:"sql,omitempty"`
	Shape   json.RawMessage `json:"shape,omitempty"`
	MS      float64         `json:"ms,omitempty"` // the compiler's own time for the query
	Failure *failure        `json:"-"`

	// asks and answers
	Connection string          `json:"connection,omitempty"`
	Path       string          `json:"path,omitempty"`
	Columns    []qeval.Column  `json:"columns,omitempty"`
	Error      json.RawMessage `json:"error,omitempty"`
}

type fileText struct {
	URL  string `json:"url"`
	Text string `json:"text"`
}

// failure is the bridge's error reply: what failed (the model, the query, the
// protocol) and the compiler's problems.
type failure struct {
	Kind     string    `json:"kind"`
	Problems []problem `json:"problems"`
}

// problem is one message of the compiler, with where it points (1-based; File is the
// model file's URL, "" for the query).
type problem struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	File    string `json:"file"`
	Line    int    `json:"line"`
	Col     int    `json:"col"`
}

// answerer answers the bridge's questions about a model's connection.
type answerer func(ctx context.Context, q *message) *message

// helper is one running bridge process.
type helper struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan []byte // stdout, a line at a time; closed when the process ends
	stderr *tail
	done   chan struct{} // closed once the process has been waited for
	exit   error
	nextID int
	loaded map[string]bool // models this process has parsed
}

// tail keeps the last bytes written to it (the helper's stderr, for messages).
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 4096 {
		t.buf = t.buf[len(t.buf)-4096:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.buf))
}

// startHelper starts the bridge in dir with node, sandboxed, and checks that it
// answers.
func startHelper(ctx context.Context, nodeBin string, major int, dir string) (*helper, error) {
	perm := "--permission"
	if major < 23 {
		perm = "--experimental-permission"
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		real = dir
	}
	args := []string{perm, "--allow-fs-read=" + real + string(filepath.Separator), "--no-warnings",
		"--max-old-space-size=1024", "--max-semi-space-size=32", filepath.Join(real, "bridge.mjs")}
	var last error
	for _, attr := range helperAttrs() {
		h, err := spawn(nodeBin, args, real, attr)
		if err == nil {
			return h.hello(ctx)
		}
		last = err
	}
	return nil, &qeval.Error{Code: qeval.CodeUnavailable, Op: "start the Malloy compiler", Message: last.Error(), Err: last}
}

func spawn(nodeBin string, args []string, dir string, attr *syscall.SysProcAttr) (*helper, error) {
	cmd := exec.Command(nodeBin, args...)
	cmd.Dir = dir
	cmd.SysProcAttr = attr
	// no proxy, no npm or node options from qeval's environment reach it
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "NODE_ENV=production"}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	h := &helper{cmd: cmd, stdin: stdin, lines: make(chan []byte, 16), stderr: &tail{}, done: make(chan struct{}), loaded: map[string]bool{}}
	cmd.Stderr = h.stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		r := bufio.NewReaderSize(stdout, 64<<10)
		for {
			line, err := readLine(r)
			if err != nil {
				break
			}
			h.lines <- line
		}
		close(h.lines)
		h.exit = cmd.Wait()
		close(h.done)
	}()
	return h, nil
}

// readLine reads one line of at most maxLine bytes.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		part, isPrefix, err := r.ReadLine()
		if err != nil {
			return nil, err
		}
		line = append(line, part...)
		if len(line) > maxLine {
			return nil, errors.New("a line of the Malloy helper is too long")
		}
		if !isPrefix {
			return line, nil
		}
	}
}

func (h *helper) hello(ctx context.Context) (*helper, error) {
	reply, err := h.call(ctx, &message{Op: "hello", Warm: true}, nil)
	if err != nil {
		h.kill()
		return nil, err
	}
	if reply.Version != CompilerVersion {
		h.kill()
		return nil, &qeval.Error{Code: qeval.CodeUnavailable, Message: fmt.Sprintf("the Malloy helper is version %q, want %s", reply.Version, CompilerVersion)}
	}
	return h, nil
}

// errDied is the error of a call whose helper ended.
type errDied struct{ why string }

func (e *errDied) Error() string { return e.why }

// died describes how the helper ended.
func (h *helper) died() error {
	go func() {
		for range h.lines { // let the reader reach the end
		}
	}()
	<-h.done
	why := "the Malloy helper (node) ended"
	if h.exit != nil {
		why += " (" + h.exit.Error() + ")"
	}
	if s := h.stderr.String(); s != "" {
		if len(s) > 600 {
			s = "…" + s[len(s)-600:]
		}
		why += ": " + s
	}
	return &errDied{why}
}

// call sends one request and waits for its reply, answering the bridge's questions
// meanwhile. When ctx ends first the helper is killed: it may be stuck in the
// compiler, and it serves one request at a time.
func (h *helper) call(ctx context.Context, req *message, answer answerer) (*message, error) {
	h.nextID++
	req.ID = h.nextID
	b, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	if _, err := h.stdin.Write(append(b, '\n')); err != nil {
		return nil, h.died()
	}
	for {
		select {
		case line, ok := <-h.lines:
			if !ok {
				return nil, h.died()
			}
			var m message
			if err := json.Unmarshal(line, &m); err != nil {
				h.kill()
				return nil, &errDied{"the Malloy helper wrote a line that is not JSON: " + qeval.ClipText(string(line), 200)}
			}
			if m.Ask != 0 {
				a := &message{Error: jsonString("qeval cannot answer this question")}
				if answer != nil {
					a = answer(ctx, &m)
				}
				a.Answer = m.Ask
				b, _ := json.Marshal(a)
				if _, err := h.stdin.Write(append(b, '\n')); err != nil {
					return nil, h.died()
				}
				continue
			}
			if m.ID != req.ID {
				continue // a reply to a request given up on
			}
			if len(m.Error) > 0 {
				var f failure
				if err := json.Unmarshal(m.Error, &f); err != nil {
					f = failure{Kind: "internal", Problems: []problem{{Message: string(m.Error)}}}
				}
				m.Failure = &f
			}
			return &m, nil
		case <-ctx.Done():
			h.kill()
			return nil, ctx.Err()
		}
	}
}

func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// kill ends the helper and waits for it.
func (h *helper) kill() {
	if h.cmd.Process != nil {
		killGroup(h.cmd.Process.Pid)
		h.cmd.Process.Kill()
	}
	h.stdin.Close()
	go func() {
		for range h.lines { // let the reader reach the end
		}
	}()
	<-h.done
}

// alive reports whether the process has not ended.
func (h *helper) alive() bool {
	select {
	case <-h.done:
		return false
	default:
		return true
	}
}

// close ends the helper (it holds nothing to save).
func (h *helper) close() { h.kill() }
