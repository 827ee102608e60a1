// Package shard splits a run into parts (--shard I/N) and merges the parts' reports
// back into the report of the whole run (qeval merge): for suites and benchmarks alike.
package shard

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/report"
	"github.com/qeval/qeval/runner"
)

// Part is one part of a sharded run: --shard I/N, I counted from 1.
type Part struct{ I, N int }

func (s *Part) String() string { return fmt.Sprintf("%d/%d", s.I, s.N) }

// Owns says whether unit k (an item, or an interaction of a multi-turn file) is in
// the shard: round-robin by its position, so parts are even and the same for every
// run of the same file.
func (s *Part) Owns(k int) bool { return k%s.N == s.I-1 }

// OwnsID says whether the case with this id is in the shard: by a hash of the id, so
// a case stays in its shard when cases are added, removed or reordered.
func (s *Part) OwnsID(id string) bool {
	h := fnv.New32a()
	h.Write([]byte(id))
	return int(h.Sum32()%uint32(s.N)) == s.I-1
}

// Suite keeps the cases of one shard and returns the ids of every case, in the
// suite's order, for qeval merge to put the shards' cases back in that order.
func Suite(st *qeval.Suite, s *Part) []string {
	ids := make([]string, len(st.Cases))
	kept := st.Cases[:0:0]
	for i, c := range st.Cases {
		ids[i] = c.ID
		if s.OwnsID(c.ID) {
			kept = append(kept, c)
		}
	}
	st.Cases = kept
	return ids
}

// Parse reads --shard I/N ("" is the whole run).
func Parse(s string) (*Part, error) {
	if s == "" {
		return nil, nil
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "--shard " + s, Message: "not I/N with 1 ≤ I ≤ N",
			Hint: "--shard 2/4 takes the second of four parts; run 1/4 … 4/4 and combine them with qeval merge"}
	}
	return &Part{I: i, N: n}, nil
}

// Manifest is written beside a shard's items (ITEMS.shard.json): what qeval merge
// needs to check the shards belong together and to rebuild the whole run's report.
type Manifest struct {
	Kind string `json:"kind"` // "run"
	// Benchmark names the benchmark of a benchmark run's shard ("" for a suite).
	Benchmark string  `json:"benchmark,omitempty"`
	Shard     string  `json:"shard"`
	Items     int     `json:"items"` // in the whole run
	Mode      string  `json:"mode,omitempty"`
	Gold      string  `json:"gold"`
	Version   string  `json:"qeval_version"`
	WallMS    float64 `json:"wall_ms"`
	ItemsFile string  `json:"items_file"` // relative to the manifest's folder
	// Report is the shard's report.json, relative to the manifest's folder, when it is
	// not the items file itself (a benchmark shard written with --items).
	Report string `json:"report,omitempty"`
	// CaseIDs are every case of a sharded qeval run, in the suite's order.
	CaseIDs []string `json:"case_ids,omitempty"`
	path    string
}

// ManifestPath is where the manifest of a shard whose items (or report) are at
// itemsPath goes: ITEMS.shard.json beside them.
func ManifestPath(itemsPath string) string {
	base := strings.TrimSuffix(strings.TrimSuffix(itemsPath, ".jsonl"), ".json")
	return base + ".shard.json"
}

// WriteManifest writes m beside the shard's items.
func WriteManifest(itemsPath string, m Manifest) error {
	m.ItemsFile = filepath.Base(itemsPath)
	b, _ := json.MarshalIndent(m, "", "  ")
	p := ManifestPath(itemsPath)
	if err := os.WriteFile(p, append(b, '\n'), 0o644); err != nil {
		return &qeval.Error{Code: qeval.CodeInvalid, Op: "write shard manifest " + p, Message: err.Error(), Err: err}
	}
	return nil
}

