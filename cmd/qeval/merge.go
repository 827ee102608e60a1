package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/registry"
	"github.com/qeval/qeval/report"
	"github.com/qeval/qeval/runner"
)

// shardManifest is written beside a shard's items (ITEMS.shard.json): what qeval merge
// needs to check the shards belong together and to rebuild the whole run's report.
type shardManifest struct {
	Kind string `json:"kind"` // "run"
	// Benchmark names the benchmark of a benchmark run's shard ("" for a suite).
	Benchmark    string  `json:"benchmark,omitempty"`
	Shard        string  `json:"shard"`
	Items        int     `json:"items"`        // in the whole run
	Interactions int     `json:"interactions"` // in the whole run
	MultiTurn    bool    `json:"multi_turn"`
	Etype        string  `json:"etype"`
	Mode         string  `json:"mode,omitempty"`
	Gold         string  `json:"gold"`
	Pred         string  `json:"pred"`
	Version      string  `json:"qeval_version"`
	WallMS       float64 `json:"wall_ms"`
	ItemsFile    string  `json:"items_file"` // relative to the manifest's folder
	// Report is the shard's report.json, relative to the manifest's folder, when it is
	// not the items file itself (a benchmark shard written with --items).
	Report string `json:"report,omitempty"`
	// CaseIDs are every case of a sharded qeval run, in the suite's order.
	CaseIDs []string `json:"case_ids,omitempty"`
	path    string
}

func manifestPath(itemsPath string) string {
	base := strings.TrimSuffix(strings.TrimSuffix(itemsPath, ".jsonl"), ".json")
	return base + ".shard.json"
}

func writeManifest(itemsPath string, m shardManifest) error {
	m.ItemsFile = filepath.Base(itemsPath)
	b, _ := json.MarshalIndent(m, "", "  ")
	p := manifestPath(itemsPath)
	if err := os.WriteFile(p, append(b, '\n'), 0o644); err != nil {
		return &qeval.Error{Code: qeval.CodeInvalid, Op: "write shard manifest " + p, Message: err.Error(), Err: err}
	}
	return nil
}

// cmdMerge combines the shards of a sharded run into the report of the whole run:
// the same aggregates and, with --items, the same per-item lines as one unsharded run.
func cmdMerge(ctx context.Context, args []string, e *env) int {
	fs := newFlags("merge", "[--json] [--items OUT.jsonl] [-o DIR] SHARD…", e)
	jsonOut := fs.Bool("json", false, "print the summary (for qeval run shards: the report) as JSON instead of the table")
	itemsPath := fs.String("items", "", "write the items of every shard, in order, to this file (- for stdout)")
	outDir := fs.String("o", "", "for qeval run shards: write the merged report.json, report.xlsx, junit.xml, report.html and summary.md to this folder")
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	if fs.NArg() == 0 {
		return fail(e, &qeval.Error{Code: qeval.CodeInvalid, Message: "no shards given",
			Hint: "qeval merge shards/ (a folder of ITEMS.shard.json manifests), or the manifests or items files themselves"})
	}
	ms, err := findManifests(fs.Args())
	if err != nil {
		return fail(e, err)
	}
	return mergeRunShards(e, ms, *outDir, *itemsPath, *jsonOut)
}

// findManifests reads the manifests named or found in the folders given.
func findManifests(args []string) ([]*shardManifest, error) {
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
			paths = append(paths, manifestPath(a))
		}
	}
	var out []*shardManifest
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, &qeval.Error{Code: qeval.CodeNotFound, Op: "open " + p, Message: "no shard manifest: " + err.Error()}
		}
		m := &shardManifest{}
		if err := json.Unmarshal(b, m); err != nil || m.Kind == "" {
			return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "read " + p, Message: fmt.Sprintf("not a shard manifest (%v)", err)}
		}
		m.path = p
		out = append(out, m)
	}
	return out, nil
}

