package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"

	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/qeval/qeval"
)

// Writer fills a new SQLite database file that has the schema of another one. It is
// the only code of qeval that writes a database; it serves test-suite generation and
// never runs a generated query. It is not safe for concurrent use.
//
// Rows go in with INSERT OR IGNORE and foreign keys enforced, so a row that breaks a
// PRIMARY KEY, UNIQUE, NOT NULL, CHECK or declared FOREIGN KEY constraint is left out
// rather than stored; Insert says which rows were kept.
type Writer struct {
	path     string
	db       *sql.DB
	tx       *sql.Tx
	triggers []string
	// Mismatch is set when the schema declares a foreign key SQLite cannot check (its
	// message); such keys are then not enforced on insert.
	Mismatch string
}

// CreateLike creates the database file path (which must not exist) with the tables,
// indexes and views of the database file like. Triggers are added by Close, after the
// rows, so that they do not fire on generated rows.
func CreateLike(path, like string) (*Writer, error) {
	ddl, err := schemaOf(like)
	if err != nil {
		return nil, err
	}
	return create(path, ddl)
}

// schemas caches the schema of the files CreateLike copies (a search creates many
// databases like one original), by path, size and modification time.
var schemas struct {
	sync.Mutex
	m map[schemaKey][]schemaObject
}

type schemaKey struct {
	path string
	size int64
	mod  int64
}

// maxSchemas bounds the cache: past it, it starts again.
const maxSchemas = 256

func schemaOf(path string) ([]schemaObject, error) {
	st, err := os.Stat(path)
	if err != nil {
		return schemaSQL(path) // says what is wrong with it
	}
	k := schemaKey{path, st.Size(), st.ModTime().UnixNano()}
	schemas.Lock()
	ddl, ok := schemas.m[k]
	schemas.Unlock()
	if ok {
		return ddl, nil
	}
	if ddl, err = schemaSQL(path); err != nil {
		return nil, err
	}
	schemas.Lock()
	if schemas.m == nil || len(schemas.m) >= maxSchemas {
		schemas.m = map[schemaKey][]schemaObject{}
	}
	schemas.m[k] = ddl
	schemas.Unlock()
	return ddl, nil
}

// Create creates the database file path (which must not exist) by running a schema
// script of CREATE statements; triggers in it run on the rows inserted.
func Create(path, schema string) (*Writer, error) {
	return create(path, []schemaObject{{kind: "schema", name: "script", sql: schema}})
}

func create(path string, ddl []schemaObject) (*Writer, error) {
	if _, err := os.Stat(path); err == nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "create database " + path, Message: "file exists"}
	}
	db := sql.OpenDB(&plainConnector{dsn: fileDSN(path, "rwc")})
	db.SetMaxOpenConns(1)
	w := &Writer{path: path, db: db}
	for _, p := range []string{"PRAGMA journal_mode = OFF", "PRAGMA synchronous = OFF", "PRAGMA foreign_keys = ON"} {
		if _, err := db.Exec(p); err != nil {
			db.Close()
			return nil, &qeval.Error{Code: qeval.CodeInternal, Op: "create database " + path, Message: err.Error(), Err: err}
		}
	}
	for _, o := range ddl {
		if o.kind == "trigger" {
			w.triggers = append(w.triggers, o.sql)
			continue
		}
		if _, err := db.Exec(o.sql); err != nil {
			db.Close()
			os.Remove(path)
			return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "create database " + path,
				Message: fmt.Sprintf("%s %q: %v", o.kind, o.name, err), Err: err}
		}
	}
	// A schema may declare a foreign key whose parent columns are not a key ("foreign
	// key mismatch"): SQLite cannot enforce it, and would refuse every insert.
	if _, err := db.Exec("PRAGMA foreign_key_check"); err != nil {
		w.Mismatch = cleanMessage(err.Error())
		db.Exec("PRAGMA foreign_keys = OFF")
	}
	tx, err := db.Begin()
	if err != nil {
		db.Close()
		return nil, &qeval.Error{Code: qeval.CodeInternal, Op: "create database " + path, Message: err.Error(), Err: err}
	}
	w.tx = tx
	return w, nil
}

// Insert adds rows to table, each holding a value per column, and reports which rows
// were kept. A row that breaks a constraint is skipped; any other failure is returned.
func (w *Writer) Insert(table string, columns []string, rows [][]qeval.Value) ([]bool, error) {
	var b strings.Builder
	b.WriteString("INSERT OR IGNORE INTO ")
	b.WriteString(quoteIdent(table))
	b.WriteString(" (")
	for i, c := range columns {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(quoteIdent(c))
	}
	b.WriteString(") VALUES (")
	b.WriteString(strings.TrimSuffix(strings.Repeat("?, ", len(columns)), ", "))
	b.WriteString(")")
	stmt, err := w.tx.Prepare(b.String())
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "insert into " + table, Message: err.Error(), Err: err}
	}
	defer stmt.Close()
	kept := make([]bool, len(rows))
	args := make([]any, len(columns))
	for i, r := range rows {
		for j := range args {
			args[j] = driverValue(r[j])
		}
		res, err := stmt.Exec(args...)
		if err != nil {
			var se sqlite3.Error
			if errors.As(err, &se) && (se.Code == sqlite3.ErrConstraint || se.Code == sqlite3.ErrMismatch) {
				continue
			}
			return kept, &qeval.Error{Code: qeval.CodeInternal, Op: "insert into " + table, Message: err.Error(), Err: err}
		}
		if n, _ := res.RowsAffected(); n == 1 {
			kept[i] = true
		}
	}
	return kept, nil
}

