package server

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/compare"
	"github.com/qeval/qeval/suite"
)

// configure checks the configured databases and suites and builds the table of
// database names a posted suite may use.
func (s *Server) configure() error {
	var problems []string
	direct := map[string]string{}
	for name, p := range s.cfg.Databases {
		abs, err := existing(p)
		if err != nil {
			problems = append(problems, fmt.Sprintf("--db %s=%s: %v", name, p, err))
			continue
		}
		direct[name] = abs
	}
	names := map[string]bool{}
	for name := range direct {
		names[name] = true
	}
	for name, p := range s.cfg.Suites {
		abs, err := filepath.Abs(p)
		if err != nil {
			problems = append(problems, fmt.Sprintf("--suite %s=%s: %v", name, p, err))
			continue
		}
		st, err := suite.Load(abs, suiteOptions(names))
		if err != nil {
			problems = append(problems, fmt.Sprintf("--suite %s=%s: %s", name, p, qeval.ErrorMessage(err)))
			continue
		}
		s.suites[name] = abs
		if _, taken := direct[name]; !taken && st.Database != "" {
			if p, ok := direct[st.Database]; ok {
				direct[name] = p
			} else {
				direct[name] = suite.ResolveDatabase(st, st.Database, nil)
			}
		}
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return &qeval.Error{Code: qeval.CodeInvalid, Message: "configuration:\n  - " + strings.Join(problems, "\n  - ")}
	}
	// A database's file name is a name too, when no other database has it.
	byBase := map[string][]string{}
	for _, p := range direct {
		b := filepath.Base(p)
		if !contains(byBase[b], p) {
			byBase[b] = append(byBase[b], p)
		}
	}
	for b, paths := range byBase {
		if len(paths) == 1 {
			s.dbs[b] = paths[0]
		}
	}
	for name, p := range direct {
		s.dbs[name] = p
	}
	for name := range s.dbs {
		s.dbNames = append(s.dbNames, name)
	}
	sort.Strings(s.dbNames)
	return nil
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

func suiteOptions(connections map[string]bool) suite.Options {
	return suite.Options{Connections: connections, CheckMode: func(m string) error { _, err := compare.Lookup(m); return err }}
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
		if st, err := suite.Load(p, suiteOptions(s.dbNameSet())); err != nil {
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
	st, err := suite.Load(p, suiteOptions(s.dbNameSet()))
	if err != nil {
		return nil, &FieldError{Field: "suite", Err: err}
	}
	// Its databases are files beside it, or names the server was started with.
	display := map[string]string{filepath.Dir(p): "."}
	resolve := func(db string) string {
		if db == "" {
			return ""
		}
		path := suite.ResolveDatabase(st, db, nil)
		if named, ok := s.dbs[db]; ok {
			path = named
		}
		display[path] = db
		return path
	}
	st.Database = resolve(st.Database)
	for i := range st.Cases {
		st.Cases[i].Database = resolve(st.Cases[i].Database)
	}
	return &posted{suite: st, configured: true, display: display}, nil
}

// dbNameSet returns the names of the configured databases.
func (s *Server) dbNameSet() map[string]bool {
	m := make(map[string]bool, len(s.dbs))
	for n := range s.dbs {
		m[n] = true
	}
	return m
}
