package registry

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/internal/cache"
)

// Catalog resolves the database names of suites and requests into sources, once each.
// It alone looks at the file system and at DSNs. The zero value resolves paths relative
// to the current folder; see the fields for names, a suite's folder and the server's
// names-only rule. It is safe for concurrent use.
type Catalog struct {
	// Dir is the folder relative paths are resolved against (a suite's folder).
	Dir string
	// Connections are configured names → targets (`--db NAME=TARGET`): a DSN, a Kusto
	// URL, a SQLite file or test-suite folder, or a folder of KQL data.
	Connections map[string]string
	// NamesOnly accepts only configured names, never a path: a suite posted to the
	// server may neither open nor probe a file of its choosing.
	NamesOnly bool
	// Now pins "now" for the local KQL engine (the first resolution's time when zero).
	Now time.Time
	// AllowPrivileged opens server databases even as a privileged role (a superuser, a
	// role that reads server files or signals sessions): --unsafe-allow-privileged.
	AllowPrivileged bool
	// MirrorDir is where mirror:duckdb: targets are copied (the user cache's
	// mirrors/duckdb when empty).
	MirrorDir string
	// Openers, by engine name, open that engine's targets in place of the engine's own
	// opener: SQLite files as the official evaluators' SQLite runs them
	// (sqlite.OfficialOpener).
	Openers map[string]qeval.Opener

	mu      sync.Mutex
	sources map[string]*resolved
}

var _ qeval.Catalog = (*Catalog)(nil)

type resolved struct {
	once sync.Once
	src  *qeval.Source
	err  error
}

