package kqlexec_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/internal/testdata"
	"github.com/qeval/qeval/kqlexec"
)

// kqlDataDir returns <module root>/../shared/data/kql (or $QEVAL_SHARED_DATA/kql), or
// skips the test when it is absent.
func kqlDataDir(tb testing.TB) string {
	tb.Helper()
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "shared", "data")
	if env := os.Getenv("QEVAL_SHARED_DATA"); env != "" {
		dir = env
	}
	dir = filepath.Join(dir, "kql")
	if _, err := os.Stat(filepath.Join(dir, "oracle", "docs_emulator_cases.jsonl")); err != nil {
		tb.Skipf("shared KQL data not found at %s (set QEVAL_SHARED_DATA to the shared data folder): the conformance cases need it", dir)
	}
	if err := testdata.CheckShared(filepath.Dir(dir)); err != nil {
		tb.Fatal(err)
	}
	return dir
}

type oracleCase struct {
	ID  string `json:"id"`
	KQL string `json:"kql"`
	// Now is the time the engine ran the case, when the case records it.
	Now      string        `json:"now"`
	Expected *oracleAnswer `json:"expected"`
}

// oracleAnswer is the real engine's answer to a case.
type oracleAnswer struct {
	Columns     []string          `json:"columns"`
	ColumnTypes []string          `json:"column_types"`
	Rows        []json.RawMessage `json:"rows"`
}

