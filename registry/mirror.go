package registry

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/duckdb"
	"github.com/qeval/qeval/sqlite"
)

// MirrorSource is one SQLite database to copy, named by its db_id.
type MirrorSource struct {
	DBID string
	Path string
}

// MirrorSources lists the SQLite databases a path names: a file (its db_id is its name
// without extension), or a folder of <db_id>/<db_id>.sqlite (Spider's layout) or of
// .sqlite files.
func MirrorSources(paths ...string) ([]MirrorSource, error) {
	var out []MirrorSource
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, &qeval.Error{Code: qeval.CodeNotFound, Op: "mirror " + p, Message: "no such file or folder"}
		}
		if !st.IsDir() {
			out = append(out, MirrorSource{DBID: strings.TrimSuffix(filepath.Base(p), filepath.Ext(p)), Path: p})
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "mirror " + p, Message: err.Error(), Err: err}
		}
		n := len(out)
		for _, e := range entries {
			name := e.Name()
			switch {
			case e.IsDir():
				if f := qeval.BenchmarkFile(p, name); fileExists(f) {
					out = append(out, MirrorSource{DBID: name, Path: f})
				}
			case strings.HasSuffix(name, ".sqlite") || strings.HasSuffix(name, ".db"):
				out = append(out, MirrorSource{DBID: strings.TrimSuffix(name, filepath.Ext(name)), Path: filepath.Join(p, name)})
			}
		}
		if len(out) == n {
			return nil, &qeval.Error{Code: qeval.CodeNotFound, Op: "mirror " + p, Message: "no SQLite databases in this folder",
				Hint: "give a .sqlite file, or a folder of <db_id>/<db_id>.sqlite"}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].DBID < out[j].DBID })
	return out, nil
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// Mirrored is one copied database: the target that names it for a run (--db or a
// catalog connection) and what could not be kept as the source had it.
type Mirrored struct {
	DBID   string
	Target string
	Tables int
	Rows   int
	Notes  []string
}

// MirrorOptions configure Mirror.
type MirrorOptions struct {
	// Replace drops a database (file, schema) of the same name first; without it an
	// existing one is refused.
	Replace bool
}

// Mirror copies each source into the engine dest names: duckdb:PATH (a file for one
// source, else a folder of <db_id>.duckdb), keeping column types (checked against the
// values), primary keys and row order. A source that fails is dropped from the target
// (nothing half-written is left) and reported with its db_id; the others go on.
func Mirror(ctx context.Context, dest string, srcs []MirrorSource, opt MirrorOptions) ([]Mirrored, error) {
	e := EngineFor(dest)
	if e.Mirror == nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "mirror into " + e.Show(dest),
			Message: fmt.Sprintf("cannot mirror into a %s target", e.Name),
			Hint:    "mirror into " + mirrorTargets()}
	}
	open, err := e.Mirror.Open(ctx, dest, srcs, opt)
	if err != nil {
		return nil, err
	}
	// the databases are copied side by side (each into its own file, schema or database)
	done := make([]Mirrored, len(srcs))
	errs := make([]error, len(srcs))
	eachSource(ctx, srcs, func(i int) { done[i], errs[i] = mirrorOne(ctx, srcs[i], open) }, errs)
	var out []Mirrored
	var failed []string
	for i, src := range srcs {
		err := errs[i]
		if err != nil && ctx.Err() != nil {
			return out, ctx.Err()
		}
		m := done[i]
		if err != nil {
			msg := fmt.Sprintf("%s: %s", src.DBID, qeval.ErrorMessage(err))
			if h := qeval.ErrorHint(err); h != "" {
				msg += " (" + h + ")"
			}
			failed = append(failed, msg)
			continue
		}
		out = append(out, m)
	}
	if len(failed) > 0 {
		return out, &qeval.Error{Code: qeval.CodeInvalid, Op: "mirror into " + e.Show(dest),
			Message: fmt.Sprintf("%d of %d databases were not copied (no half-written copy is left behind):\n  - %s",
				len(failed), len(srcs), strings.Join(failed, "\n  - "))}
	}
	return out, nil
}

