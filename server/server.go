package server

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/compare"
	"github.com/qeval/qeval/runner"
)

// Defaults of Config and of the HTTP server.
const (
	DefaultAddr          = "127.0.0.1:8080"
	DefaultMaxBodyBytes  = 10 << 20
	DefaultMaxActiveRuns = 4
	// DefaultMaxRunBytes is the results budget of all runs in progress together: with
	// four runs, a run's cases share 128 MiB.
	DefaultMaxRunBytes = 512 << 20
	// MinTokenLength is the shortest bearer token accepted.
	MinTokenLength = 16
	// maxJudgeModels bounds the judges built for the model field of score requests.
	maxJudgeModels = 8
)

// Config configures a Server. DataDir is required; zero fields take defaults.
type Config struct {
	// DataDir holds runs.db, the SQLite file of runs; it is created when missing.
	DataDir string
	// Token, when set, is required as "Authorization: Bearer <token>" on every API call
	// (and as ?token= on the event stream, which browsers open without headers).
	Token string
	// Suites are the suite files a run can name: name → path. Their databases are
	// resolved against their own folder, and their default database can be named by
	// a posted suite under the suite's name.
	Suites map[string]string
	// Databases are the databases a posted suite may name: name → SQLite file or
	// test-suite folder. A posted suite may also use a configured database's file name
	// (chinook.sqlite) when only one has it.
	Databases map[string]string
	// Judge grades queries (llm_grading, query_correctness); nil skips those metrics
	// with JudgeSkipped as the reason. JudgeInfo names it in reports, JudgeStats counts
	// its calls.
	Judge        qeval.Judge
	JudgeInfo    *qeval.JudgeInfo
	JudgeSkipped string
	JudgeStats   func() qeval.JudgeStats
	// JudgeFor builds a judge for another model than JudgeInfo.Model, when a score
	// request names one; nil rejects such requests.
	JudgeFor func(model string) (qeval.Judge, error)
	// Malloy compiles the queries of Malloy suites run on the server (one compiler for
	// the server's life, its Node helper started on the first Malloy query); nil makes
	// their Malloy cases unscorable, saying so.
	Malloy runner.Compiler
	// DBRoot is a benchmark folder whose DIR/<db_id>/<db_id>.sqlite (or test-suite
	// folder) are registered under their db_id, beside Databases (which win).
	DBRoot string
	// ExecMatchMode is the comparison mode of POST /api/exec-match pairs that name
	// none (default spider-ts); Limits bound their queries; MaxPairs bounds a batch
	// (DefaultMaxPairs); ExecMatchPerDB bounds the pairs running at once on one
	// database (twice the CPUs when 0).
	ExecMatchMode  string
	Limits         qeval.Limits
	MaxPairs       int
	ExecMatchPerDB int
	// GoldCacheBytes bounds the gold results kept in memory; SharedCache, when set,
	// also keeps them there (the SQLite cache file or Redis), for other replicas.
	GoldCacheBytes int64
	SharedCache    qeval.Cache
	// CacheEpoch is mixed into every gold-result key: a server database is known by its
	// target alone, and a new epoch misses what was kept before its data changed (as
	// does POST /api/exec-match/flush).
	CacheEpoch string
	// AllowPrivileged lets runs use a server database as a privileged role
	// (--unsafe-allow-privileged).
	AllowPrivileged bool
	// MaxBodyBytes limits request bodies (DefaultMaxBodyBytes); larger ones get 413.
	MaxBodyBytes int64
	// MaxActiveRuns bounds the runs in progress at once (DefaultMaxActiveRuns).
	MaxActiveRuns int
	// MaxRunBytes bounds the results all runs in progress hold at once
	// (DefaultMaxRunBytes): each run may hold its share, MaxRunBytes / MaxActiveRuns,
	// and each of its cases in flight its part of that (runner.Config.MaxRunBytes); the
	// exec-match pairs in flight over every batch share it as well.
	MaxRunBytes int64
	// Concurrency is the cases a run runs at once (the suite's, else GOMAXPROCS).
	Concurrency int
	// Version is the qeval version written in reports.
	Version string
	Logger  *slog.Logger
	Now     func() time.Time
}

