package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/compare"
	"github.com/qeval/qeval/registry"
	"github.com/qeval/qeval/suite"
)

// configure checks the configured databases and suites and builds the table of
// database names a posted suite may use: each --db NAME=TARGET (a SQLite file or
// test-suite folder, or a DSN, as `qeval run --db` takes), a configured suite's name for
// its default database, and a database file's name when no other has it.
func (s *Server) configure() error {
	var problems []string
	direct := map[string]string{}
	if s.cfg.DBRoot != "" {
		root, err := registry.DatabasesUnder(s.cfg.DBRoot)
		if err != nil {
			return err
		}
		for name, t := range root {
			if abs, err := filepath.Abs(t); err == nil {
				direct[name] = abs
			}
		}
	}
	for name, t := range s.cfg.Databases {
		if registry.EngineOf(t) != "sqlite" {
			direct[name] = t
			continue
		}
		abs, err := existing(t)
		if err != nil {
			problems = append(problems, fmt.Sprintf("--db %s=%s: %v", name, t, err))
			continue
		}
		direct[name] = abs
	}
	s.dbs = direct // configured suites may name these
	for name, p := range s.cfg.Suites {
		abs, err := filepath.Abs(p)
		if err != nil {
			problems = append(problems, fmt.Sprintf("--suite %s=%s: %v", name, p, err))
			continue
		}
		st, err := s.loadConfigured(abs)
		if err != nil {
			problems = append(problems, fmt.Sprintf("--suite %s=%s: %s", name, p, qeval.ErrorMessage(err)))
			continue
		}
		s.suites[name] = abs
		if _, taken := direct[name]; !taken && st.Database != "" {
			if t, ok := direct[st.Database]; ok {
				direct[name] = t
			} else if registry.EngineOf(st.Database) != "sqlite" || filepath.IsAbs(st.Database) {
				direct[name] = st.Database
			} else {
				direct[name] = filepath.Join(filepath.Dir(abs), st.Database)
			}
		}
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return &qeval.Error{Code: qeval.CodeInvalid, Message: "configuration:\n  - " + strings.Join(problems, "\n  - ")}
	}
	s.dbs = map[string]string{}
	// A database's file name is a name too, when no other database has it.
	byBase := map[string][]string{}
	for _, t := range direct {
		if registry.EngineOf(t) != "sqlite" {
			continue
		}
		b := filepath.Base(t)
		if !contains(byBase[b], t) {
			byBase[b] = append(byBase[b], t)
		}
	}
	for b, paths := range byBase {
		if len(paths) == 1 {
			s.dbs[b] = paths[0]
		}
	}
	for name, t := range direct {
		s.dbs[name] = t
	}
	for name := range s.dbs {
		s.dbNames = append(s.dbNames, name)
	}
	sort.Strings(s.dbNames)
	return nil
}

// catalog returns the catalog of one run: the configured names only for a posted
// suite; for a suite the server was started with, also paths beside it.
func (s *Server) catalog(p *posted) *registry.Catalog {
	c := &registry.Catalog{Connections: s.dbs, NamesOnly: !p.configured, AllowPrivileged: s.cfg.AllowPrivileged}
	if p.configured && p.suite.Path != "" {
		c.Dir = filepath.Dir(p.suite.Path)
	}
	return c
}

// loadConfigured reads a configured suite and resolves its databases: files beside
// it, or the names the server was started with.
func (s *Server) loadConfigured(path string) (*qeval.Suite, error) {
	st, err := suite.Load(path, suiteOptions())
	if err != nil {
		return nil, err
	}
	if err := suite.Check(context.Background(), st, s.catalog(&posted{suite: st, configured: true})); err != nil {
		return nil, err
	}
	return st, nil
}

func existing(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(abs); err != nil {
		return "", errors.New("no such file or folder")
	}
	return abs, nil
}

func suiteOptions() suite.Options {
	return suite.Options{CheckMode: func(m string) error { _, err := compare.Lookup(m); return err }}
}

// SuiteInfo describes a suite the server was started with (GET /api/suites).
type SuiteInfo struct {
	Name     string `json:"name"`
	Title    string `json:"title"`
	Cases    int    `json:"cases"`
	Dialect  string `json:"dialect"`
	Database string `json:"database,omitempty"`
	Error    string `json:"error,omitempty"`
}

func (s *Server) handleSuites(w http.ResponseWriter, r *http.Request) {
	out := struct {
		Suites    []SuiteInfo `json:"suites"`
		Databases []string    `json:"databases"`
	}{Suites: []SuiteInfo{}, Databases: s.dbNames}
	for name, p := range s.suites {
		info := SuiteInfo{Name: name}
		if st, err := s.loadConfigured(p); err != nil {
			info.Error = qeval.ErrorMessage(err)
		} else {
			info.Title, info.Cases, info.Dialect, info.Database = st.Name, len(st.Cases), st.Dialect, st.Database
		}
		out.Suites = append(out.Suites, info)
	}
	sort.Slice(out.Suites, func(i, j int) bool { return out.Suites[i].Name < out.Suites[j].Name })
	if out.Databases == nil {
		out.Databases = []string{}
	}
	writeJSON(w, http.StatusOK, out)
}

// posted is a suite to run and where it came from.
type posted struct {
	suite      *qeval.Suite
	configured bool              // one of Config.Suites (trusted: it may call a target)
	display    map[string]string // database path → the name shown in results
}

// configuredSuite loads a suite the server was started with, afresh from its file.
func (s *Server) configuredSuite(name string) (*posted, error) {
	p, ok := s.suites[name]
	if !ok {
		known := make([]string, 0, len(s.suites))
		for n := range s.suites {
			known = append(known, n)
		}
		sort.Strings(known)
		return nil, &FieldError{Field: "suite", Err: &qeval.Error{Code: qeval.CodeNotFound,
			Message: fmt.Sprintf("no suite named %q (known: %s)", name, strings.Join(known, ", "))}}
	}
	st, err := s.loadConfigured(p)
	if err != nil {
		return nil, &FieldError{Field: "suite", Err: err}
	}
	return &posted{suite: st, configured: true, display: s.display(st, filepath.Dir(p))}, nil
}

// display maps the database targets a suite uses to the names it uses for them (and a
// configured suite's folder to "."), so results show the suite's own names and no path
// of the server's machine reaches a client.
func (s *Server) display(st *qeval.Suite, suiteDir string) map[string]string {
	m := map[string]string{}
	if suiteDir != "" {
		m[suiteDir] = "."
	}
	for _, name := range append([]string{st.Database}, caseDatabases(st)...) {
		if t, ok := s.dbs[name]; ok {
			if _, taken := m[t]; !taken {
				m[t] = name
			}
		}
	}
	return m
}

// caseDatabases returns the database of each case.
func caseDatabases(st *qeval.Suite) []string {
	out := make([]string, len(st.Cases))
	for i, c := range st.Cases {
		out[i] = c.Database
	}
	return out
}