// FindManifests reads the manifests named or found in the folders given.
func FindManifests(args []string) ([]*Manifest, error) {
	var paths []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, &qeval.Error{Code: qeval.CodeNotFound, Op: "open " + a, Message: "no such file or folder"}
		}
		switch {
		case st.IsDir():
			found, _ := filepath.Glob(filepath.Join(a, "*.shard.json"))
			if len(found) == 0 {
				return nil, &qeval.Error{Code: qeval.CodeNotFound, Op: "open " + a, Message: "no *.shard.json manifest in the folder",
					Hint: "each qeval spider --shard I/N --items FILE writes one beside FILE"}
			}
			paths = append(paths, found...)
		case strings.HasSuffix(a, ".shard.json"):
			paths = append(paths, a)
		default:
			paths = append(paths, ManifestPath(a))
		}
	}
	var out []*Manifest
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, &qeval.Error{Code: qeval.CodeNotFound, Op: "open " + p, Message: "no shard manifest: " + err.Error()}
		}
		m := &Manifest{}
		if err := json.Unmarshal(b, m); err != nil || m.Kind == "" {
			return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "read " + p, Message: fmt.Sprintf("not a shard manifest (%v)", err)}
		}
		m.path = p
		out = append(out, m)
	}
	return out, nil
}

// Merge checks the manifests are the parts 1…N of one qeval run and rebuilds its
// report: the cases in the suite's order, the summary computed again from them (so the
// aggregates and bootstrap intervals are those of one unsharded run), the judge's
// counts and the gold audit added up. missing counts the suite's cases no shard has.
func Merge(ms []*Manifest) (rep *qeval.Report, missing int, err error) {
	if err := checkParts(ms); err != nil {
		return nil, 0, err
	}
	first := ms[0]
	pos := make(map[string]int, len(first.CaseIDs))
	for i, id := range first.CaseIDs {
		pos[id] = i
	}
	m := &merger{rep: &qeval.Report{SchemaVersion: qeval.ReportSchemaVersion}, pos: pos, seen: map[string]string{}}
	for k, part := range ms {
		if err := m.add(k, part); err != nil {
			return nil, 0, err
		}
	}
	return m.finish()
}

// checkParts checks the manifests are the parts 1…N of one run, each given once.
func checkParts(ms []*Manifest) error {
	first := ms[0]
	parts := map[string]string{}
	n := 0
	for _, m := range ms {
		if m.Kind != "run" {
			return &qeval.Error{Code: qeval.CodeInvalid, Op: "read " + m.path, Message: "kind " + m.Kind + " cannot be merged",
				Hint: "the shard was written by an older qeval: run it again"}
		}
		if m.Benchmark != first.Benchmark {
			return &qeval.Error{Code: qeval.CodeInvalid, Op: "merge " + m.path, Message: fmt.Sprintf("a shard of %s among shards of %s", or(m.Benchmark, "a suite"), or(first.Benchmark, "a suite"))}
		}
		sh, err := Parse(m.Shard)
		if err != nil {
			return &qeval.Error{Code: qeval.CodeInvalid, Op: "read " + m.path, Message: "shard " + m.Shard + ": " + qeval.ErrorMessage(err)}
		}
		if n == 0 {
			n = sh.N
		}
		if sh.N != n || m.Gold != first.Gold || !slices.Equal(m.CaseIDs, first.CaseIDs) {
			return &qeval.Error{Code: qeval.CodeInvalid, Op: "merge " + m.path,
				Message: fmt.Sprintf("not a part of the same run as %s (suite %s, %d cases, %d parts)", first.path, first.Gold, len(first.CaseIDs), n)}
		}
		if prev, ok := parts[m.Shard]; ok {
			return &qeval.Error{Code: qeval.CodeInvalid, Op: "merge", Message: fmt.Sprintf("shard %s given twice: %s and %s", m.Shard, prev, m.path)}
		}
		parts[m.Shard] = m.path
	}
	if len(parts) == n {
		return nil
	}
	var absent []string
	for i := 1; i <= n; i++ {
		if _, ok := parts[fmt.Sprintf("%d/%d", i, n)]; !ok {
			absent = append(absent, fmt.Sprintf("%d/%d", i, n))
		}
	}
	return &qeval.Error{Code: qeval.CodeInvalid, Op: "merge", Message: "missing shards: " + strings.Join(absent, ", ")}
}