// Server is qeval's HTTP service. Build it with New, serve Handler (or HTTPServer),
// and Close it to stop the runs in progress and close the store.
type Server struct {
	cfg     Config
	log     *slog.Logger
	store   *store
	suites  map[string]string // name → absolute path of the suite file
	dbs     map[string]string // name (and unique file name) → absolute path
	dbNames []string          // the names a posted suite may use, sorted
	handler http.Handler

	ctx    context.Context // parent of every run; ended by Close
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu     sync.Mutex
	active map[string]*run
	closed bool

	judgesMu sync.Mutex
	judges   map[string]qeval.Judge

	rewarder *rewarder // POST /api/exec-match

	loadedRuns loadedRuns // the last ended runs read, for the table and comparisons
}

// New opens the store in cfg.DataDir, checks the configured suites and databases, and
// marks runs a previous process left unfinished as interrupted.
func New(cfg Config) (*Server, error) {
	if cfg.DataDir == "" {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Message: "no data folder", Hint: "set --data-dir"}
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.MaxActiveRuns <= 0 {
		cfg.MaxActiveRuns = DefaultMaxActiveRuns
	}
	if cfg.MaxRunBytes <= 0 {
		cfg.MaxRunBytes = DefaultMaxRunBytes
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.ExecMatchMode == "" {
		cfg.ExecMatchMode = qeval.OfficialMode
	}
	if _, err := compare.Lookup(cfg.ExecMatchMode); err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "--exec-mode", Message: qeval.ErrorMessage(err), Hint: "qeval modes lists them"}
	}
	if cfg.Token != "" && strings.TrimSpace(cfg.Token) != cfg.Token {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Message: "the token has spaces at its ends (or is only spaces)",
			Hint: "use at least 16 random characters, e.g. --token $(openssl rand -hex 16)"}
	}
	if cfg.Token != "" && len(cfg.Token) < MinTokenLength {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Message: "the token is too short",
			Hint: "use at least 16 random characters, e.g. --token $(openssl rand -hex 16)"}
	}
	s := &Server{cfg: cfg, log: cfg.Logger, suites: map[string]string{}, dbs: map[string]string{},
		active: map[string]*run{}, judges: map[string]qeval.Judge{}}
	if err := s.configure(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "create data folder " + cfg.DataDir, Message: err.Error(), Err: err}
	}
	st, err := openStore(filepath.Join(cfg.DataDir, "runs.db"), cfg.Now)
	if err != nil {
		return nil, err
	}
	s.store = st
	s.rewarder = newRewarder(cfg, s.dbs)
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.handler = s.routes()
	return s, nil
}

// Close cancels every run in progress, waits for each to record where it stopped,
// and closes the store. Runs stopped this way are marked interrupted.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.cancel()
	s.wg.Wait()
	s.rewarder.close()
	return s.store.Close()
}

// Handler returns the server's HTTP handler: the API under /api/ and the page at /.
func (s *Server) Handler() http.Handler { return s.handler }

// HTTPServer returns an http.Server for addr with the server's handler and timeouts
// that keep slow clients from holding connections: 10 s to send the headers, 1 min
// for the whole request, 5 min for a reply (the event stream sets its own deadline
// for each write), and 2 min idle between requests.
func (s *Server) HTTPServer(addr string) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           s.handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		WriteTimeout:      5 * time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
}

