package mysql

import (
	"context"
	"database/sql"
	"net/url"
	"strconv"
	"strings"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/qeval/qeval"
)

var _ qeval.TableSink = (*Writer)(nil)

// ReaderUser is the account a mirror's copies are read as: it may read the mirrored
// databases and nothing else.
const ReaderUser = "qeval_reader"

// Writer fills a new database with copied tables (qeval mirror); it implements
// qeval.TableSink. Tables use MyISAM, which scans rows in the order they were written
// (InnoDB would return them by primary key). MySQL cannot roll DDL back, so Abort
// drops the database. It needs an administrator that may create databases and users,
// and never runs a generated query.
type Writer struct {
	db       *sql.DB
	database string
	target   string
}

// CreateDatabase starts the copy into database name (lower-cased: table names are
// case-sensitive on most MySQL servers, while queries written for SQLite ignore case)
// on the server admin names (a mysql:// URL), dropping one of that name first when
// replace is set, else refusing it. Target is then the DSN that reads the copy as
// ReaderUser.
func CreateDatabase(ctx context.Context, admin, name string, replace bool) (*Writer, error) {
	name = strings.ToLower(name)
	op := "create database " + name + " on " + MaskDSN(admin)
	db, password, err := adminDB(admin)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	var n int
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name = ?", name).Scan(&n); err != nil {
		db.Close()
		return nil, &qeval.Error{Code: qeval.CodeUnavailable, Op: op, Message: scrub(err.Error(), password), Err: err}
	}
	if n > 0 && !replace {
		db.Close()
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: op, Message: "the database exists", Hint: "drop it, or mirror with --replace"}
	}
	for _, q := range []string{"DROP DATABASE IF EXISTS " + quote(name), "CREATE DATABASE " + quote(name) + " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			db.Close()
			return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: op, Message: scrub(err.Error(), password), Err: err}
		}
	}
	u, err := url.Parse(admin)
	if err != nil || !strings.EqualFold(u.Scheme, "mysql") {
		db.Close()
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: op, Message: "mirroring needs a mysql:// URL"}
	}
	u.User = url.User(ReaderUser)
	u.Path = "/" + name
	return &Writer{db: db, database: name, target: u.String()}, nil
}

// Target is the DSN that reads the copy.
func (w *Writer) Target() string { return w.target }

