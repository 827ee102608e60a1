package execmatch_test

import (
	"bufio"
	"context"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/compare"
	"github.com/qeval/qeval/execmatch"
	"github.com/qeval/qeval/internal/testdata"
	"github.com/qeval/qeval/sqlite"
)

type goldLine struct {
	line  int
	query string
	dbID  string
}

// readGold reads dev_gold.sql (query TAB db_id), keeping the lines whose database is
// present.
func readGold(t *testing.T, data string) []goldLine {
	t.Helper()
	f, err := os.Open(filepath.Join(data, "spider", "dev_gold.sql"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []goldLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		q, db, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			continue
		}
		if _, err := os.Stat(spiderDBFile(data, db)); err != nil {
			continue // wta_1 is not in the shared data
		}
		out = append(out, goldLine{line: n, query: q, dbID: db})
	}
	if len(out) < 500 {
		t.Fatalf("dev_gold.sql: %d usable lines, want the Spider dev set", len(out))
	}
	return out
}

func spiderDBFile(data, db string) string {
	return filepath.Join(data, "spider", "database", db, db+".sqlite")
}

// A breakage turns a correct query into a wrong one, or reports that it does not apply.
type breakage struct {
	name string
	fn   func(q string) (string, bool)
}

var (
	reNumber   = regexp.MustCompile(`([=<>]\s*)(\d+)\b`)
	reString   = regexp.MustCompile(`('[^']*'|"[^"]*")`)
	reWhere    = regexp.MustCompile(`(?is)\s+WHERE\s+.*?(\s+(GROUP\s+BY|ORDER\s+BY|LIMIT)\b|$)`)
	reMinMax   = regexp.MustCompile(`(?i)\b(min|max)\s*\(`)
	reLimit    = regexp.MustCompile(`(?i)\bLIMIT\s+(\d+)`)
	reSelect   = regexp.MustCompile(`(?i)^\s*SELECT\s+(DISTINCT\s+)?`)
	reCount    = regexp.MustCompile(`(?i)\bcount\s*\(\s*\*\s*\)`)
	reWhereEq  = regexp.MustCompile(`(?i)(\bWHERE\s+[\w.]+\s*)=`)
	reAvg      = regexp.MustCompile(`(?i)\bavg\s*\(`)
	reOrderDir = regexp.MustCompile(`(?i)\bORDER\s+BY\s+([^;]*?)(\s+(ASC|DESC))?(\s+LIMIT\b|\s*$)`)
	reFrom     = regexp.MustCompile(`(?i)\bFROM\s+(\w+)`)
)

// The last two make the query fail; the others make it return something else.
var breakages = []breakage{
	{"change_number", func(q string) (string, bool) {
		m := reNumber.FindStringSubmatchIndex(q)
		if m == nil {
			return q, false
		}
		n, _ := strconv.Atoi(q[m[4]:m[5]])
		return q[:m[4]] + strconv.Itoa(n+7) + q[m[5]:], true
	}},
	{"change_string", func(q string) (string, bool) {
		m := reString.FindStringIndex(q)
		if m == nil {
			return q, false
		}
		return q[:m[1]-1] + "zz" + q[m[1]-1:], true
	}},
	{"drop_where", func(q string) (string, bool) {
		if strings.Count(strings.ToUpper(q), "SELECT") != 1 {
			return q, false // keep it simple: no subqueries
		}
		m := reWhere.FindStringSubmatchIndex(q)
		if m == nil {
			return q, false
		}
		return q[:m[0]] + q[m[2]:], true
	}},
	{"swap_min_max", func(q string) (string, bool) {
		if !reMinMax.MatchString(q) {
			return q, false
		}
		return reMinMax.ReplaceAllStringFunc(q, func(s string) string {
			if strings.EqualFold(s[:3], "min") {
				return "max" + s[3:]
			}
			return "min" + s[3:]
		}), true
	}},
	{"change_limit", func(q string) (string, bool) {
		m := reLimit.FindStringSubmatchIndex(q)
		if m == nil {
			return q, false
		}
		n, _ := strconv.Atoi(q[m[2]:m[3]])
		return q[:m[2]] + strconv.Itoa(n+1) + q[m[3]:], true
	}},
	{"count_plus_one", func(q string) (string, bool) {
		m := reCount.FindStringIndex(q)
		if m == nil {
			return q, false
		}
		return q[:m[1]] + " + 1" + q[m[1]:], true
	}},
	{"equal_to_unequal", func(q string) (string, bool) {
		m := reWhereEq.FindStringSubmatchIndex(q)
		if m == nil {
			return q, false
		}
		return q[:m[3]] + "!" + q[m[3]:], true
	}},
	{"avg_to_sum", func(q string) (string, bool) {
		if !reAvg.MatchString(q) {
			return q, false
		}
		return reAvg.ReplaceAllString(q, "sum("), true
	}},
	{"flip_order", func(q string) (string, bool) {
		m := reOrderDir.FindStringSubmatchIndex(q)
		if m == nil {
			return q, false
		}
		dir := " DESC"
		if m[6] >= 0 && strings.EqualFold(q[m[6]:m[7]], "DESC") {
			dir = " ASC"
		}
		return q[:m[3]] + dir + q[m[8]:], true
	}},
	{"missing_column", func(q string) (string, bool) {
		m := reSelect.FindStringIndex(q)
		if m == nil {
			return q, false
		}
		return q[:m[1]] + "no_such_column, " + q[m[1]:], true
	}},
	{"missing_table", func(q string) (string, bool) {
		m := reFrom.FindStringSubmatchIndex(q)
		if m == nil {
			return q, false
		}
		return q[:m[3]] + "_gone" + q[m[3]:], true
	}},
}

