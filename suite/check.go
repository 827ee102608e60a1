package suite

import (
	"context"
	"strconv"
	"strings"

	"github.com/qeval/qeval"
)

// check reports what is wrong with a decoded suite; ids are filled in where missing.
func check(s *qeval.Suite, p *problems, opt Options) {
	malloy := strings.EqualFold(s.Dialect, qeval.DialectMalloy)
	switch strings.ToLower(s.Dialect) {
	case "", "sql", "sqlite", "kql", qeval.DialectMalloy:
	default:
		p.add(0, "", "unknown dialect %q (known: sql, kql, malloy)", s.Dialect)
	}
	if s.MalloyModel != nil {
		checkMalloyModel(s.MalloyModel, 0, "", malloy, p)
	}
	if s.Mode != "" && opt.CheckMode != nil {
		if err := opt.CheckMode(s.Mode); err != nil {
			p.add(0, "", "%s", qeval.ErrorMessage(err))
		}
	}
	if s.Threshold != nil {
		if err := qeval.CheckFraction("threshold", *s.Threshold); err != nil {
			p.add(0, "", "%s", qeval.ErrorMessage(err))
		}
	}
	for k, w := range s.Weights {
		if !qeval.IsComponent(k) {
			p.add(0, "", "unknown weight %q (known: %s)", k, strings.Join(qeval.Components, ", "))
		} else if w < 0 {
			p.add(0, "", "weight %s is negative", k)
		}
	}
	for _, r := range s.PassRequires {
		if r != "score" && r != "execution" {
			p.add(0, "", "unknown pass_requires %q (known: score, execution)", r)
		}
	}
	if err := qeval.CheckFailOn("fail_on", s.FailOn); err != nil {
		p.add(0, "", "%s", qeval.ErrorMessage(err))
	}
	if s.Target != nil {
		n := 0
		for _, set := range []bool{s.Target.Predictions != "", len(s.Target.Command) > 0, s.Target.URL != ""} {
			if set {
				n++
			}
		}
		if n > 1 {
			p.add(0, "", "target: give one of predictions, command or url, not %d", n)
		}
	}
	if s.Stream == nil && len(s.Cases) == 0 {
		p.add(0, "", "the suite has no cases")
	}
	cc := caseChecker{ids: map[string]int{}, malloy: malloy, suiteModel: s.MalloyModel != nil,
		notSQL: strings.EqualFold(s.Dialect, "kql") || malloy}
	for i := range s.Cases {
		cc.check(i, &s.Cases[i], p)
	}
}

// caseChecker checks the cases of a suite one by one, in order: a missing id becomes the
// case's number, an id used twice and a missing expected_query are problems.
type caseChecker struct {
	ids map[string]int // id → the line it was first used on
	// malloy: a Malloy suite, whose cases each need a model (suiteModel: the suite
	// names one for all)
	malloy, suiteModel bool
	// notSQL: a KQL or Malloy suite, whose cases cannot be stateful
	notSQL bool
}

// checkMalloyModel reports a malloy_model without files or connection, or outside a
// Malloy suite.
func checkMalloyModel(m *qeval.MalloyModel, line int, id string, malloy bool, p *problems) {
	if !malloy {
		p.add(line, id, "malloy_model is for Malloy suites (dialect: malloy)")
		return
	}
	if len(m.Files) == 0 {
		p.add(line, id, "malloy_model has no files (files: [model.malloy])")
	}
	if strings.TrimSpace(m.Connection) == "" {
		p.add(line, id, "malloy_model has no connection (the database its sources read: duckdb:FILE, postgres://…, or mirror:duckdb)")
	}
}

func (cc *caseChecker) check(i int, c *qeval.Case, p *problems) {
	if strings.TrimSpace(c.ID) == "" {
		c.ID = strconv.Itoa(i + 1)
	}
	if cc.ids != nil {
		if first, dup := cc.ids[c.ID]; dup {
			p.add(c.Line, c.ID, "duplicate id (first used on line %d)", first)
		} else {
			cc.ids[c.ID] = c.Line
		}
	}
	if strings.TrimSpace(c.ExpectedQuery) == "" && !p.goldsBad[c.Line] {
		p.add(c.Line, c.ID, "missing expected_query")
	}
	if c.Stateful() && cc.notSQL {
		p.add(c.Line, c.ID, "setup, checks, compare_state, compare_schema, teardown and efficiency are for SQL suites: a stateful case runs SQL in a copy of the database")
	}
	for _, msg := range c.CheckStateful() {
		p.add(c.Line, c.ID, "%s", msg)
	}
	if c.MalloyModel != nil {
		checkMalloyModel(c.MalloyModel, c.Line, c.ID, cc.malloy, p)
	} else if cc.malloy && !cc.suiteModel {
		p.add(c.Line, c.ID, "no malloy_model: a Malloy suite names its model (malloy_model: {files: [...], connection: ...}) for all cases or for each")
	}
}

// Check resolves every database a suite names with the catalog, once per name, and
// reports every one it cannot resolve at once, each with its file:line and case id.
func Check(ctx context.Context, s *qeval.Suite, cat qeval.Catalog) error {
	p := &problems{file: s.Path}
	if p.file == "" {
		p.file = s.Name
	}
	dialect := "sql"
	if strings.EqualFold(s.Dialect, "kql") {
		dialect = "kql"
	}
	seen := map[string]error{}
	missing := 0 // problems that are missing files or unknown names, not malformed ones
	resolve := func(line int, id, name string) {
		if name == "" {
			return
		}
		err, done := seen[name]
		if !done {
			_, err = cat.Resolve(ctx, name, dialect)
			seen[name] = err
		} else if err != nil && line == 0 {
			return
		}
		if err != nil {
			p.add(line, id, "database %q: %s", name, qeval.ErrorMessage(err))
			if qeval.ErrorCode(err) == qeval.CodeNotFound {
				missing++
			}
		}
	}
	resolve(0, "", s.Database)
	resolve(0, "", s.PredictionDatabaseFor(s.Database))
	if err := s.EachCase(func(_ int, c qeval.Case) error {
		if c.Database != "" && c.Database != s.Database {
			resolve(c.Line, c.ID, c.Database)
			resolve(c.Line, c.ID, s.PredictionDatabaseFor(c.Database))
		}
		return nil
	}); err != nil {
		return err
	}
	if len(p.list) > 0 {
		err := p.err().(*qeval.Error)
		err.Hint = "a database is a SQLite file or test-suite folder (relative to the suite), or a name given with --db NAME=TARGET"
		if missing == len(p.list) {
			// like a missing suite file: the run could not be done (exit 1)
			err.Code = qeval.CodeNotFound
		}
		return err
	}
	return nil
}
