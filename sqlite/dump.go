package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/internal/lazyregexp"
)

// DumpBatch is how many rows Dump hands the sink at a time.
const DumpBatch = 2000

// Dump copies every table of the SQLite file at path into sink, rows in their stored
// order (rowid order), and returns the table definitions it used. Each column's
// portable type comes from its declared type (SQLite's affinity rules), checked
// against the values actually stored: SQLite keeps any value in any column, so a
// column declared INTEGER that holds text becomes TEXT, and the definition's Notes say
// so. A primary key over a column that holds NULLs is left out, with a note. Views,
// triggers and foreign keys are not copied. Dump does not close the sink.
func Dump(ctx context.Context, path string, sink qeval.TableSink) ([]qeval.TableDef, error) {
	if err := checkFile(path); err != nil {
		return nil, err
	}
	db := OpenReadOnly(path)
	defer db.Close()
	op := "read database " + path
	names, err := tableNames(ctx, db)
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: op, Message: cleanMessage(err.Error()), Err: err}
	}
	var defs []qeval.TableDef
	for _, name := range names {
		def, rowid, err := tableDef(ctx, db, name)
		if err != nil {
			return defs, &qeval.Error{Code: qeval.CodeInvalid, Op: op, Message: fmt.Sprintf("table %s: %v", name, err), Err: err}
		}
		if err := sink.Create(ctx, def); err != nil {
			return defs, err
		}
		if err := copyRows(ctx, db, def, rowid, sink); err != nil {
			return defs, err
		}
		defs = append(defs, def)
	}
	return defs, nil
}