func loadOracle(tb testing.TB) []oracleCase {
	path := filepath.Join(kqlDataDir(tb), "oracle", "docs_emulator_cases.jsonl")
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []oracleCase
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	line := 0
	for sc.Scan() {
		line++
		var c oracleCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			tb.Fatalf("%s:%d: %v", path, line, err)
		}
		if c.Expected != nil {
			out = append(out, c)
		}
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

// conformanceGoal is the share of the engine's cases the local engine must answer
// exactly as the real Kusto engine did: a guard at what it answers (354 of 376, 94.1%;
// 13 of the failures draw random values), so that a regression of one case fails; the
// comparison's tolerance (1e-9 relative) absorbs a machine's last-digit float differences.
const conformanceGoal = 0.94

// TestConformance_KustoEngine runs every docs case that has a result from the real
// Kusto engine and compares column names, types and rows (as a bag unless the query
// sorts). It fails below conformanceGoal and logs the failures grouped by cause.
func TestConformance_KustoEngine(t *testing.T) {
	cases := loadOracle(t)
	exec, err := kqlexec.Open("", kqlexec.Options{Now: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), Limits: qeval.Limits{Timeout: 10 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	defer exec.Close()
	only := os.Getenv("QEVAL_KQL_CASE")
	causes := map[string][]string{}
	pass := 0
	for _, c := range cases {
		if only != "" && c.ID != only {
			continue
		}
		cause := runCase(exec, c)
		if cause != "" && clockRE.MatchString(c.KQL) {
			cause = runAtCaseClock(t, c, cause)
		}
		if only != "" {
			sqlText, _, _ := exec.Translate(c.KQL)
			t.Logf("case %s\n%s\nSQL: %s\ncause: %q", c.ID, c.KQL, sqlText, cause)
		}
		if cause == "" {
			pass++
			continue
		}
		causes[cause] = append(causes[cause], c.ID)
	}
	total := len(cases)
	if only != "" {
		total = 1
	}
	rate := float64(pass) / float64(total)
	var keys []string
	for k := range causes {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if len(causes[keys[i]]) != len(causes[keys[j]]) {
			return len(causes[keys[i]]) > len(causes[keys[j]])
		}
		return keys[i] < keys[j]
	})
	var b strings.Builder
	fmt.Fprintf(&b, "conformance: %d of %d cases match the Kusto engine (%.1f%%); failures by cause:\n", pass, total, 100*rate)
	for _, k := range keys {
		fmt.Fprintf(&b, "  %3d  %s: %s\n", len(causes[k]), k, strings.Join(causes[k], " "))
	}
	t.Log(b.String())
	if rate < conformanceGoal && only == "" {
		t.Errorf("conformance %.1f%% is below the goal of %.0f%%", 100*rate, 100*conformanceGoal)
	}
}

// clockRE finds the queries that read the clock.
var clockRE = regexp.MustCompile(`(?i)\b(now|ago)\s*\(`)

// oracleRan is when the engine's answers were recorded: the day of the harness
// commit that holds them (2026-08-02, the oracle README), a day either side. A
// clock read from an answer must fall in it: an instant of the data itself
// (2018-03-01 in a generated series) was never the time the engine ran.
var oracleRan = [2]time.Time{time.Date(2026, 8, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 8, 4, 0, 0, 0, 0, time.UTC)}

// runAtCaseClock reruns a case that reads the clock at the time the engine ran it.
// The cases do not record that time; a case may carry it ("now", RFC 3339), else
// the instants its answer shows are tried (a range ending at now(), print now(), a
// bin of now() ...), and each of them moved by a timespan the query writes or the
// answer shows (now(-2d), now() - timespanValue), those that fall within oracleRan,
// at most 64 of them. It returns "" when one of them matches, else the cause found
// at the test's own clock.
func runAtCaseClock(t *testing.T, c oracleCase, cause string) string {
	var clocks []time.Time
	if c.Now != "" {
		if at, err := time.Parse(time.RFC3339Nano, c.Now); err == nil {
			clocks = append(clocks, at)
		}
	} else {
		spans := append([]time.Duration{0}, spansIn(c.KQL, c.Expected)...)
		seen := map[time.Time]bool{}
		for _, at := range instantsIn(c.Expected.Rows, 64) {
			for _, d := range spans {
				for _, clock := range []time.Time{at.Add(d), at.Add(-d)} {
					if !seen[clock] && len(clocks) < 64 && !clock.Before(oracleRan[0]) && clock.Before(oracleRan[1]) {
						seen[clock] = true
						clocks = append(clocks, clock)
					}
				}
			}
		}
	}
	for _, at := range clocks {
		exec, err := kqlexec.Open("", kqlexec.Options{Now: at, Limits: qeval.Limits{Timeout: 10 * time.Second}, TempDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		got := runCase(exec, c)
		exec.Close()
		if got == "" {
			return ""
		}
	}
	return cause
}

// spanLitRE finds the timespan literals of a query (2d, 60s, 4.534h, 10ms).
var spanLitRE = regexp.MustCompile(`\b(\d+(?:\.\d+)?)(d|h|m|s|ms)\b`)

// spanCellRE reads a timespan as the engine writes it: [-][d.]hh:mm:ss[.fffffff].
var spanCellRE = regexp.MustCompile(`^(-)?(?:(\d+)\.)?(\d{2}):(\d{2}):(\d{2})(\.\d+)?$`)

// spansIn lists the distinct timespans a query writes as literals and its answer
// shows in its timespan columns, at most 16.
func spansIn(q string, e *oracleAnswer) []time.Duration {
	var out []time.Duration
	seen := map[time.Duration]bool{}
	add := func(d time.Duration) {
		if d != 0 && !seen[d] && len(out) < 16 {
			seen[d] = true
			out = append(out, d)
		}
	}
	units := map[string]time.Duration{"d": 24 * time.Hour, "h": time.Hour, "m": time.Minute, "s": time.Second, "ms": time.Millisecond}
	for _, m := range spanLitRE.FindAllStringSubmatch(q, -1) {
		if f, err := strconv.ParseFloat(m[1], 64); err == nil {
			add(time.Duration(f * float64(units[m[2]])))
		}
	}
	for _, raw := range e.Rows {
		var row []any
		if json.Unmarshal(raw, &row) != nil {
			continue
		}
		for i, v := range row {
			s, ok := v.(string)
			if !ok || i >= len(e.ColumnTypes) || e.ColumnTypes[i] != "TimeSpan" {
				continue
			}
			m := spanCellRE.FindStringSubmatch(s)
			if m == nil {
				continue
			}
			days, _ := strconv.Atoi(m[2])
			h, _ := strconv.Atoi(m[3])
			mi, _ := strconv.Atoi(m[4])
			sec, _ := strconv.Atoi(m[5])
			frac := 0.0
			if m[6] != "" {
				frac, _ = strconv.ParseFloat("0"+m[6], 64)
			}
			d := time.Duration(days)*24*time.Hour + time.Duration(h)*time.Hour + time.Duration(mi)*time.Minute +
				time.Duration(sec)*time.Second + time.Duration(frac*float64(time.Second))
			if m[1] == "-" {
				d = -d
			}
			add(d)
		}
	}
	return out
}

// instantsIn lists the distinct datetimes written in rows (in cells and inside
// dynamic values), in order, at most max.
func instantsIn(rows []json.RawMessage, max int) []time.Time {
	var out []time.Time
	seen := map[time.Time]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			if at, err := time.Parse(time.RFC3339Nano, x); err == nil && !seen[at] && len(out) < max {
				seen[at] = true
				out = append(out, at)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	for _, r := range rows {
		var v any
		if json.Unmarshal(r, &v) == nil {
			walk(v)
		}
	}
	return out
}

// sortsRE finds the operators that emit rows in an order (the window-functions
// page: sort, top and top-hitters).
var sortsRE = regexp.MustCompile(`(?i)\b(sort|order)\s+by\b|\|\s*top(-hitters)?\s`)

// unorderRE finds the operators after which Kusto does not promise an order.
var unorderRE = regexp.MustCompile(`(?i)\|\s*(summarize|join|union|distinct|partition|make-series|lookup|evaluate|reduce|fork|facet)\b`)

// sortedResult reports whether a query's rows come in an order Kusto promises: it
// sorts (sort, order by, top) at its top level, and no operator that gives rows in
// no particular order follows the last sort. A sort inside a subquery (a partition's,
// a join's side) orders only that subquery.
func sortedResult(q string) bool {
	last := -1
	for _, m := range sortsRE.FindAllStringIndex(q, -1) {
		if parenDepth(q[:m[0]]) == 0 {
			last = m[1]
		}
	}
	return last >= 0 && !unorderRE.MatchString(q[last:])
}

// parenDepth is the depth of open parentheses and brackets at the end of s, outside
// string literals and comments.
func parenDepth(s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case '"', '\'':
			for i++; i < len(s) && s[i] != c; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		case '/':
			if i+1 < len(s) && s[i+1] == '/' {
				for i < len(s) && s[i] != '\n' {
					i++
				}
			}
		}
	}
	return depth
}

// approxRE finds the functions whose answers Kusto documents as estimates (dcount
// and hll by HyperLogLog, percentiles by t-digest): their numbers match within 5%.
// stdev and variance are exact, and a random draw (rand) cannot be matched at all,
// so neither gets the tolerance.
var approxRE = regexp.MustCompile(`(?i)\b(percentiles?|percentile_tdigest|percentiles_array|dcount|dcountif|hll|tdigest)\s*\(`)

// runCase returns "" when the engine's answer matches, else the cause of the failure.
func runCase(exec *kqlexec.Executor, c oracleCase) (cause string) {
	defer func() {
		if r := recover(); r != nil {
			cause = fmt.Sprintf("panic: %v", r)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rs, err := exec.Query(ctx, c.KQL)
	if err != nil {
		msg := qeval.ErrorMessage(err)
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		code := qeval.ErrorCode(err)
		if code == qeval.CodeUnsupported {
			return msg
		}
		if len(msg) > 90 {
			msg = msg[:90]
		}
		return string(code) + ": " + msg
	}
	e := c.Expected
	names := rs.ColumnNames()
	if strings.Join(names, ",") != strings.Join(e.Columns, ",") {
		return "columns differ"
	}
	for i, ct := range e.ColumnTypes {
		want, _ := kqlexec.ParseType("system." + ct)
		if ct == "SByte" || ct == "Boolean" {
			want = kqlexec.TBool
		}
		if string(want) != rs.Columns[i].Type {
			return "column types differ"
		}
	}
	if len(e.Rows) != len(rs.Rows) {
		return "row count differs"
	}
	// Reals match to 1e-9 relative (the engine's answers are printed rounded, e.g.
	// 2077.0909090909); only approximate functions (dcount, percentiles, ...) get 5%.
	tol := 1e-9
	if approxRE.MatchString(c.KQL) {
		tol = 0.05
	}
	wantRows := make([][]any, len(e.Rows))
	for i, raw := range e.Rows {
		d := json.NewDecoder(strings.NewReader(string(raw)))
		d.UseNumber()
		if err := d.Decode(&wantRows[i]); err != nil {
			return "bad expected row"
		}
	}
	ordered := sortedResult(c.KQL)
	if ordered {
		for i := range rs.Rows {
			if !rowEqual(rs.Rows[i], wantRows[i], e.ColumnTypes, tol) {
				return "rows differ"
			}
		}
		return ""
	}
	// as a bag: match each expected row with an unused equal row
	used := make([]bool, len(rs.Rows))
	for _, w := range wantRows {
		found := false
		for i, g := range rs.Rows {
			if !used[i] && rowEqual(g, w, e.ColumnTypes, tol) {
				used[i], found = true, true
				break
			}
		}
		if !found {
			return "rows differ"
		}
	}
	return ""
}

func rowEqual(g []qeval.Value, w []any, types []string, tol float64) bool {
	if len(g) != len(w) {
		return false
	}
	for i := range g {
		if !cellEqual(g[i], w[i], types[i], tol) {
			return false
		}
	}
	return true
}

func cellEqual(g qeval.Value, w any, ty string, tol float64) bool {
	if w == nil {
		return g.IsNull() || (ty == "String" && g.Kind == qeval.KindText && g.Str == "")
	}
	switch ty {
	case "DateTime":
		ws, _ := w.(string)
		wt, err := time.Parse(time.RFC3339Nano, ws)
		if err != nil {
			return false
		}
		switch g.Kind {
		case qeval.KindTime:
			return g.AsTime().Equal(wt)
		case qeval.KindText:
			gt, err := time.Parse(time.RFC3339Nano, g.Str)
			return err == nil && gt.Equal(wt)
		}
		return false
	case "Object":
		if g.IsNull() {
			return false
		}
		var gv any
		d := json.NewDecoder(strings.NewReader(g.Str))
		d.UseNumber()
		if err := d.Decode(&gv); err != nil {
			return false
		}
		return jsonEqual(gv, w, tol)
	case "Double":
		return numEqual(g, w, tol)
	case "SqlDecimal":
		return decimalEqual(g, w)
	case "Int64", "Int32":
		n, ok := w.(json.Number)
		return ok && g.Kind == qeval.KindInt && n.String() == fmt.Sprint(g.Int) || numEqual(g, w, tol) && tol > 1e-9
	case "SByte", "Boolean":
		b, ok := w.(bool)
		return ok && g.Kind == qeval.KindBool && (g.Int != 0) == b
	}
	s, ok := w.(string)
	return ok && g.Kind == qeval.KindText && g.Str == s
}

func numEqual(g qeval.Value, w any, tol float64) bool {
	var gf float64
	switch g.Kind {
	case qeval.KindFloat:
		gf = g.Float
	case qeval.KindInt:
		gf = float64(g.Int)
	default:
		return false
	}
	var wf float64
	switch x := w.(type) {
	case json.Number:
		wf, _ = x.Float64()
	case string:
		switch x {
		case "NaN":
			return math.IsNaN(gf)
		case "Infinity":
			return math.IsInf(gf, 1)
		case "-Infinity":
			return math.IsInf(gf, -1)
		}
		return false
	default:
		return false
	}
	return floatClose(gf, wf, tol)
}

// decimalEqual compares a decimal, which the engine sends as its digits (a string,
// 28 of them at most) or as a number: Kusto's decimal is exact, the local engine's
// a float64, so the two must agree to the 15 significant digits a float64 holds.
func decimalEqual(g qeval.Value, w any) bool {
	var ws string
	switch x := w.(type) {
	case string:
		ws = x
	case json.Number:
		ws = x.String()
	default:
		return false
	}
	wf, err := strconv.ParseFloat(ws, 64)
	if err != nil {
		return false
	}
	var gf float64
	switch g.Kind {
	case qeval.KindFloat:
		gf = g.Float
	case qeval.KindInt:
		gf = float64(g.Int)
	case qeval.KindText:
		if gf, err = strconv.ParseFloat(g.Str, 64); err != nil {
			return false
		}
	default:
		return false
	}
	return strconv.FormatFloat(gf, 'g', 15, 64) == strconv.FormatFloat(wf, 'g', 15, 64)
}

func floatClose(a, b, tol float64) bool {
	if a == b {
		return true
	}
	d := math.Abs(a - b)
	return d <= tol*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

func jsonEqual(a, b any, tol float64) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		xf, _ := x.Float64()
		yf, _ := y.Float64()
		return floatClose(xf, yf, tol)
	case string:
		y, ok := b.(string)
		if !ok {
			return false
		}
		if x == y {
			return true
		}
		// datetimes inside dynamic values may print with or without the fraction
		xt, err1 := time.Parse(time.RFC3339Nano, x)
		yt, err2 := time.Parse(time.RFC3339Nano, y)
		return err1 == nil && err2 == nil && xt.Equal(yt)
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonEqual(x[i], y[i], tol) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			if !jsonEqual(v, y[k], tol) {
				return false
			}
		}
		return true
	}
	return false
}

// TestConformance_ClockMovedBySpans checks that runAtCaseClock finds the clock of a
// case whose answer shows only instants a timespan away from it (now(-2d), now()
// minus a timespan column): a wrong clock fails, the found one matches.
func TestConformance_ClockMovedBySpans(t *testing.T) {
	caseOf := func(q string, cols, types []string, rows ...string) oracleCase {
		c := oracleCase{ID: "clock", KQL: q}
		c.Expected = &oracleAnswer{Columns: cols, ColumnTypes: types}
		for _, r := range rows {
			c.Expected.Rows = append(c.Expected.Rows, json.RawMessage(r))
		}
		return c
	}
	cases := []oracleCase{
		caseOf("print now(-2d)", []string{"print_0"}, []string{"DateTime"}, `["2026-07-31T10:11:12.1234567Z"]`),
		caseOf(`datatable(label: string, span: timespan)["minute", 60s, "day", 1d] | extend ago = now() - span`,
			[]string{"label", "span", "ago"}, []string{"String", "TimeSpan", "DateTime"},
			`["minute", "00:01:00", "2026-08-02T10:10:12Z"]`, `["day", "1.00:00:00", "2026-08-01T10:11:12Z"]`),
	}
	for _, c := range cases {
		if got := runAtCaseClock(t, c, "rows differ"); got != "" {
			t.Errorf("%s: no clock found (%s)", c.KQL, got)
		}
	}
	// an answer no clock in the recorded days explains stays failing
	bad := caseOf("print now(-2d)", []string{"print_0"}, []string{"DateTime"}, `["2026-07-20T10:11:12Z"]`)
	if got := runAtCaseClock(t, bad, "rows differ"); got != "rows differ" {
		t.Errorf("a clock outside the recorded days was used: %q", got)
	}
}