// mergeRunShards combines the reports of qeval run --shard I/N into the report of the
// whole run and writes it as every report format (-o) or prints it.
func mergeRunShards(e *env, ms []*shardManifest, outDir, itemsPath string, asJSON bool) int {
	rep, missing, err := mergeRuns(ms)
	if err != nil {
		return fail(e, err)
	}
	if rep.Run.Benchmark != nil {
		if missing > 0 {
			return fail(e, &qeval.Error{Code: qeval.CodeInvalid, Op: "merge", Message: fmt.Sprintf("%d items are missing from every shard (a shard stopped early?)", missing)})
		}
		return mergeBenchmark(e, ms, rep, outDir, itemsPath, asJSON)
	}
	if outDir != "" {
		if err := os.MkdirAll(outDir, 0o755); err != nil {
			return fail(e, &qeval.Error{Code: qeval.CodeInvalid, Op: "create -o " + outDir, Message: err.Error()})
		}
		var written []string
		for _, name := range registry.WriterNames() {
			w, _ := registry.NewWriter(name)
			p := filepath.Join(outDir, w.FileName())
			if err := writeReportFile(name, p, rep); err != nil {
				return fail(e, err)
			}
			written = append(written, p)
		}
		fmt.Fprintf(e.stderr, "wrote %s\n", strings.Join(written, ", "))
	}
	if asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		enc.Encode(rep)
	} else {
		report.Text{}.Write(e.stdout, rep)
	}
	fmt.Fprintf(e.stderr, "merged %d shards: %d cases\n", len(ms), len(rep.Cases))
	if missing > 0 {
		fmt.Fprintf(e.stderr, "incomplete: %d cases of the suite are in no shard's report (an interrupted shard?)\n", missing)
		return exitFailed
	}
	return gates(e, rep, -1, -1)
}