// canonical is an independent picture of a result for the meaningfulness check: each
// row's values keyed as Python compares them (1 and 1.0 alike, text apart) and sorted,
// then the rows sorted unless order matters. Two results spider-ts finds equal always
// have the same picture, so a different picture proves the queries differ.
func canonical(rs *qeval.ResultSet, ordered bool) []string {
	out := make([]string, len(rs.Rows))
	for i, r := range rs.Rows {
		keys := make([]string, len(r))
		for j, v := range r {
			keys[j] = valueKey(v)
		}
		slices.Sort(keys)
		out[i] = strings.Join(keys, "\x00")
	}
	if !ordered {
		slices.Sort(out)
	}
	return out
}

func valueKey(v qeval.Value) string {
	switch v.Kind {
	case qeval.KindInt:
		return "n" + strconv.FormatInt(v.Int, 10)
	case qeval.KindFloat:
		if v.Float == math.Trunc(v.Float) && math.Abs(v.Float) < 1<<62 {
			return "n" + strconv.FormatInt(int64(v.Float), 10)
		}
		return "f" + strconv.FormatFloat(v.Float, 'g', -1, 64)
	case qeval.KindText:
		return "t" + v.Str
	case qeval.KindBytes:
		return "b" + v.Str
	}
	return "N"
}

// TestSpider5050: 50 real gold queries judged against themselves all match; 50 broken
// on purpose, each checked to really return something different (or fail), all fail.
func TestSpider5050(t *testing.T) {
	data := testdata.SharedDir(t)
	gold := readGold(t, data)
	step := len(gold) / 50

	execs := map[string]*sqlite.Executor{}
	defer func() {
		for _, e := range execs {
			e.Close()
		}
	}()
	run := func(db, q string) (*qeval.ResultSet, error) {
		e := execs[db]
		if e == nil {
			var err error
			if e, err = sqlite.Open(spiderDBFile(data, db), qeval.Limits{}); err != nil {
				t.Fatal(err)
			}
			execs[db] = e
		}
		return e.Query(context.Background(), q)
	}

	var items []qeval.Item
	var wantMatch []bool
	var why []string
	for i := 0; i < 50; i++ {
		g := gold[i*step]
		items = append(items, qeval.Item{Index: len(items), DBID: g.dbID, Database: spiderDBFile(data, g.dbID), Gold: g.query, Pred: g.query})
		wantMatch = append(wantMatch, true)
		why = append(why, "as is")
	}

	// Semantic breakages first; the two that make the query fail are kept
	// for at most 10 items, so most broken queries run and return something else.
	semantic, failing := breakages[:len(breakages)-2], breakages[len(breakages)-2:]
	used := map[string]int{}
	broken, errs := 0, 0
	for i := step / 2; broken < 50 && i < len(gold); i++ {
		g := gold[i]
		// the least used kinds first, so that every kind gets its share
		order := slices.Clone(semantic)
		slices.SortStableFunc(order, func(a, b breakage) int { return used[a.name] - used[b.name] })
		if errs < 10 {
			order = append(order, failing[errs%2])
		}
		for _, b := range order {
			pred, ok := b.fn(g.query)
			if !ok || pred == g.query {
				continue
			}
			// The queries spider-ts will run, and whether it will compare in order.
			gq, pq, ordered := compare.SpiderTS.Prepare(g.query, pred, compare.Options{})
			grs, err := run(g.dbID, gq)
			if err != nil {
				t.Fatalf("dev_gold.sql:%d: gold fails: %v", g.line, err)
			}
			prs, err := run(g.dbID, pq)
			differs := err != nil || len(prs.Rows) != len(grs.Rows) ||
				(len(prs.Rows) > 0 && len(prs.Rows[0]) != len(grs.Rows[0])) ||
				!slices.Equal(canonical(grs, ordered), canonical(prs, ordered))
			if !differs {
				continue // this breakage changes nothing here: not a meaningful case
			}
			items = append(items, qeval.Item{Index: len(items), DBID: g.dbID, Database: spiderDBFile(data, g.dbID), Gold: g.query, Pred: pred})
			wantMatch = append(wantMatch, false)
			why = append(why, b.name)
			used[b.name]++
			if err != nil {
				errs++
			}
			broken++
			i += step/2 - 1 // spread the broken queries over the set
			break
		}
	}
	if broken != 50 {
		t.Fatalf("only %d meaningful broken queries could be made", broken)
	}
	if len(used) < 9 {
		t.Errorf("breakages used %v: want at least 9 kinds", used)
	}

	e := mustEvaluator(t, spiderOpts(execmatch.Options{}))
	vs, sum := e.Run(context.Background(), items, 0, nil)
	for i, v := range vs {
		if v.Match != wantMatch[i] {
			t.Errorf("item %d (%s, %s): match=%v (%s %s), want %v\n gold: %s\n pred: %s",
				i, items[i].DBID, why[i], v.Match, v.Outcome, v.Error, wantMatch[i], items[i].Gold, items[i].Pred)
		}
		if !wantMatch[i] && v.Outcome != qeval.OutcomeMismatch && v.Outcome != qeval.OutcomePredError {
			t.Errorf("item %d (%s): outcome %s, want mismatch or pred_error", i, why[i], v.Outcome)
		}
	}
	if sum.Correct != 50 || sum.Total != 100 {
		t.Errorf("summary: %d of %d correct, want 50 of 100", sum.Correct, sum.Total)
	}
	t.Logf("breakages used: %v; outcomes %v", used, sum.Outcomes)
}
