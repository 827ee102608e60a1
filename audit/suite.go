package audit

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/qeval/qeval"
)

// ParseFlags reads a comma-separated list of flag names (an empty list is nil); an
// unknown name is an error that names field and lists the flags.
func ParseFlags(field, list string) ([]string, error) {
	return CheckFlags(field, strings.Split(list, ","))
}

// CheckFlags checks flag names, dropping blanks.
func CheckFlags(field string, flags []string) ([]string, error) {
	known := make(map[string]bool, len(Flags))
	names := make([]string, 0, len(Flags))
	for _, f := range Flags {
		known[f.Name] = true
		names = append(names, f.Name)
	}
	var out []string
	for _, x := range flags {
		x = strings.TrimSpace(x)
		if x == "" {
			continue
		}
		if !known[x] {
			return nil, &qeval.Error{Code: qeval.CodeInvalid, Message: fmt.Sprintf("%s: unknown flag %q", field, x), Hint: "flags: " + strings.Join(names, ", ")}
		}
		out = append(out, x)
	}
	return out, nil
}

// SuiteItems turns the cases of a suite into audit items, one per gold query (a case
// with several golds gives several items, which share its Index and carry their
// GoldNumber), each database resolved through cat; a case that cannot be audited
// carries its error. path names the suite in the items' references.
func SuiteItems(ctx context.Context, s *qeval.Suite, cat qeval.Catalog, path string) []Item {
	out := make([]Item, 0, len(s.Cases))
	for i, c := range s.Cases {
		name := c.Database
		if name == "" {
			name = s.Database
		}
		golds := c.Golds()
		var src *qeval.Source
		var srcErr error
		resolved := false
		for g, gold := range golds {
			it := Item{Index: i, DBID: filepath.Base(name), Question: c.Question, Gold: gold}
			if len(golds) > 1 {
				it.GoldNumber = g + 1
			}
			it.Ref = suiteRef(path, c, it.GoldNumber)
			if len(c.Tags) == 1 && filepath.Base(name) == c.Tags[0] {
				it.DBID = c.Tags[0]
			}
			if strings.TrimSpace(gold) == "" {
				it.Err = fmt.Errorf("case %q has no expected query", c.ID)
			} else {
				if !resolved {
					src, srcErr = cat.Resolve(ctx, name, s.Dialect)
					resolved = true
				}
				it.Source, it.Err = src, srcErr
			}
			out = append(out, it)
		}
	}
	return out
}

// suiteRef names a case's gold in messages: suite.yaml:12 (case "c3"), with the gold's
// number when the case has several.
func suiteRef(path string, c qeval.Case, gold int) string {
	which := fmt.Sprintf("case %q", c.ID)
	if gold > 0 {
		which += fmt.Sprintf(", gold %d", gold)
	}
	if c.Line > 0 {
		return fmt.Sprintf("%s:%d (%s)", path, c.Line, which)
	}
	return path + " " + which
}

// Suite audits the gold queries of a suite before it runs and sets aside (removes from
// s.Cases) the cases flagged with one of exclude. The result is the run's audit
// section, which says which cases were flagged and which set aside. Each gold query
// runs within opt.Limits (10 s when no timeout is set).
func Suite(ctx context.Context, s *qeval.Suite, cat qeval.Catalog, exclude []string, opt Options) (*qeval.GoldAudit, error) {
	if strings.EqualFold(s.Dialect, "kql") {
		return nil, &qeval.Error{Code: qeval.CodeUnsupported, Op: "audit " + s.Path, Message: "the gold audit checks SQL suites; this suite is KQL",
			Hint: "drop --audit, --exclude-flagged and the suite's exclude_flagged"}
	}
	if opt.Limits.Timeout <= 0 {
		opt.Limits.Timeout = 10 * time.Second
	}
	path := s.Path
	if path == "" {
		path = s.Name
	}
	rep, err := Run(ctx, SuiteItems(ctx, s, cat, path), opt)
	if err != nil {
		return nil, err
	}
	ga := &qeval.GoldAudit{Total: rep.Total, Flagged: rep.Flagged, Untrustworthy: rep.Untrustworthy, Counts: rep.Counts, ExcludeFlags: exclude}
	// a case is set aside when one of its golds carries an excluded flag
	excluded := make([]bool, len(s.Cases))
	for _, f := range rep.Items {
		if f.HasAny(exclude...) {
			excluded[f.Index] = true
		}
	}
	for _, f := range rep.Items {
		if len(f.Flags) > 0 {
			ga.Cases = append(ga.Cases, qeval.AuditedCase{ID: s.Cases[f.Index].ID, Gold: f.GoldNumber, Flags: f.Flags,
				Excluded: excluded[f.Index], Evidence: f.Evidence})
		}
	}
	kept := make([]qeval.Case, 0, len(s.Cases))
	for i, c := range s.Cases {
		if excluded[i] {
			ga.Excluded++
			continue
		}
		kept = append(kept, c)
	}
	s.Cases = kept
	return ga, nil
}
