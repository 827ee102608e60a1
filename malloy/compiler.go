package malloy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/qeval/qeval"
)

// Compiler compiles Malloy queries through one helper process, started on the first
// Compile and ended by Close. It is safe for concurrent use; the helper serves one
// request at a time (Node runs the compiler on one thread), so callers wait their
// turn. The zero value finds node and npm on PATH and installs into DefaultDir.
type Compiler struct {
	// Node and NPM are the binaries ("node" and "npm" on PATH when empty).
	Node, NPM string
	// Dir is the folder the bridge and its npm packages are installed in (DefaultDir
	// when empty).
	Dir string
	// Notify, when set, is told when the compiler is being installed (it takes seconds,
	// once).
	Notify func(string)

	once sync.Once
	turn chan struct{} // held by the request in flight

	mu      sync.Mutex
	h       *helper
	deaths  int
	gone    error // every Compile fails with it: no Node.js, no install, a helper dead twice
	nodeBin string
	major   int
	dir     string
	models  map[string]*model
	conns   map[string]*conn
	closed  bool
}

// model is a Model read once: its files' text, the key the helper knows it by, and
// the error of its load, which does not change within a run.
type model struct {
	key     string
	name    string // for messages: the first file's base name
	dialect string
	files   []fileText
	paths   map[string]string // file URL → path, for messages
	conn    *conn
	loadErr error
}

// conn is a connection a model reads: its schema is read once.
type conn struct {
	src       *qeval.Source
	schemaMu  sync.Mutex
	schema    *qeval.Schema
	schemaErr error
}

func (c *Compiler) init() {
	c.once.Do(func() {
		c.turn = make(chan struct{}, 1)
		c.models = map[string]*model{}
		c.conns = map[string]*conn{}
	})
}

// dialects maps qeval's SQL dialects to Malloy's.
var dialects = map[string]string{"duckdb": "duckdb", "postgres": "postgres", "mysql": "mysql"}

// modelOf reads a model's files once per run.
func (c *Compiler) modelOf(files []string, src *qeval.Source) (*model, error) {
	if len(files) == 0 {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "malloy model", Message: "no model files", Hint: "malloy_model: {files: [model.malloy], connection: duckdb:…}"}
	}
	if src == nil || len(src.Files) == 0 {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "malloy model " + files[0], Message: "no connection for its sources to read"}
	}
	key := strings.Join(files, "\x00") + "\x00" + src.Engine + "\x00" + src.Files[0]
	c.mu.Lock()
	defer c.mu.Unlock()
	if md, ok := c.models[key]; ok {
		return md, md.loadErr
	}
	md := &model{key: fmt.Sprintf("m%d", len(c.models)+1), name: filepath.Base(files[0]), paths: map[string]string{}}
	c.models[key] = md
	dialect, ok := dialects[src.Dialect]
	if !ok {
		md.loadErr = &qeval.Error{Code: qeval.CodeUnsupported, Op: "malloy model " + md.name,
			Message: fmt.Sprintf("Malloy does not compile for %s databases (%s)", src.Engine, src.Display),
			Hint:    "point the model's connection at DuckDB, PostgreSQL or MySQL: connection: mirror:duckdb copies a SQLite database into DuckDB"}
		return md, md.loadErr
	}
	md.dialect = dialect
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			md.loadErr = &qeval.Error{Code: qeval.CodeNotFound, Op: "malloy model", Message: fmt.Sprintf("open %s: %s", f, noSuchFile(err)), Err: err}
			return md, md.loadErr
		}
		abs, _ := filepath.Abs(f)
		u := "file://" + filepath.ToSlash(abs)
		md.files = append(md.files, fileText{URL: u, Text: string(b)})
		md.paths[u] = f
	}
	ck := src.Engine + "\x00" + src.Files[0]
	if c.conns[ck] == nil {
		c.conns[ck] = &conn{src: src}
	}
	md.conn = c.conns[ck]
	return md, nil
}

func noSuchFile(err error) string {
	if errors.Is(err, os.ErrNotExist) {
		return "no such file"
	}
	return err.Error()
}

// Compile compiles a Malloy query of the model made of files, whose sources read conn
// (its SQL dialect is the one written; the schemas of its tables are read once,
// through ex, an executor open on it, which Compile borrows and never closes), into
// SQL, with the query's structure as the compiler describes it. The files are read
// once per Compiler. A query the compiler rejects is an
// error with CodeCompile, the compiler's message, Line and Col. A model that cannot be
// read or does not compile, or whose tables its connection lacks, is an error naming
// the model (CodeNotFound, CodeInvalid, CodeUnsupported); no Node.js, a failed install
// or a helper dead twice is CodeUnavailable; a context that ends is CodeTimeout or
// CodeCanceled (the helper, busy on the query, is killed and started again next time).
func (c *Compiler) Compile(ctx context.Context, files []string, conn *qeval.Source, ex qeval.Executor, query string) (*qeval.CompiledQuery, error) {
	c.init()
	if strings.TrimSpace(query) == "" {
		return nil, &qeval.Error{Code: qeval.CodeCompile, Message: "empty Malloy query"}
	}
	if err := (qeval.QueryBounds{MaxOperators: -1}).Check(query); err != nil {
		return nil, err
	}
	md, err := c.modelOf(files, conn)
	if err != nil {
		return nil, err
	}
	select {
	case c.turn <- struct{}{}:
		defer func() { <-c.turn }()
	case <-ctx.Done():
		return nil, ctxError(ctx)
	}
	h, err := c.helper(ctx)
	if err != nil {
		return nil, err
	}
	if err := c.load(ctx, h, md, ex); err != nil {
		return nil, err
	}
	reply, err := h.call(ctx, &message{Op: "compile", Model: md.key, Query: query}, md.conn.answer(ex))
	if err != nil {
		return nil, c.lost(ctx, h, err)
	}
	if f := reply.Failure; f != nil {
		if f.Kind == "query" {
			return nil, compileError(f.Problems, md)
		}
		return nil, &qeval.Error{Code: qeval.CodeInternal, Op: "compile Malloy", Message: problemsText(f.Problems, md)}
	}
	out := &qeval.CompiledQuery{SQL: reply.SQL, Dialect: md.dialect, CompileMS: reply.MS}
	var sh struct {
		qeval.Shape
		DescribeError string `json:"describe_error"`
	}
	if err := json.Unmarshal(reply.Shape, &sh); err != nil {
		out.ShapeError = "read the compiler's description: " + err.Error()
	} else if sh.DescribeError != "" {
		out.ShapeError = "describe the query: " + sh.DescribeError
	} else {
		out.Shape = &sh.Shape
	}
	return out, nil
}

