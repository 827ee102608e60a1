package testsuite

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/qeval/qeval"
)

// SuiteGolds reads the gold queries of a suite whose cases name SQLite database files,
// resolved through cat: each file becomes one folder of the test suite, named after
// it. path names the suite in messages.
func SuiteGolds(ctx context.Context, s *qeval.Suite, cat qeval.Catalog, path string) ([]Gold, error) {
	var golds []Gold
	var problems []string
	for _, c := range s.Cases {
		name := c.Database
		if name == "" {
			name = s.Database
		}
		src, err := cat.Resolve(ctx, name, "sql")
		if err != nil || src.Engine != "sqlite" || len(src.Files) != 1 {
			problems = append(problems, fmt.Sprintf("case %q: database %q is not a SQLite file", c.ID, name))
			continue
		}
		db := src.Files[0]
		if st, err := os.Stat(db); err != nil || st.IsDir() {
			problems = append(problems, fmt.Sprintf("case %q: database %q is not a SQLite file", c.ID, name))
			continue
		}
		id := strings.TrimSuffix(filepath.Base(db), filepath.Ext(db))
		golds = append(golds, Gold{DBID: id, SQL: c.ExpectedQuery, Ref: fmt.Sprintf("%s case %q", path, c.ID), Database: db})
	}
	if len(problems) > 0 {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "read suite " + path, Message: "cases without a SQLite file:\n  - " + strings.Join(problems, "\n  - ")}
	}
	return golds, nil
}

// Print writes the build's summary: per database the generated files and the
// neighbours killed (a gold's problem to stderr as a warning), then the totals.
func (m *Manifest) Print(stdout, stderr io.Writer, wall time.Duration) {
	failed := 0
	for _, d := range m.Databases {
		files := 0
		for _, f := range d.Files {
			if f.Generated {
				files++
			}
		}
		status := fmt.Sprintf("%d generated databases, %d/%d neighbours killed", files, d.Killed, d.Neighbours-d.Equivalent-d.Broken)
		if d.Error != "" {
			status = "error: " + d.Error
			failed++
		}
		fmt.Fprintf(stdout, "%-30s %s\n", d.DBID, status)
		for _, g := range d.Golds {
			if g.Error != "" {
				fmt.Fprintf(stderr, "warning: %s: %s\n", g.Ref, g.Error)
			}
		}
	}
	live := m.Neighbours - m.Equivalent - m.Broken
	fmt.Fprintf(stdout, "\nneighbours: %d made, %d equivalent under %s, %d failing; killed %d of %d (%.1f%%), of those any candidate told apart %d (%.1f%%)\n",
		m.Neighbours, m.Equivalent, m.Mode, m.Broken, m.Killed, live, percentOf(m.Killed, live), m.Killable, percentOf(m.Killed, m.Killable))
	fmt.Fprintf(stdout, "built %d databases (%d failed) in %.1fs; manifest.json in the suite folder\n", len(m.Databases), failed, wall.Seconds())
}

func percentOf(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}