// Names returns the configured names, sorted.
func (c *Catalog) Names() []string {
	out := make([]string, 0, len(c.Connections))
	for n := range c.Connections {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Known reports whether name is a configured name.
func (c *Catalog) Known(name string) bool { _, ok := c.Connections[name]; return ok }

// Resolve returns the source a name stands for; see qeval.Catalog. A name is first a
// configured connection, then (unless NamesOnly) a path relative to Dir.
func (c *Catalog) Resolve(ctx context.Context, name, dialect string) (*qeval.Source, error) {
	if strings.TrimSpace(name) == "" {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Message: "no database named", Hint: "give the suite a `database:` or the case one"}
	}
	kql := strings.EqualFold(dialect, "kql")
	key := name + "\x00" + fmt.Sprint(kql)
	c.mu.Lock()
	if c.sources == nil {
		c.sources = map[string]*resolved{}
	}
	if c.Now.IsZero() {
		c.Now = time.Now()
	}
	r, ok := c.sources[key]
	if !ok {
		r = &resolved{}
		c.sources[key] = r
	}
	now := c.Now
	c.mu.Unlock()
	r.once.Do(func() { r.src, r.err = c.resolve(ctx, name, kql, now) })
	return r.src, r.err
}

func (c *Catalog) resolve(ctx context.Context, name string, kql bool, now time.Time) (*qeval.Source, error) {
	target, configured := c.Connections[name]
	if !configured {
		if c.NamesOnly {
			return nil, c.unknown(name)
		}
		target = name
		if !strings.HasPrefix(name, MirrorPrefix) {
			target = EngineFor(name).relativeTo(c.Dir, name)
		}
	}
	if rest, ok := strings.CutPrefix(target, MirrorPrefix); ok {
		return c.mirrored(ctx, name, rest, configured)
	}
	e := EngineFor(target)
	src := &qeval.Source{Name: name, Display: e.Show(target), Engine: e.Name, Dialect: e.Dialect, Files: []string{target}, Open: e.Opener(Params{}),
		Sandbox: e.Sandboxes(Params{AllowPrivileged: c.AllowPrivileged})}
	if configured {
		src.Display = name
	}
	if e.Name != "sqlite" {
		src.Open = e.Opener(Params{Now: now, AllowPrivileged: c.AllowPrivileged})
		if o := c.Openers[e.Name]; o != nil {
			src.Open = o
		}
		if kql && e.Dialect != "kql" {
			return nil, &qeval.Error{Code: qeval.CodeInvalid,
				Message: fmt.Sprintf("a KQL suite cannot run on a %s database", e.Name)}
		}
		if e.File != nil {
			if _, err := os.Stat(e.File(target)); err != nil {
				return nil, c.missing(name, e.File(target), configured)
			}
			src.Local = e.File
		}
		return src, nil
	}
	// a path: a file, a test-suite folder, or (KQL) a folder of data files
	st, err := os.Stat(target)
	if err != nil {
		return nil, c.missing(name, target, configured)
	}
	src.Local = func(t string) string { return t }
	if kql {
		k, _ := LookupEngine("kql")
		src.Engine, src.Dialect, src.Open, src.Sandbox = k.Name, k.Dialect, k.Opener(Params{Now: now}), nil
		return src, nil
	}
	if st.IsDir() {
		entries, err := os.ReadDir(target)
		if err != nil {
			return nil, &qeval.Error{Code: qeval.CodeNotFound, Message: err.Error(), Err: err}
		}
		src.Files = nil
		for _, en := range entries {
			if !en.IsDir() && strings.Contains(en.Name(), ".sqlite") {
				src.Files = append(src.Files, filepath.Join(target, en.Name()))
			}
		}
		// the original database (<folder>/<folder>.sqlite) first: a verdict decided on
		// another file then says the original alone matched
		sort.SliceStable(src.Files, func(i, j int) bool {
			oi, oj := qeval.IsOriginalDatabase(src.Files[i]), qeval.IsOriginalDatabase(src.Files[j])
			if oi != oj {
				return oi
			}
			return src.Files[i] < src.Files[j]
		})
		if len(src.Files) == 0 {
			return nil, &qeval.Error{Code: qeval.CodeNotFound,
				Message: "no database files in the folder " + target, Hint: "a test-suite folder holds files whose names contain .sqlite"}
		}
	}
	if o := c.Openers[src.Engine]; o != nil {
		src.Open = o
	}
	return src, nil
}

// MirrorPrefix names a SQLite database copied into DuckDB on first use:
// mirror:duckdb:PATH (a .sqlite file, or a folder <db_id>/<db_id>.sqlite), relative
// to the catalog's folder. The copy is kept in MirrorDir, keyed by the file's content,
// so later runs copy nothing; a Malloy model's connection: mirror:duckdb is this.
const MirrorPrefix = qeval.MirrorDuckDB + ":"

// mirrorDir is where mirror:duckdb: copies are kept.
func (c *Catalog) mirrorDir() (string, error) {
	if c.MirrorDir != "" {
		return c.MirrorDir, nil
	}
	base, err := cache.DefaultDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(base, "mirrors", "duckdb"), nil
}

// mirrored resolves mirror:duckdb:PATH: the SQLite database at PATH copied into
// DuckDB (once per content), opened as that copy.
func (c *Catalog) mirrored(ctx context.Context, name, path string, configured bool) (*qeval.Source, error) {
	if path != "" && !filepath.IsAbs(path) && c.Dir != "" {
		path = filepath.Join(c.Dir, path)
	}
	if _, err := os.Stat(path); err != nil {
		return nil, c.missing(name, path, configured)
	}
	srcs, err := MirrorSources(path)
	if err != nil {
		return nil, err
	}
	if len(srcs) != 1 {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "mirror " + path, Message: fmt.Sprintf("%d SQLite databases there; mirror:duckdb: copies one", len(srcs)),
			Hint: "name the database's file, or its folder <db_id>/<db_id>.sqlite"}
	}
	dir, err := c.mirrorDir()
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "mirror " + path, Message: err.Error(), Err: err}
	}
	done, err := MirrorDuckDBCached(ctx, dir, srcs)
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "mirror " + path + " into DuckDB", Message: qeval.ErrorMessage(err), Err: err}
	}
	target := done[0].Target
	e := EngineFor(target)
	src := &qeval.Source{Name: name, Display: MirrorPrefix + path, Engine: e.Name, Dialect: e.Dialect, Files: []string{target}, Open: e.Opener(Params{}), Local: e.File,
		Sandbox: e.Sandboxes(Params{AllowPrivileged: c.AllowPrivileged})}
	if configured {
		src.Display = name
	}
	return src, nil
}