// CheckAddr refuses to bind addr beyond this machine without a token: a loopback
// address (127.0.0.1, ::1, localhost) needs none, anything else (0.0.0.0, a LAN
// address, ":8080") needs one of at least MinTokenLength characters.
func CheckAddr(addr, token string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return &qeval.Error{Code: qeval.CodeInvalid, Message: "bad address " + addr + ": " + err.Error(), Hint: "write HOST:PORT, e.g. 127.0.0.1:8080"}
	}
	if isLoopbackHost(host) {
		return nil
	}
	if token == "" {
		shown := host
		if shown == "" {
			shown = "every interface"
		}
		return &qeval.Error{Code: qeval.CodeInvalid, Message: "binding " + shown + " would let other machines use the server without a token",
			Hint: "set --token (at least 16 random characters), or bind 127.0.0.1"}
	}
	if len(token) < MinTokenLength {
		return &qeval.Error{Code: qeval.CodeInvalid, Message: "the token is too short", Hint: "use at least 16 random characters"}
	}
	return nil
}

func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (s *Server) now() time.Time { return s.cfg.Now() }

func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	writeError(w, s.log, r, err)
}

// routes builds the handler: the guards, then the API and the page.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	api := func(pattern string, m methods) { mux.Handle(pattern, s.api(m)) }
	api("/api/score-query", methods{http.MethodPost: s.handleScore})
	api("/api/exec-match", methods{http.MethodPost: s.handleExecMatch})
	api("/api/exec-match/stats", methods{http.MethodGet: s.handleExecMatchStats})
	api("/api/exec-match/flush", methods{http.MethodPost: s.handleExecMatchFlush})
	api("/api/suites", methods{http.MethodGet: s.handleSuites})
	api("/api/runs", methods{http.MethodGet: s.handleListRuns, http.MethodPost: s.handleStartRun})
	api("/api/runs/import", methods{http.MethodPost: s.handleImport})
	api("/api/runs/{id}", methods{http.MethodGet: s.handleGetRun})
	api("/api/runs/{id}/events", methods{http.MethodGet: s.handleEvents})
	api("/api/runs/{id}/cancel", methods{http.MethodPost: s.handleCancel})
	api("/api/runs/{id}/{file}", methods{http.MethodGet: s.handleDownload})
	api("/api/runs/{id}/rows", methods{http.MethodGet: s.handleRows})
	api("/api/runs/{id}/cases/{case}", methods{http.MethodGet: s.handleCase})
	api("/api/compare", methods{http.MethodGet: s.handleCompare})
	mux.HandleFunc("GET /api/health", s.handleHealth) // public: the page asks it whether to ask for a token
	mux.Handle("/api/", s.api(nil))
	mux.HandleFunc("GET /{$}", s.handlePage)
	mux.HandleFunc("GET /runs/{id}", s.handlePage) // deep links: the page reads its path
	mux.HandleFunc("GET /compare", s.handlePage)
	mux.Handle("GET /ui/", uiFiles())
	return s.guard(mux)
}

// methods routes one path by method; other methods get a JSON 405.
type methods map[string]http.HandlerFunc

// api wraps an API handler: method routing, the token, and the body limit.
func (s *Server) api(m methods) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if p := recover(); p != nil {
				// a handler that panics answers 500 and the server goes on
				s.log.Error("handler panicked", "path", r.URL.Path, "panic", p, "stack", string(debug.Stack()))
				s.fail(w, r, &qeval.Error{Code: qeval.CodeInternal, Message: fmt.Sprintf("internal error: panic: %v", p)})
			}
		}()
		if !s.authorized(r) {
			s.fail(w, r, &qeval.Error{Code: codeUnauthorized, Message: "missing or wrong token",
				Hint: "send the header Authorization: Bearer <token>, with the token the server was started with"})
			return
		}
		if m == nil {
			s.fail(w, r, &qeval.Error{Code: qeval.CodeNotFound, Message: "no API endpoint " + r.URL.Path})
			return
		}
		method := r.Method
		if method == http.MethodHead {
			method = http.MethodGet
		}
		h, ok := m[method]
		if !ok {
			allow := make([]string, 0, len(m))
			for k := range m {
				allow = append(allow, k)
			}
			sort.Strings(allow)
			w.Header().Set("Allow", strings.Join(allow, ", "))
			s.fail(w, r, &qeval.Error{Code: codeMethod, Message: r.Method + " is not allowed here (allowed: " + strings.Join(allow, ", ") + ")"})
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes)
		h(w, r)
	})
}