// merger gathers the parts' reports into the whole run's.
type merger struct {
	rep   *qeval.Report
	pos   map[string]int    // case id → place in the run
	seen  map[string]string // case id → the report it came from
	judge *qeval.JudgeInfo
	audit *qeval.GoldAudit
}

// add reads part k's report: its cases, its run's times, its judge's counts and its
// gold audit.
func (m *merger) add(k int, part *Manifest) error {
	p := filepath.Join(filepath.Dir(part.path), part.ItemsFile)
	if part.Report != "" {
		p = filepath.Join(filepath.Dir(part.path), part.Report)
	}
	r, err := report.ReadFile(p)
	if err != nil {
		return err
	}
	for _, c := range r.Cases {
		if _, ok := m.pos[c.ID]; !ok {
			return &qeval.Error{Code: qeval.CodeInvalid, Op: "merge " + p, Message: fmt.Sprintf("case %q is not in the suite the shards were made from", c.ID)}
		}
		if prev, ok := m.seen[c.ID]; ok {
			return &qeval.Error{Code: qeval.CodeInvalid, Op: "merge " + p, Message: fmt.Sprintf("case %q is in two shards (%s and %s)", c.ID, prev, p)}
		}
		m.seen[c.ID] = p
		m.rep.Cases = append(m.rep.Cases, c)
	}
	run := &m.rep.Run
	if k == 0 {
		*run = r.Run
	} else {
		if r.Run.Started.Before(run.Started) {
			run.Started = r.Run.Started
		}
		if r.Run.Finished.After(run.Finished) {
			run.Finished = r.Run.Finished
		}
		run.Interrupted = run.Interrupted || r.Run.Interrupted
		if b := r.Run.Benchmark; b != nil && run.Benchmark != nil {
			run.Benchmark.Metas = append(run.Benchmark.Metas, b.Metas...)
		}
	}
	if j := r.Run.Judge; j != nil {
		if m.judge == nil {
			cp := *j
			m.judge = &cp
		} else {
			m.judge.Calls += j.Calls
			m.judge.CacheHits += j.CacheHits
			m.judge.TokensIn += j.TokensIn
			m.judge.TokensOut += j.TokensOut
		}
	}
	if a := r.Audit; a != nil {
		if m.audit == nil {
			m.audit = &qeval.GoldAudit{Counts: map[string]int{}, ExcludeFlags: a.ExcludeFlags}
		}
		m.audit.Total += a.Total
		m.audit.Flagged += a.Flagged
		m.audit.Untrustworthy += a.Untrustworthy
		m.audit.Excluded += a.Excluded
		for f, c := range a.Counts {
			m.audit.Counts[f] += c
		}
		m.audit.Cases = append(m.audit.Cases, a.Cases...)
	}
	return nil
}

// finish puts the cases in the run's order, summarizes them again, and counts the
// cases no part has (those the audit set aside excepted).
func (m *merger) finish() (*qeval.Report, int, error) {
	rep, pos := m.rep, m.pos
	sort.SliceStable(rep.Cases, func(a, b int) bool { return pos[rep.Cases[a].ID] < pos[rep.Cases[b].ID] })
	missing := len(pos) - len(m.seen)
	if m.audit != nil {
		sort.SliceStable(m.audit.Cases, func(a, b int) bool { return pos[m.audit.Cases[a].ID] < pos[m.audit.Cases[b].ID] })
		excluded := map[string]bool{}
		for _, c := range m.audit.Cases {
			excluded[c.ID] = c.Excluded
		}
		missing = 0
		for id := range pos {
			if _, ok := m.seen[id]; !ok && !excluded[id] {
				missing++
			}
		}
	}
	rep.Run.Judge = m.judge
	rep.Run.DurationMS = float64(rep.Run.Finished.Sub(rep.Run.Started).Microseconds()) / 1000
	rep.Audit = m.audit
	rep.Summary = runner.Summarize(rep.Cases, rep.Run.Threshold)
	return rep, missing, nil
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