// mergeRuns checks the manifests are the parts 1…N of one qeval run and rebuilds its
// report: the cases in the suite's order, the summary computed again from them (so the
// aggregates and bootstrap intervals are those of one unsharded run), the judge's
// counts and the gold audit added up. missing counts the suite's cases no shard has.
func mergeRuns(ms []*shardManifest) (rep *qeval.Report, missing int, err error) {
	first := ms[0]
	parts := map[string]string{}
	n := 0
	for _, m := range ms {
		if m.Kind != "run" {
			return nil, 0, &qeval.Error{Code: qeval.CodeInvalid, Op: "read " + m.path, Message: "kind " + m.Kind + " cannot be merged",
				Hint: "the shard was written by an older qeval: run it again"}
		}
		if m.Benchmark != first.Benchmark {
			return nil, 0, &qeval.Error{Code: qeval.CodeInvalid, Op: "merge " + m.path, Message: fmt.Sprintf("a shard of %s among shards of %s", or(m.Benchmark, "a suite"), or(first.Benchmark, "a suite"))}
		}
		sh, err := parseShard(m.Shard)
		if err != nil {
			return nil, 0, &qeval.Error{Code: qeval.CodeInvalid, Op: "read " + m.path, Message: "shard " + m.Shard + ": " + qeval.ErrorMessage(err)}
		}
		if n == 0 {
			n = sh.n
		}
		if sh.n != n || m.Gold != first.Gold || !slices.Equal(m.CaseIDs, first.CaseIDs) {
			return nil, 0, &qeval.Error{Code: qeval.CodeInvalid, Op: "merge " + m.path,
				Message: fmt.Sprintf("not a part of the same run as %s (suite %s, %d cases, %d parts)", first.path, first.Gold, len(first.CaseIDs), n)}
		}
		if prev, ok := parts[m.Shard]; ok {
			return nil, 0, &qeval.Error{Code: qeval.CodeInvalid, Op: "merge", Message: fmt.Sprintf("shard %s given twice: %s and %s", m.Shard, prev, m.path)}
		}
		parts[m.Shard] = m.path
	}
	if len(parts) != n {
		var absent []string
		for i := 1; i <= n; i++ {
			if _, ok := parts[fmt.Sprintf("%d/%d", i, n)]; !ok {
				absent = append(absent, fmt.Sprintf("%d/%d", i, n))
			}
		}
		return nil, 0, &qeval.Error{Code: qeval.CodeInvalid, Op: "merge", Message: "missing shards: " + strings.Join(absent, ", ")}
	}
	pos := make(map[string]int, len(first.CaseIDs))
	for i, id := range first.CaseIDs {
		pos[id] = i
	}
	rep = &qeval.Report{SchemaVersion: qeval.ReportSchemaVersion}
	var judgeInfo *qeval.JudgeInfo
	var audit *qeval.GoldAudit
	seen := map[string]string{}
	for k, m := range ms {
		p := filepath.Join(filepath.Dir(m.path), m.ItemsFile)
		if m.Report != "" {
			p = filepath.Join(filepath.Dir(m.path), m.Report)
		}
		r, err := report.ReadFile(p)
		if err != nil {
			return nil, 0, err
		}
		for _, c := range r.Cases {
			if _, ok := pos[c.ID]; !ok {
				return nil, 0, &qeval.Error{Code: qeval.CodeInvalid, Op: "merge " + p, Message: fmt.Sprintf("case %q is not in the suite the shards were made from", c.ID)}
			}
			if prev, ok := seen[c.ID]; ok {
				return nil, 0, &qeval.Error{Code: qeval.CodeInvalid, Op: "merge " + p, Message: fmt.Sprintf("case %q is in two shards (%s and %s)", c.ID, prev, p)}
			}
			seen[c.ID] = p
			rep.Cases = append(rep.Cases, c)
		}
		if k == 0 {
			rep.Run = r.Run
		} else {
			if r.Run.Started.Before(rep.Run.Started) {
				rep.Run.Started = r.Run.Started
			}
			if r.Run.Finished.After(rep.Run.Finished) {
				rep.Run.Finished = r.Run.Finished
			}
			rep.Run.Interrupted = rep.Run.Interrupted || r.Run.Interrupted
			if b := r.Run.Benchmark; b != nil && rep.Run.Benchmark != nil {
				rep.Run.Benchmark.Metas = append(rep.Run.Benchmark.Metas, b.Metas...)
			}
		}
		if j := r.Run.Judge; j != nil {
			if judgeInfo == nil {
				cp := *j
				judgeInfo = &cp
			} else {
				judgeInfo.Calls += j.Calls
				judgeInfo.CacheHits += j.CacheHits
				judgeInfo.TokensIn += j.TokensIn
				judgeInfo.TokensOut += j.TokensOut
			}
		}
		if a := r.Audit; a != nil {
			if audit == nil {
				audit = &qeval.GoldAudit{Counts: map[string]int{}, ExcludeFlags: a.ExcludeFlags}
			}
			audit.Total += a.Total
			audit.Flagged += a.Flagged
			audit.Excluded += a.Excluded
			for f, c := range a.Counts {
				audit.Counts[f] += c
			}
			audit.Cases = append(audit.Cases, a.Cases...)
		}
	}
	sort.SliceStable(rep.Cases, func(a, b int) bool { return pos[rep.Cases[a].ID] < pos[rep.Cases[b].ID] })
	if audit != nil {
		sort.SliceStable(audit.Cases, func(a, b int) bool { return pos[audit.Cases[a].ID] < pos[audit.Cases[b].ID] })
		excluded := map[string]bool{}
		for _, c := range audit.Cases {
			excluded[c.ID] = c.Excluded
		}
		for id := range pos {
			if _, ok := seen[id]; !ok && !excluded[id] {
				missing++
			}
		}
	} else {
		missing = len(pos) - len(seen)
	}
	rep.Run.Judge = judgeInfo
	rep.Run.DurationMS = float64(rep.Run.Finished.Sub(rep.Run.Started).Microseconds()) / 1000
	rep.Audit = audit
	rep.Summary = runner.Summarize(rep.Cases, rep.Run.Threshold)
	return rep, missing, nil
}

// mergeBenchmark finishes the merge of a benchmark run's shards: the official summary
// computed again from every item, the items and the reports written.
func mergeBenchmark(e *env, ms []*shardManifest, rep *qeval.Report, outDir, itemsPath string, asJSON bool) int {
	b, err := registry.LookupBenchmark(rep.Run.Benchmark.Name)
	if err != nil {
		return fail(e, err)
	}
	sum, err := summarizeBenchmark(b, rep, rep.Cases)
	if err != nil {
		return fail(e, err)
	}
	if outDir != "" {
		written, err := writeAllReports(outDir, rep)
		if err != nil {
			return fail(e, err)
		}
		fmt.Fprintf(e.stderr, "wrote %s\n", strings.Join(written, ", "))
	}
	if itemsPath != "" {
		if err := writeItemLines(itemsPath, e, rep.Cases); err != nil {
			return fail(e, err)
		}
	}
	printBenchmark(e, sum, asJSON, itemsPath == "-")
	fmt.Fprintf(e.stderr, "merged %d shards: %d items\n", len(ms), len(rep.Cases))
	return exitOK
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