func quote(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

// myType is the MySQL type of a portable column type. A key column of text or bytes
// gets a bounded VARCHAR (keyLen characters), since MySQL cannot index TEXT whole and a
// MyISAM key holds at most 1000 bytes (250 utf8mb4 characters) in all.
func myType(c qeval.ColumnDef, keyLen int) string {
	key := keyLen > 0
	switch c.Type {
	case qeval.TypeInteger:
		return "BIGINT"
	case qeval.TypeDouble:
		return "DOUBLE"
	case qeval.TypeDecimal:
		if c.Precision > 0 && c.Precision <= 65 {
			return "DECIMAL(" + strconv.Itoa(c.Precision) + "," + strconv.Itoa(min(c.Scale, 30)) + ")"
		}
		return "DOUBLE"
	case qeval.TypeBlob:
		if key {
			return "VARBINARY(" + strconv.Itoa(keyLen*4) + ")"
		}
		return "LONGBLOB"
	case qeval.TypeBoolean:
		return "BOOLEAN"
	case qeval.TypeDate:
		return "DATE"
	case qeval.TypeTimestamp:
		return "DATETIME(6)"
	}
	if key {
		return "VARCHAR(" + strconv.Itoa(keyLen) + ")"
	}
	return "LONGTEXT"
}

func (w *Writer) table(name string) string {
	return quote(w.database) + "." + quote(strings.ToLower(name))
}

// Create creates one table with its primary key and NOT NULL columns.
func (w *Writer) Create(ctx context.Context, t qeval.TableDef) error {
	key := map[string]bool{}
	for _, k := range t.PrimaryKey {
		key[strings.ToLower(k)] = true
	}
	// the key's 250 characters shared among its columns (numbers take 8 bytes of them)
	keyLen := 250 / max(1, len(t.PrimaryKey))
	cols := make([]string, 0, len(t.Columns)+1)
	for _, c := range t.Columns {
		n := 0
		if key[strings.ToLower(c.Name)] {
			n = keyLen
		}
		d := quote(c.Name) + " " + myType(c, n)
		if c.NotNull || key[strings.ToLower(c.Name)] {
			d += " NOT NULL"
		}
		cols = append(cols, d)
	}
	if len(t.PrimaryKey) > 0 {
		keys := make([]string, len(t.PrimaryKey))
		for i, k := range t.PrimaryKey {
			keys[i] = quote(k)
		}
		cols = append(cols, "PRIMARY KEY ("+strings.Join(keys, ", ")+")")
	}
	q := "CREATE TABLE " + w.table(t.Name) + " (" + strings.Join(cols, ", ") + ") ENGINE = MyISAM"
	if _, err := w.db.ExecContext(ctx, q); err != nil {
		return &qeval.Error{Code: qeval.CodeInvalid, Op: "create table " + t.Name + " in " + w.database, Message: err.Error(), Err: err}
	}
	return nil
}

// Insert appends rows, in the order given, a few hundred per statement.
func (w *Writer) Insert(ctx context.Context, t qeval.TableDef, rows [][]qeval.Value) error {
	if len(rows) == 0 || len(t.Columns) == 0 {
		return nil
	}
	per := max(1, min(500, 60000/len(t.Columns)))
	one := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(t.Columns)), ", ") + ")"
	for start := 0; start < len(rows); start += per {
		batch := rows[start:min(start+per, len(rows))]
		var b strings.Builder
		b.WriteString("INSERT INTO " + w.table(t.Name) + " VALUES ")
		args := make([]any, 0, len(batch)*len(t.Columns))
		for k, r := range batch {
			if k > 0 {
				b.WriteString(", ")
			}
			b.WriteString(one)
			for j, v := range r {
				args = append(args, t.Columns[j].GoValue(v))
			}
		}
		if _, err := w.db.ExecContext(ctx, b.String(), args...); err != nil {
			return &qeval.Error{Code: qeval.CodeInvalid, Op: "copy table " + t.Name + " into " + w.database, Message: err.Error(), Err: err}
		}
	}
	return nil
}

// Close grants ReaderUser read access to the database (creating the account if it does
// not exist) and finishes the copy.
func (w *Writer) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, q := range ReaderSetupSQL(ReaderUser, "%", w.database, "") {
		if _, err := w.db.ExecContext(ctx, q); err != nil {
			w.Abort()
			return &qeval.Error{Code: qeval.CodeInvalid, Op: "finish database " + w.database, Message: err.Error(), Err: err}
		}
	}
	return w.db.Close()
}

// Abort drops the database: MySQL cannot roll its DDL back.
func (w *Writer) Abort() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	w.db.ExecContext(ctx, "DROP DATABASE IF EXISTS "+quote(w.database))
	return w.db.Close()
}

// DropDatabase drops a mirrored database (qeval spider --pred-engine mysql cleans up).
func DropDatabase(ctx context.Context, admin, name string) error {
	db, _, err := adminDB(admin)
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "DROP DATABASE IF EXISTS "+quote(strings.ToLower(name))); err != nil {
		return &qeval.Error{Code: qeval.CodeQuery, Op: "drop database " + name, Message: err.Error(), Err: err}
	}
	return nil
}

// adminDB opens an administrator's connection on admin (one at a time: the copy's
// statements run in order) and returns its password, for scrubbing messages.
func adminDB(admin string) (*sql.DB, string, error) {
	dsn, err := fromURL(admin)
	if err != nil {
		return nil, "", err
	}
	cfg, err := gomysql.ParseDSN(dsn)
	if err != nil {
		return nil, "", &qeval.Error{Code: qeval.CodeInvalid, Op: "open " + MaskDSN(admin), Message: scrub(err.Error(), passwordOf(dsn))}
	}
	cfg.Loc = time.UTC
	cfg.Logger = discardLogger{}
	conn, err := gomysql.NewConnector(cfg)
	if err != nil {
		return nil, "", &qeval.Error{Code: qeval.CodeInvalid, Op: "open " + MaskDSN(admin), Message: scrub(err.Error(), cfg.Passwd)}
	}
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(1)
	return db, cfg.Passwd, nil
}