func ctxError(ctx context.Context) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &qeval.Error{Code: qeval.CodeTimeout, Message: "the Malloy compiler did not finish before the deadline", Err: ctx.Err()}
	}
	return &qeval.Error{Code: qeval.CodeCanceled, Message: "canceled while compiling Malloy", Err: ctx.Err()}
}

// helper returns the running helper, starting it (and, the first time, finding Node
// and installing the packages) when there is none.
func (c *Compiler) helper(ctx context.Context) (*helper, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, &qeval.Error{Code: qeval.CodeCanceled, Message: "the Malloy compiler is closed"}
	}
	if c.gone != nil {
		return nil, c.gone
	}
	if c.h != nil && c.h.alive() {
		return c.h, nil
	}
	if c.h != nil {
		// it ended between two requests
		err := c.h.died()
		c.h = nil
		if gone := c.death(err); gone != nil {
			return nil, gone
		}
	}
	if c.nodeBin == "" {
		nodeBin, npmBin, err := findNode(c.Node, c.NPM)
		if err != nil {
			c.gone = err
			return nil, err
		}
		major, v, err := nodeMajor(ctx, nodeBin)
		if err != nil {
			return nil, err
		}
		if major < MinNodeMajor {
			c.gone = &qeval.Error{Code: qeval.CodeUnavailable, Message: fmt.Sprintf("Malloy queries need Node.js %d or later; %s is %s", MinNodeMajor, nodeBin, v), Hint: installHint}
			return nil, c.gone
		}
		dir := c.Dir
		if dir == "" {
			dir = DefaultDir()
		}
		if err := install(ctx, dir, npmBin, c.Notify); err != nil {
			if ctx.Err() != nil {
				return nil, ctxError(ctx)
			}
			c.gone = err
			return nil, err
		}
		c.nodeBin, c.major, c.dir = nodeBin, major, dir
	}
	h, err := startHelper(ctx, c.nodeBin, c.major, c.dir)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctxError(ctx)
		}
		var d *errDied
		if errors.As(err, &d) {
			err = &qeval.Error{Code: qeval.CodeUnavailable, Op: "start the Malloy compiler", Message: d.why}
		}
		c.gone = err
		return nil, err
	}
	c.h = h
	return h, nil
}

// death counts a helper that died; the second makes the compiler gone.
func (c *Compiler) death(err error) error {
	c.deaths++
	if c.deaths >= 2 {
		c.gone = &qeval.Error{Code: qeval.CodeUnavailable, Message: "the Malloy compiler's helper died twice, so no more Malloy queries are compiled in this run: " + err.Error(),
			Hint: "its last words are above; a query that crashes the compiler is worth a bug report to Malloy"}
		return c.gone
	}
	return nil
}

// lost handles a call that did not get its reply: the context ended (the helper was
// killed; the next call starts another) or the helper died (counted; started once
// more).
func (c *Compiler) lost(ctx context.Context, h *helper, err error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.h == h {
		c.h = nil
	}
	if ctx.Err() != nil {
		return ctxError(ctx)
	}
	var d *errDied
	if !errors.As(err, &d) {
		h.kill()
		return &qeval.Error{Code: qeval.CodeUnavailable, Message: err.Error(), Err: err}
	}
	if gone := c.death(err); gone != nil {
		return gone
	}
	return &qeval.Error{Code: qeval.CodeUnavailable, Message: "the Malloy compiler's helper died while compiling this query (it is started again for the next one): " + d.why}
}

// load has the helper parse a model once.
func (c *Compiler) load(ctx context.Context, h *helper, md *model, ex qeval.Executor) error {
	if md.loadErr != nil {
		return md.loadErr
	}
	if h.loaded[md.key] {
		return nil
	}
	reply, err := h.call(ctx, &message{Op: "load", Model: md.key, Dialect: md.dialect, Files: md.files}, md.conn.answer(ex))
	if err != nil {
		return c.lost(ctx, h, err)
	}
	if f := reply.Failure; f != nil {
		md.loadErr = &qeval.Error{Code: qeval.CodeInvalid, Op: "malloy model " + md.name, Message: "it does not compile: " + problemsText(f.Problems, md),
			Hint: "qeval parse --dialect malloy --model FILE shows the model's problems"}
		return md.loadErr
	}
	h.loaded[md.key] = true
	return nil
}

// Close ends the helper.
func (c *Compiler) Close() error {
	c.init()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	if c.h != nil {
		c.h.close()
		c.h = nil
	}
	return nil
}
