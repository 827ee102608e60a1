package audit

import (
	"context"
	"math"
	"strconv"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/compare"
	"github.com/qeval/qeval/internal/lazyregexp"
	"github.com/qeval/qeval/testsuite"
)

// previewRows is how many rows evidence shows of a result.
const previewRows = 5

// failure is the evidence of gold_fails.
type failure struct {
	Stage    string `json:"stage"` // read, open or run
	Database string `json:"database,omitempty"`
	Code     string `json:"code,omitempty"` // qeval error code: query, timeout, forbidden, …
	Error    string `json:"error"`
}

// scanOrder is the evidence of order_dependent (and of float_rounding when only the
// last digits of floats moved): the result as scanned normally and in reverse.
type scanOrder struct {
	Database string `json:"database"`
	// Ordered: the rows were compared in order, because the gold has ORDER BY.
	Ordered  bool            `json:"ordered"`
	Rows     int             `json:"rows"`
	Normal   [][]qeval.Value `json:"normal"`
	Reversed [][]qeval.Value `json:"reversed"`
	// OnlyNormal and OnlyReversed are, for an unordered result, rows one side has
	// more often than the other.
	OnlyNormal   [][]qeval.Value `json:"only_normal,omitempty"`
	OnlyReversed [][]qeval.Value `json:"only_reversed,omitempty"`
}

type tieEvidence struct {
	Database string          `json:"database"`
	Ties     []testsuite.Tie `json:"ties"`
}

type floatEvidence struct {
	Reason string  `json:"reason"`
	Column string  `json:"column"`
	Value  float64 `json:"value"`
	// Reversed is the value after a reversed scan, when summation order moved it.
	Reversed *float64 `json:"reversed,omitempty"`
}

type emptyEvidence struct {
	Databases int      `json:"databases"`
	Columns   []string `json:"columns"`
}

type weakEvidence struct {
	Value      qeval.Value `json:"value"`
	Neighbours int         `json:"neighbours"` // neighbours that ran
	Same       int         `json:"same"`       // of those, how many returned the gold's result
	Examples   []string    `json:"examples"`   // changes that kept the result
}

type starEvidence struct {
	Columns []string `json:"columns,omitempty"` // the columns * gave, in schema order
}

type mixedEvidence struct {
	Column   string        `json:"column"`
	Kinds    []string      `json:"kinds"`
	Examples []qeval.Value `json:"examples"`
}

// compareOptions are the comparison mode's options of the suspect_gold check.
var compareOptions = compare.Options{}

// starText finds * in a select list when the syntax tree cannot be read.
var starText = lazyregexp.New(`(?i)(\bselect\s+(all\s+|distinct\s+)?|,\s*)([\w"` + "`" + `\[\]]+\.)?\*`)

// auditItem runs every per-item check of one gold on its database.
func auditItem(ctx context.Context, it Item, db *database, f *Finding, opt *Options) {
	suspect(ctx, it, f, opt)
	gq, _ := testsuite.ParseGold(it.Gold)
	star := starText.MatchString(it.Gold)
	if gq != nil {
		star = gq.SelectStar()
	}
	results := make([]*qeval.ResultSet, len(db.normal))
	for i, ex := range db.normal {
		rs, err := ex.Query(ctx, it.Gold)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			f.flag(GoldFails, failure{Stage: "run", Database: db.files[i], Code: string(qeval.ErrorCode(err)), Error: qeval.ErrorMessage(err)})
			return
		}
		results[i] = rs
	}
	first := results[0]
	if star {
		f.flag(SelectStar, starEvidence{Columns: first.ColumnNames()})
	}
	empty := true
	single := true
	for _, rs := range results {
		if len(rs.Rows) > 0 {
			empty = false
		}
		if len(rs.Rows) != 1 || len(rs.Columns) != 1 {
			single = false
		}
	}
	if empty {
		f.flag(Empty, emptyEvidence{Databases: len(results), Columns: first.ColumnNames()})
	}
	for _, rs := range results {
		if ev, ok := computedFloat(rs); ok {
			f.flag(FloatRounding, ev)
			break
		}
	}
	for _, rs := range results {
		if ev, ok := mixedColumn(rs); ok {
			f.flag(MixedTypes, ev)
			break
		}
	}
	ordered := opt.Mode.OrderMatters != nil && opt.Mode.OrderMatters(it.Gold)
	for i, ex := range db.reversed {
		rs, err := ex.Query(ctx, it.Gold)
		if err != nil || opt.Mode.Equal(results[i], rs, ordered) {
			continue
		}
		if compare.Bag.Equal(results[i], rs, ordered) {
			if ev, ok := movedFloat(results[i], rs); ok {
				f.flag(FloatRounding, ev)
				break
			}
		}
		f.flag(OrderDependent, scanEvidence(db.files[i], results[i], rs, ordered))
		break
	}
	if gq == nil {
		return
	}
	for i, ex := range db.normal {
		ties, err := gq.Ties(ctx, ex)
		if len(ties) > 0 {
			f.flag(TieAtLimit, tieEvidence{Database: db.files[i], Ties: ties})
			break
		}
		if err != nil {
			break
		}
	}
	if single && !empty {
		weak(ctx, gq, results, db, f, opt)
	}
}