// Probe opens a server database once and closes it, so a run can refuse at once a
// server that is unreachable or a role that is too privileged, rather than fail every
// case. Files are left to the run (they were found by Resolve).
func (c *Catalog) Probe(ctx context.Context, name, dialect string) error {
	src, err := c.Resolve(ctx, name, dialect)
	if err != nil {
		return err
	}
	if src.Engine == "sqlite" || src.Engine == "kql" {
		return nil
	}
	ex, err := src.Open(src.Files[0], qeval.Limits{})
	if err != nil {
		return err
	}
	return ex.Close()
}

// missing reports a database file that is not there.
func (c *Catalog) missing(name, file string, configured bool) error {
	msg := "no such file or folder " + file
	if !configured {
		msg = fmt.Sprintf("unknown database %q: no such file or folder %s, and no connection of that name", name, file)
	}
	return &qeval.Error{Code: qeval.CodeNotFound, Message: msg,
		Hint: "a database is a SQLite file or test-suite folder (relative to the suite), a duckdb:FILE, or a name given with --db NAME=TARGET"}
}

func (c *Catalog) unknown(name string) error {
	known := "none: start the server with --db NAME=TARGET"
	if names := c.Names(); len(names) > 0 {
		known = strings.Join(names, ", ")
	}
	if strings.ContainsAny(name, `/\`) || strings.Contains(name, "..") || filepath.IsAbs(name) {
		return &qeval.Error{Code: qeval.CodeInvalid, Message: fmt.Sprintf("%q is a path; name a database by a name the server was started with (known: %s)", name, known)}
	}
	return &qeval.Error{Code: qeval.CodeNotFound, Message: fmt.Sprintf("unknown database %q (known: %s)", name, known)}
}

// Secrets returns the passwords of the configured connections, for masking in every
// output.
func (c *Catalog) Secrets() qeval.Secrets {
	var out qeval.Secrets
	for _, t := range c.Connections {
		if p := passwordOf(t); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// passwordOf is the password a DSN holds: a URL's (postgres://u:p@h/db), a
// go-sql-driver DSN's (u:p@tcp(h)/db) or a key=value DSN's (password=p).
func passwordOf(dsn string) string {
	if u, err := url.Parse(dsn); err == nil && u.User != nil && u.Scheme != "" {
		p, _ := u.User.Password()
		return p
	}
	if at := strings.LastIndex(dsn, "@tcp("); at >= 0 {
		if i := strings.IndexByte(dsn[:at], ':'); i >= 0 {
			return dsn[i+1 : at]
		}
	}
	for _, f := range strings.Fields(dsn) {
		if k, v, ok := strings.Cut(f, "="); ok && strings.EqualFold(k, "password") {
			return strings.Trim(v, "'")
		}
	}
	return ""
}

// DatabasesUnder returns the databases of a benchmark folder laid out as Spider and
// BIRD lay theirs out: DIR/<db_id>/<db_id>.sqlite, or DIR/<db_id>/ holding several
// SQLite files (a test suite), each under its db_id. Folders with no SQLite file are
// passed over; a DIR with none at all is an error.
func DatabasesUnder(dir string) (map[string]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeNotFound, Op: "read --db-root " + dir, Message: err.Error(), Err: err,
			Hint: "--db-root is a folder holding <db_id>/<db_id>.sqlite"}
	}
	out := map[string]string{}
	for _, en := range entries {
		if !en.IsDir() || strings.HasPrefix(en.Name(), ".") {
			continue
		}
		id := en.Name()
		sub := filepath.Join(dir, id)
		files, err := os.ReadDir(sub)
		if err != nil {
			continue
		}
		var dbs []string
		for _, f := range files {
			if !f.IsDir() && strings.HasSuffix(f.Name(), ".sqlite") {
				dbs = append(dbs, f.Name())
			}
		}
		switch {
		case len(dbs) == 0:
			continue
		case len(dbs) == 1 && filepath.Join(sub, dbs[0]) == qeval.BenchmarkFile(dir, id):
			out[id] = filepath.Join(sub, dbs[0])
		default:
			out[id] = sub // a test suite: every SQLite file of the folder
		}
	}
	if len(out) == 0 {
		return nil, &qeval.Error{Code: qeval.CodeNotFound, Op: "read --db-root " + dir, Message: "no <db_id>/<db_id>.sqlite in the folder",
			Hint: "--db-root is a folder holding <db_id>/<db_id>.sqlite, e.g. spider/database"}
	}
	return out, nil
}