// Close commits the rows, adds the triggers and closes the file.
func (w *Writer) Close() error {
	err := w.tx.Commit()
	for _, t := range w.triggers {
		if err != nil {
			break
		}
		_, err = w.db.Exec(t)
	}
	if cerr := w.db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return &qeval.Error{Code: qeval.CodeInternal, Op: "write database " + w.path, Message: err.Error(), Err: err}
	}
	return nil
}

// Abort discards the file.
func (w *Writer) Abort() {
	w.tx.Rollback()
	w.db.Close()
	os.Remove(w.path)
}

// Check runs PRAGMA integrity_check and PRAGMA foreign_key_check on a database file and
// returns an error naming the first problems found, nil when there are none.
func Check(path string) error {
	if err := checkFile(path); err != nil {
		return err
	}
	db := sql.OpenDB(&plainConnector{dsn: fileDSN(path, "ro")})
	defer db.Close()
	var problems []string
	rows, err := db.Query("PRAGMA integrity_check")
	if err != nil {
		return &qeval.Error{Code: qeval.CodeInvalid, Op: "check database " + path, Message: err.Error(), Err: err}
	}
	for rows.Next() {
		var s string
		rows.Scan(&s)
		if s != "ok" {
			problems = append(problems, "integrity: "+s)
		}
	}
	rows.Close()
	rows, err = db.Query("PRAGMA foreign_key_check")
	if err != nil {
		return &qeval.Error{Code: qeval.CodeInvalid, Op: "check database " + path, Message: cleanMessage(err.Error()),
			Hint: "the schema declares a foreign key whose parent columns are not a PRIMARY KEY or UNIQUE: SQLite cannot check it", Err: ErrForeignKeyMismatch}
	}
	for rows.Next() {
		var table, parent string
		var rowid sql.NullInt64
		var fk int
		rows.Scan(&table, &rowid, &parent, &fk)
		problems = append(problems, fmt.Sprintf("foreign key: %s row %d references a missing %s row", table, rowid.Int64, parent))
	}
	rows.Close()
	if len(problems) == 0 {
		return nil
	}
	if len(problems) > 5 {
		problems = append(problems[:5], fmt.Sprintf("and %d more", len(problems)-5))
	}
	return &qeval.Error{Code: qeval.CodeInvalid, Op: "check database " + path, Message: strings.Join(problems, "; ")}
}

// ErrForeignKeyMismatch is wrapped by Check's error when the schema itself declares a
// foreign key SQLite cannot check, so that no data could pass PRAGMA foreign_key_check.
var ErrForeignKeyMismatch = errors.New("foreign key mismatch")

type schemaObject struct{ kind, name, sql string }

// schemaSQL reads the statements that created the schema objects of a database file:
// tables first, then indexes and views, then triggers, each in creation order.
func schemaSQL(path string) ([]schemaObject, error) {
	if err := checkFile(path); err != nil {
		return nil, err
	}
	db := sql.OpenDB(&plainConnector{dsn: fileDSN(path, "ro")})
	defer db.Close()
	rows, err := db.Query(`SELECT type, name, sql FROM sqlite_master
		WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'
		ORDER BY CASE type WHEN 'table' THEN 0 WHEN 'index' THEN 1 WHEN 'view' THEN 2 ELSE 3 END, rowid`)
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "read schema of " + path, Message: err.Error(), Err: err}
	}
	defer rows.Close()
	var out []schemaObject
	for rows.Next() {
		var o schemaObject
		if err := rows.Scan(&o.kind, &o.name, &o.sql); err != nil {
			return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "read schema of " + path, Message: err.Error(), Err: err}
		}
		out = append(out, o)
	}
	return out, rows.Err()
}

func fileDSN(path, mode string) string {
	u := url.URL{Scheme: "file", Opaque: url.PathEscape(path)}
	q := url.Values{}
	q.Set("mode", mode)
	u.RawQuery = q.Encode()
	return u.String()
}

// plainConnector opens connections without the sandbox, for the writer and checks only.
type plainConnector struct{ dsn string }

func (c *plainConnector) Connect(context.Context) (driver.Conn, error) {
	return (&sqlite3.SQLiteDriver{}).Open(c.dsn)
}

func (c *plainConnector) Driver() driver.Driver { return &sqlite3.SQLiteDriver{} }

func driverValue(v qeval.Value) any {
	switch v.Kind {
	case qeval.KindNull:
		return nil
	case qeval.KindInt, qeval.KindBool:
		return v.Int
	case qeval.KindFloat:
		return v.Float
	case qeval.KindBytes:
		return []byte(v.Str)
	case qeval.KindTime:
		return v.AsTime().Format("2006-01-02 15:04:05")
	}
	return v.Str
}
