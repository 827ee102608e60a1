package compare

import (
	"strings"

	"github.com/qeval/qeval"
)

// DiffTable compares a table's rows as the gold left them with the rows the generated
// answer left: as bags (or in order when ordered), values equal as the normalised
// comparison has them (1 and 1.0 are one number). Rows whose key columns (the primary
// key, by index) agree but whose other values do not are changed rather than removed
// and added. A table with other columns is told apart by its columns alone.
func DiffTable(table string, gold, pred *qeval.ResultSet, key []int, ordered bool) qeval.TableDiff {
	d := qeval.TableDiff{Table: table, GoldRows: gold.NumRows(), PredRows: pred.NumRows(), Ordered: ordered, Columns: gold.ColumnNames()}
	if gn, pn := gold.ColumnNames(), pred.ColumnNames(); !sameNames(gn, pn) {
		d.Note = "other columns: gold (" + strings.Join(gn, ", ") + "), generated (" + strings.Join(pn, ", ") + ")"
		return d
	}
	g, p := keyRows(gold, normKey), keyRows(pred, normKey)
	var b strings.Builder
	gk, pk := rowKeys(&b, g), rowKeys(&b, p)
	removedAt, addedAt := bagDifference(gk, pk)
	if len(key) > 0 {
		removedAt, addedAt = pairChanged(&d, gold, pred, g, p, key, removedAt, addedAt)
	}
	d.RemovedCount, d.AddedCount = len(removedAt), len(addedAt)
	for _, i := range removedAt[:min(len(removedAt), MaxExplainRows)] {
		d.Removed = append(d.Removed, qeval.ShownRow(gold.Rows[i]))
	}
	for _, i := range addedAt[:min(len(addedAt), MaxExplainRows)] {
		d.Added = append(d.Added, qeval.ShownRow(pred.Rows[i]))
	}
	if d.RemovedCount == 0 && d.AddedCount == 0 && d.ChangedCount == 0 && ordered {
		for i := range gk {
			if gk[i] != pk[i] {
				d.OtherOrder = true
				break
			}
		}
	}
	d.Equal = d.RemovedCount == 0 && d.AddedCount == 0 && d.ChangedCount == 0 && !d.OtherOrder
	return d
}

// pairChanged takes the removed and added rows that share a key out of both lists,
// as changed rows.
func pairChanged(d *qeval.TableDiff, gold, pred *qeval.ResultSet, g, p keyed, key []int, removedAt, addedAt []int) ([]int, []int) {
	byKey := map[string][]int{} // key → positions in addedAt not yet paired
	keyOf := func(row []string) string {
		var b strings.Builder
		for _, k := range key {
			if k < len(row) {
				b.WriteString(row[k])
				b.WriteByte(0)
			}
		}
		return b.String()
	}
	for j, i := range addedAt {
		k := keyOf(p[i])
		byKey[k] = append(byKey[k], j)
	}
	paired := make([]bool, len(addedAt))
	var removed []int
	for _, i := range removedAt {
		k := keyOf(g[i])
		if js := byKey[k]; len(js) > 0 {
			j := js[0]
			byKey[k] = js[1:]
			paired[j] = true
			d.ChangedCount++
			if len(d.Changed) < MaxExplainRows {
				d.Changed = append(d.Changed, qeval.ChangedRow{Gold: qeval.ShownRow(gold.Rows[i]), Pred: qeval.ShownRow(pred.Rows[addedAt[j]])})
			}
			continue
		}
		removed = append(removed, i)
	}
	var added []int
	for j, i := range addedAt {
		if !paired[j] {
			added = append(added, i)
		}
	}
	return removed, added
}

func sameNames(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !strings.EqualFold(a[i], b[i]) {
			return false
		}
	}
	return true
}