// eachSource runs do(i) for every source, as many at once as there are CPUs; a source
// not started when ctx ends gets ctx's error in errs.
func eachSource(ctx context.Context, srcs []MirrorSource, do func(i int), errs []error) {
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i := range srcs {
		g.Go(func() error {
			if err := ctx.Err(); err != nil {
				errs[i] = err
				return nil
			}
			do(i)
			return nil
		})
	}
	g.Wait()
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// countingSink counts the rows that pass.
type countingSink struct {
	qeval.TableSink
	rows int
}

func (c *countingSink) Insert(ctx context.Context, t qeval.TableDef, rows [][]qeval.Value) error {
	c.rows += len(rows)
	return c.TableSink.Insert(ctx, t, rows)
}

func mirrorOne(ctx context.Context, src MirrorSource, open func(MirrorSource) (qeval.TableSink, string, error)) (Mirrored, error) {
	sink, target, err := open(src)
	if err != nil {
		return Mirrored{}, err
	}
	cs := &countingSink{TableSink: sink}
	defs, err := sqlite.Dump(ctx, src.Path, cs)
	if err != nil {
		sink.Abort()
		return Mirrored{}, err
	}
	if err := sink.Close(); err != nil {
		sink.Abort()
		return Mirrored{}, err
	}
	m := Mirrored{DBID: src.DBID, Target: target, Tables: len(defs), Rows: cs.rows}
	for _, d := range defs {
		m.Notes = append(m.Notes, d.Notes...)
	}
	return m, nil
}

// Unmirror drops what Mirror made on a server (schemas or databases); DuckDB files are
// the caller's to remove.
func Unmirror(ctx context.Context, dest string, done []Mirrored) error {
	w := EngineFor(dest).Mirror
	if w == nil || w.Drop == nil {
		return nil
	}
	var first error
	for _, m := range done {
		if err := w.Drop(ctx, dest, m.DBID); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// MirrorWriter is an engine's side of Mirror: where each copied database goes.
type MirrorWriter struct {
	// Open readies dest for srcs and returns how to open the sink of one source, with
	// the target that will name its copy.
	Open func(ctx context.Context, dest string, srcs []MirrorSource, opt MirrorOptions) (func(MirrorSource) (qeval.TableSink, string, error), error)
	// Drop removes one copy from its server (Unmirror); nil when the copies are files.
	Drop func(ctx context.Context, dest, dbID string) error
}

// targetSink is a sink that knows the target naming what it wrote.
type targetSink interface {
	qeval.TableSink
	Target() string
}

// serverMirror is the mirror writer of a server engine: each source becomes a schema
// or database of its db_id on the server dest names.
func serverMirror[W targetSink](create func(ctx context.Context, admin, name string, replace bool) (W, error), drop func(ctx context.Context, admin, name string) error) *MirrorWriter {
	return &MirrorWriter{
		Open: func(ctx context.Context, dest string, _ []MirrorSource, opt MirrorOptions) (func(MirrorSource) (qeval.TableSink, string, error), error) {
			return func(src MirrorSource) (qeval.TableSink, string, error) {
				w, err := create(ctx, dest, src.DBID, opt.Replace)
				if err != nil {
					return nil, "", err
				}
				return w, w.Target(), nil
			}, nil
		},
		Drop: drop,
	}
}

// mirrorTargets lists the targets Mirror writes into, for a hint.
func mirrorTargets() string {
	var out []string
	for _, e := range engines {
		if e.Mirror != nil {
			out = append(out, e.Hint)
		}
	}
	if len(out) > 1 {
		out[len(out)-1] = "or " + out[len(out)-1]
	}
	return strings.Join(out, ", ")
}

// mirrorFormat versions the DuckDB files Mirror writes: a change in how types or keys
// are copied changes it, so cached mirrors of the old form are not reused.
const mirrorFormat = 1

// MirrorReused is the note of a mirror MirrorDuckDBCached found made.
const MirrorReused = "reused the cached mirror"

// MirrorDuckDBCached mirrors each source into DuckDB under dir, keyed by the source
// file's content: a source mirrored before (same bytes, same mirror format) is reused
// as is, a new one is copied into a temporary file and moved into place, so runs on
// the same databases mirror them once and concurrent runs never see half a file.
func MirrorDuckDBCached(ctx context.Context, dir string, srcs []MirrorSource) ([]Mirrored, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "mirror cache " + dir, Message: err.Error(), Err: err}
	}
	// each source is hashed and, when new, copied side by side with the others
	done := make([]*Mirrored, len(srcs))
	errs := make([]error, len(srcs))
	eachSource(ctx, srcs, func(i int) { done[i], errs[i] = mirrorCached(ctx, dir, srcs[i]) }, errs)
	var out []Mirrored
	for i, src := range srcs {
		if errs[i] != nil {
			errs[i] = fmt.Errorf("%s: %w", src.DBID, errs[i])
		}
		if done[i] != nil {
			out = append(out, *done[i])
		}
	}
	return out, errors.Join(errs...)
}

// mirrorCached is MirrorDuckDBCached for one source: the cached mirror, or a new one
// moved into place.
func mirrorCached(ctx context.Context, dir string, src MirrorSource) (*Mirrored, error) {
	sum, err := qeval.FileSHA256(src.Path)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, fmt.Sprintf("%s-%s-f%d.duckdb", src.DBID, sum[:16], mirrorFormat))
	if _, err := os.Stat(path); err == nil {
		return &Mirrored{DBID: src.DBID, Target: "duckdb:" + path, Notes: []string{MirrorReused}}, nil
	}
	tmp, err := os.MkdirTemp(dir, ".mirror-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	done, err := Mirror(ctx, "duckdb:"+filepath.Join(tmp, src.DBID+".duckdb"), []MirrorSource{src}, MirrorOptions{Replace: true})
	if err != nil {
		return nil, err
	}
	if len(done) != 1 {
		return nil, errors.New("the copy made no DuckDB file")
	}
	if err := os.Rename(duckdb.Path(done[0].Target), path); err != nil {
		return nil, err
	}
	done[0].Target = "duckdb:" + path
	return &done[0], nil
}