// weak runs the neighbours of a single-value gold and flags it when most of those that
// run return its result on every database.
func weak(ctx context.Context, gq *testsuite.GoldQuery, results []*qeval.ResultSet, db *database, f *Finding, opt *Options) {
	ns := gq.Neighbours(db.schema, opt.MaxNeighbours)
	ev := weakEvidence{Value: results[0].Rows[0][0], Examples: []string{}}
	for _, n := range ns {
		if n.Equivalent {
			continue
		}
		same, ran := true, true
		for i, ex := range db.normal {
			nctx, cancel := context.WithTimeout(ctx, opt.NeighbourTimeout)
			rs, err := ex.Query(nctx, n.SQL)
			cancel()
			if err != nil {
				ran = false
				break
			}
			if !opt.Mode.Equal(results[i], rs, false) {
				same = false
				break
			}
		}
		if ctx.Err() != nil {
			return
		}
		if !ran {
			continue
		}
		ev.Neighbours++
		if same {
			ev.Same++
			if len(ev.Examples) < previewRows {
				ev.Examples = append(ev.Examples, n.Change)
			}
		}
	}
	if ev.Neighbours >= 3 && float64(ev.Same) > opt.WeakShare*float64(ev.Neighbours) {
		f.flag(Weak, ev)
	}
}

// computedFloat finds a float with more than 6 decimals: the trace of a division or an
// average, which a prediction that rounds (or sums in another order) does not repeat.
func computedFloat(rs *qeval.ResultSet) (floatEvidence, bool) {
	for _, r := range rs.Rows {
		for j, v := range r {
			if v.Kind != qeval.KindFloat || math.IsInf(v.Float, 0) || math.IsNaN(v.Float) || v.Float == math.Trunc(v.Float) {
				continue
			}
			if decimals(v.Float) > 6 {
				return floatEvidence{Reason: "computed float with " + strconv.Itoa(decimals(v.Float)) + " decimals", Column: columnName(rs, j), Value: v.Float}, true
			}
		}
	}
	return floatEvidence{}, false
}

// decimals counts the digits after the point of the shortest text of f.
func decimals(f float64) int {
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if i := strings.IndexByte(s, '.'); i >= 0 {
		return len(s) - i - 1
	}
	return 0
}

// movedFloat finds the first float the reversed scan changed.
func movedFloat(a, b *qeval.ResultSet) (floatEvidence, bool) {
	for i := range a.Rows {
		if i >= len(b.Rows) {
			break
		}
		for j, v := range a.Rows[i] {
			if j < len(b.Rows[i]) && v.Kind == qeval.KindFloat && b.Rows[i][j].Kind == qeval.KindFloat && v.Float != b.Rows[i][j].Float {
				r := b.Rows[i][j].Float
				return floatEvidence{Reason: "summation order changes the last digits", Column: columnName(a, j), Value: v.Float, Reversed: &r}, true
			}
		}
	}
	return floatEvidence{}, false
}

// mixedColumn finds a column holding both text and numbers.
func mixedColumn(rs *qeval.ResultSet) (mixedEvidence, bool) {
	if len(rs.Rows) == 0 {
		return mixedEvidence{}, false
	}
	for j := range rs.Rows[0] {
		var text, num *qeval.Value
		for _, r := range rs.Rows {
			if j >= len(r) {
				continue
			}
			v := r[j]
			switch v.Kind {
			case qeval.KindText:
				if text == nil {
					text = &r[j]
				}
			case qeval.KindInt, qeval.KindFloat:
				if num == nil {
					num = &r[j]
				}
			}
			if text != nil && num != nil {
				return mixedEvidence{Column: columnName(rs, j), Kinds: []string{num.Kind.String(), "text"}, Examples: []qeval.Value{*num, *text}}, true
			}
		}
	}
	return mixedEvidence{}, false
}

func columnName(rs *qeval.ResultSet, j int) string {
	if j < len(rs.Columns) {
		return rs.Columns[j].Name
	}
	return "#" + strconv.Itoa(j+1)
}

// scanEvidence shows how the result moved under reversed scans.
func scanEvidence(file string, a, b *qeval.ResultSet, ordered bool) scanOrder {
	ev := scanOrder{Database: file, Ordered: ordered, Rows: len(a.Rows), Normal: head(a.Rows), Reversed: head(b.Rows)}
	if ordered {
		// show the rows from the first place they differ
		k := 0
		for k < len(a.Rows) && k < len(b.Rows) && rowText(a.Rows[k]) == rowText(b.Rows[k]) {
			k++
		}
		if k > 0 && k < len(a.Rows) {
			ev.Normal, ev.Reversed = head(a.Rows[k:]), head(b.Rows[min(k, len(b.Rows)):])
		}
		return ev
	}
	count := map[string]int{}
	for _, r := range a.Rows {
		count[rowText(r)]++
	}
	for _, r := range b.Rows {
		k := rowText(r)
		if count[k] > 0 {
			count[k]--
		} else if len(ev.OnlyReversed) < previewRows {
			ev.OnlyReversed = append(ev.OnlyReversed, r)
		}
	}
	for _, r := range a.Rows {
		k := rowText(r)
		if count[k] > 0 && len(ev.OnlyNormal) < previewRows {
			count[k]--
			ev.OnlyNormal = append(ev.OnlyNormal, r)
		}
	}
	return ev
}

func head(rows [][]qeval.Value) [][]qeval.Value {
	if len(rows) > previewRows {
		return rows[:previewRows]
	}
	return rows
}

func rowText(r []qeval.Value) string {
	var b strings.Builder
	for _, v := range r {
		b.WriteString(v.Kind.String())
		b.WriteByte(':')
		b.WriteString(v.String())
		b.WriteByte(0)
	}
	return b.String()
}