func tableNames(ctx context.Context, db *sql.DB) ([]string, error) {
	rows, err := db.QueryContext(ctx, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

var decimalDecl = lazyregexp.New(`(?i)^\s*(?:decimal|numeric|number)\s*\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)`)

// tableDef reads a table's columns and key and decides each column's portable type.
// rowid reports whether the table has a rowid to order by.
func tableDef(ctx context.Context, db *sql.DB, name string) (def qeval.TableDef, rowid bool, err error) {
	def.Name = name
	rows, err := db.QueryContext(ctx, "SELECT name, type, \"notnull\", pk FROM pragma_table_info(?) ORDER BY cid", name)
	if err != nil {
		return def, false, err
	}
	type pkCol struct {
		name string
		pos  int
	}
	var pks []pkCol
	for rows.Next() {
		var c qeval.ColumnDef
		var notNull, pk int
		if err := rows.Scan(&c.Name, &c.Declared, &notNull, &pk); err != nil {
			rows.Close()
			return def, false, err
		}
		c.NotNull = notNull != 0
		if pk > 0 {
			pks = append(pks, pkCol{c.Name, pk})
		}
		def.Columns = append(def.Columns, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return def, false, err
	}
	for len(pks) > 0 {
		found := false
		for _, p := range pks {
			if p.pos == len(def.PrimaryKey)+1 {
				def.PrimaryKey = append(def.PrimaryKey, p.name)
				found = true
			}
		}
		if !found || len(def.PrimaryKey) == len(pks) {
			break
		}
	}
	var wr int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ? AND sql LIKE '%WITHOUT ROWID%'", name).Scan(&wr); err != nil {
		return def, false, err
	}
	rowid = wr == 0
	for i := range def.Columns {
		c := &def.Columns[i]
		if err := decideType(ctx, db, name, c); err != nil {
			return def, rowid, err
		}
		if c.Type != declaredType(c.Declared) && c.Declared != "" {
			def.Notes = append(def.Notes, fmt.Sprintf("%s.%s is declared %s but holds values that are not: copied as %s", name, c.Name, c.Declared, c.Type))
		}
	}
	if len(def.PrimaryKey) > 0 {
		cond := make([]string, len(def.PrimaryKey))
		for i, k := range def.PrimaryKey {
			cond[i] = quoteIdent(k) + " IS NULL"
		}
		var nulls int
		if err := db.QueryRowContext(ctx, "SELECT count(*) FROM "+quoteIdent(name)+" WHERE "+strings.Join(cond, " OR ")).Scan(&nulls); err != nil {
			return def, rowid, err
		}
		dup := 0
		keys := make([]string, len(def.PrimaryKey))
		for i, k := range def.PrimaryKey {
			keys[i] = quoteIdent(k)
		}
		if err := db.QueryRowContext(ctx, "SELECT count(*) FROM (SELECT 1 FROM "+quoteIdent(name)+" GROUP BY "+strings.Join(keys, ", ")+" HAVING count(*) > 1)").Scan(&dup); err != nil {
			return def, rowid, err
		}
		if nulls > 0 || dup > 0 {
			def.Notes = append(def.Notes, fmt.Sprintf("%s: primary key (%s) not declared: it holds NULLs or duplicates", name, strings.Join(def.PrimaryKey, ", ")))
			def.PrimaryKey = nil
		}
	}
	return def, rowid, nil
}

// declaredType maps a declared type to a portable one by SQLite's affinity rules,
// with dates, booleans and decimals recognised by name.
func declaredType(decl string) string {
	u := strings.ToUpper(decl)
	switch {
	case strings.Contains(u, "INT"):
		return qeval.TypeInteger
	case strings.Contains(u, "CHAR"), strings.Contains(u, "CLOB"), strings.Contains(u, "TEXT"):
		return qeval.TypeText
	case strings.Contains(u, "BLOB"):
		return qeval.TypeBlob
	case strings.Contains(u, "REAL"), strings.Contains(u, "FLOA"), strings.Contains(u, "DOUB"):
		return qeval.TypeDouble
	case strings.Contains(u, "BOOL"):
		return qeval.TypeBoolean
	case strings.Contains(u, "DATETIME"), strings.Contains(u, "TIMESTAMP"):
		return qeval.TypeTimestamp
	case strings.Contains(u, "DATE"):
		return qeval.TypeDate
	case decimalDecl.MatchString(decl):
		return qeval.TypeDecimal
	case u == "":
		return "" // no affinity: decided by the values
	}
	return qeval.TypeDouble // NUMERIC affinity
}

// decideType sets c.Type from its declared type and the values the column holds.
func decideType(ctx context.Context, db *sql.DB, table string, c *qeval.ColumnDef) error {
	col, tbl := quoteIdent(c.Name), quoteIdent(table)
	kinds, err := readValueKinds(ctx, db, col, tbl)
	if err != nil {
		return err
	}
	var countErr error // the first failed count: the column's type is then not decided
	count := func(where string) int {
		var n int
		if err := db.QueryRowContext(ctx, "SELECT count(*) FROM "+tbl+" WHERE "+col+" IS NOT NULL AND "+where).Scan(&n); err != nil && countErr == nil {
			countErr = err
		}
		return n
	}
	t := declaredType(c.Declared)
	switch t {
	case qeval.TypeInteger:
		if !kinds.only("integer") {
			t = kinds.byValues()
		}
	case qeval.TypeDouble:
		if !kinds.only("integer", "real") {
			t = kinds.byValues()
		}
	case qeval.TypeDecimal:
		m := decimalDecl.FindStringSubmatch(c.Declared)
		c.Precision, _ = strconv.Atoi(m[1])
		c.Scale, _ = strconv.Atoi(m[2])
		if c.Precision < 1 || c.Precision > 38 || c.Scale > c.Precision || !kinds.only("integer", "real") {
			t = kinds.byValues()
		}
	case qeval.TypeBoolean:
		if !kinds.only("integer") || count(col+" NOT IN (0, 1)") > 0 {
			t = kinds.byValues()
		}
	case qeval.TypeDate:
		if !kinds.only("text") || count("NOT ("+col+" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]' AND date("+col+") = "+col+")") > 0 {
			t = kinds.byValues()
		}
	case qeval.TypeTimestamp:
		if !kinds.only("text") || count("NOT ("+col+" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]*' AND datetime("+col+") IS NOT NULL AND length("+col+") IN (10, 19, 23, 26))") > 0 {
			t = kinds.byValues()
		}
	case qeval.TypeText:
		if !kinds.only("text") {
			t = qeval.TypeText // numbers in a text column are copied as their text
		}
	case qeval.TypeBlob:
		if !kinds.only("blob") {
			t = kinds.byValues()
		}
	case "":
		t = kinds.byValues()
	}
	c.Type = t
	return countErr
}

// valueKinds counts a column's values by their storage class, as typeof names it
// ("null", "integer", "real", "text" or "blob").
type valueKinds map[string]int

// readValueKinds counts the values of column col (quoted) of table tbl (quoted) by
// their storage class.
func readValueKinds(ctx context.Context, db *sql.DB, col, tbl string) (valueKinds, error) {
	kinds := valueKinds{}
	rows, err := db.QueryContext(ctx, "SELECT typeof("+col+"), count(*) FROM "+tbl+" GROUP BY 1")
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var k string
		var n int
		if err := rows.Scan(&k, &n); err != nil {
			rows.Close()
			return nil, err
		}
		kinds[k] = n
	}
	err = rows.Err() // a query stopped midway would leave storage classes uncounted
	rows.Close()
	return kinds, err
}

// only reports whether every value that is not NULL has one of the storage classes ks.
func (kinds valueKinds) only(ks ...string) bool {
	for k := range kinds {
		if k != "null" && !contains(ks, k) {
			return false
		}
	}
	return true
}

// byValues is the portable type the values call for, whatever the column is declared:
// integer if all are integers, double if all are numbers, blob if all are blobs, and
// text otherwise.
func (kinds valueKinds) byValues() string {
	switch {
	case kinds.only("integer"):
		return qeval.TypeInteger
	case kinds.only("integer", "real"):
		return qeval.TypeDouble
	case kinds.only("blob"):
		return qeval.TypeBlob
	}
	return qeval.TypeText
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// copyRows hands the table's rows to the sink in batches, converted to the column
// types decided.
func copyRows(ctx context.Context, db *sql.DB, def qeval.TableDef, rowid bool, sink qeval.TableSink) error {
	cols := make([]string, len(def.Columns))
	for i, c := range def.Columns {
		cols[i] = quoteIdent(c.Name)
	}
	q := "SELECT " + strings.Join(cols, ", ") + " FROM " + quoteIdent(def.Name)
	if rowid {
		q += " ORDER BY _rowid_"
	}
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return &qeval.Error{Code: qeval.CodeInvalid, Op: "read table " + def.Name, Message: cleanMessage(err.Error()), Err: err}
	}
	defer rows.Close()
	vals := make([]any, len(cols))
	dest := make([]any, len(cols))
	for i := range vals {
		dest[i] = &vals[i]
	}
	batch := make([][]qeval.Value, 0, DumpBatch)
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		row := make([]qeval.Value, len(vals))
		for i, v := range vals {
			row[i] = portable(def.Columns[i].Type, toValue(v))
		}
		batch = append(batch, row)
		if len(batch) == DumpBatch {
			if err := sink.Insert(ctx, def, batch); err != nil {
				return err
			}
			batch = batch[:0]
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(batch) > 0 {
		return sink.Insert(ctx, def, batch)
	}
	return nil
}

// portable converts a stored value to the column's portable type.
func portable(typ string, v qeval.Value) qeval.Value {
	if v.IsNull() {
		return v
	}
	switch typ {
	case qeval.TypeText:
		if v.Kind != qeval.KindText {
			return qeval.Text(v.String())
		}
	case qeval.TypeDouble, qeval.TypeDecimal:
		if v.Kind == qeval.KindInt {
			return qeval.Float(float64(v.Int))
		}
	case qeval.TypeBoolean:
		return qeval.Bool(v.Int != 0)
	case qeval.TypeDate, qeval.TypeTimestamp:
		if v.Kind == qeval.KindText {
			if t, ok := parseTime(v.Str); ok {
				return qeval.Time(t)
			}
		}
	}
	return v
}

// parseTime reads the date and time texts SQLite's date functions write.
func parseTime(s string) (time.Time, bool) {
	for _, layout := range []string{"2006-01-02 15:04:05.999999", "2006-01-02T15:04:05.999999", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil && qeval.TimeFits(t) {
			return t, true
		}
	}
	return time.Time{}, false
}