// authorized checks the bearer token (or ?token= on the event stream).
func (s *Server) authorized(r *http.Request) bool {
	if s.cfg.Token == "" {
		return true
	}
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok && strings.HasSuffix(r.URL.Path, "/events") {
		got, ok = r.URL.Query().Get("token"), true
	}
	return ok && subtle.ConstantTimeCompare([]byte(got), []byte(s.cfg.Token)) == 1
}

// guard sets the security headers of every answer and refuses requests a browser
// sends on behalf of another site: a cross-origin call (an Origin of another host, or
// "null", which a sandboxed frame, a file:// page or a cross-site redirect sends), or
// (without a token) a Host that is not this machine, which is how DNS rebinding
// reaches a local server.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "+
			"script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
		if s.cfg.Token == "" {
			host := r.Host
			if hh, _, err := net.SplitHostPort(host); err == nil {
				host = hh
			}
			if !isLoopbackHost(host) {
				s.fail(w, r, &qeval.Error{Code: qeval.CodeForbidden, Message: "this server answers only requests addressed to this machine (Host " + r.Host + ")",
					Hint: "open it as http://127.0.0.1:PORT/, or start it with --token"})
				return
			}
		}
		if o := r.Header.Get("Origin"); o != "" {
			u, err := url.Parse(o)
			if err != nil || u.Host != r.Host {
				s.fail(w, r, &qeval.Error{Code: qeval.CodeForbidden, Message: "cross-origin requests are not allowed"})
				return
			}
		} else if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
			s.fail(w, r, &qeval.Error{Code: qeval.CodeForbidden, Message: "cross-origin requests are not allowed"})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// judgeFor returns the judge of a score request: the server's, or one built for the
// model the request names.
//
// When the request's model needs a provider without an API key, the judge-based
// components are skipped with that reason (the total is renormalised over the others),
// never scored 0.
func (s *Server) judgeFor(model string) (j qeval.Judge, skipped string, err error) {
	if model == "" || s.cfg.JudgeInfo != nil && model == s.cfg.JudgeInfo.Model {
		return s.cfg.Judge, s.cfg.JudgeSkipped, nil
	}
	j, err = s.judgeForModel(model)
	if errors.Is(err, qeval.ErrNoAPIKey) {
		return nil, err.Error(), nil
	}
	return j, "", err
}

func (s *Server) judgeForModel(model string) (qeval.Judge, error) {
	current := ""
	if s.cfg.JudgeInfo != nil {
		current = s.cfg.JudgeInfo.Model
	}
	if len(model) > 200 || strings.ContainsFunc(model, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		return nil, invalid("model", "model must be a model name of at most 200 printable characters")
	}
	if s.cfg.JudgeFor == nil {
		if s.cfg.Judge == nil {
			return nil, fmt.Errorf("%s: %w", s.cfg.JudgeSkipped, qeval.ErrNoAPIKey)
		}
		return nil, invalid("model", "this server grades with model %q only; leave model out or send %q", current, current)
	}
	s.judgesMu.Lock()
	defer s.judgesMu.Unlock()
	if j, ok := s.judges[model]; ok {
		return j, nil
	}
	if len(s.judges) >= maxJudgeModels {
		return nil, invalid("model", "this server already grades with %d other models; use one of them or the default %q", maxJudgeModels, current)
	}
	j, err := s.cfg.JudgeFor(model)
	if errors.Is(err, qeval.ErrNoAPIKey) {
		return nil, err
	}
	if err != nil {
		return nil, &FieldError{Field: "model", Err: err}
	}
	s.judges[model] = j
	return j, nil
}

// Health is the answer of GET /api/health, the one call that needs no token.
type Health struct {
	OK            bool   `json:"ok"`
	Version       string `json:"version"`
	TokenRequired bool   `json:"token_required"`
}

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, Health{OK: true, Version: s.cfg.Version, TokenRequired: s.cfg.Token != ""})
}
