package mysql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"regexp"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/internal/lazyregexp"
	"github.com/qeval/qeval/internal/sqlguard"
)

// A sandbox copy is a new database, qeval_sbx_…, made by the sandbox user (one that may
// read the source database and do anything inside databases named qeval\_sbx\_%,
// nothing else: SandboxSetupSQL): each base table of the source is made again from its
// SHOW CREATE TABLE (keys, indexes, foreign keys, AUTO_INCREMENT) and filled with
// INSERT … SELECT. Views and triggers are not copied. It is dropped when the sandbox
// closes.
//
// Each statement is checked first (sandboxCheck: no USE, no other sandbox's database,
// no database, user, grant, server, file or plugin statement, SET of a few session
// settings only, none of sqlguard's functions), runs on the sandbox's one connection
// with the server's statement timeout set to what is left of its deadline, and a write
// is followed by a look at the copy's size, which is bounded.

var _ qeval.Sandbox = (*Sandbox)(nil)

// DefaultSandboxGrowth is how many bytes a copy may grow past its source's size.
const DefaultSandboxGrowth = 64 << 20

// Sandbox is a disposable copy of a MySQL or MariaDB database; see qeval.Sandbox.
type Sandbox struct {
	ex       *Executor // connected to the copy; its pool sends KILL QUERY and drops the copy
	conn     *sql.Conn // the one connection the statements run on
	id       int64     // its connection id
	name     string
	maxBytes int64
}

// NewSandbox copies the database dsn names into a new database as the DSN's user and
// connects to the copy.
func NewSandbox(ctx context.Context, dsn string, limits qeval.Limits) (sb *Sandbox, err error) {
	name := qeval.SandboxName()
	ex, err := open(dsn, limits, Options{AllowPrivileged: true}, "")
	if err != nil {
		return nil, err
	}
	source := ex.database
	defer func() {
		if err != nil {
			ex.db.ExecContext(context.Background(), "DROP DATABASE IF EXISTS "+quote(name))
			ex.Close()
		}
	}()
	size, err := copyDatabase(ctx, ex.db, source, name)
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeForbidden, Op: "copy database " + source + " into a sandbox",
			Message: "mysql: " + ex.scrub(qeval.ErrorMessage(err)), Err: err,
			Hint: "the DSN's user needs SELECT on " + source + " and every privilege on the databases qeval\\_sbx\\_%: qeval db setup-role --sandbox makes one"}
	}
	ex.Close()
	if ex, err = open(dsn, limits, Options{AllowPrivileged: true}, name); err != nil {
		return nil, err
	}
	sb = &Sandbox{ex: ex, name: name, maxBytes: size + DefaultSandboxGrowth}
	if sb.conn, err = ex.db.Conn(ctx); err != nil {
		return nil, ex.connectError(err)
	}
	if err := sb.conn.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&sb.id); err != nil {
		sb.conn.Close()
		return nil, ex.connectError(err)
	}
	return sb, nil
}

// copyDatabase makes database dest a copy of source's base tables and returns their
// size.
func copyDatabase(ctx context.Context, db *sql.DB, source, dest string) (int64, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	var size sql.NullInt64
	if err := conn.QueryRowContext(ctx, "SELECT SUM(data_length + index_length) FROM information_schema.tables WHERE table_schema = ?", source).Scan(&size); err != nil {
		return 0, err
	}
	rows, err := conn.QueryContext(ctx, "SELECT table_name FROM information_schema.tables WHERE table_schema = ? AND table_type = 'BASE TABLE' ORDER BY table_name", source)
	if err != nil {
		return 0, err
	}
	var tables []string
	for rows.Next() {
		var t string
		rows.Scan(&t)
		tables = append(tables, t)
	}
	rows.Close()
	for _, q := range []string{"SET SESSION foreign_key_checks = 0", "CREATE DATABASE " + quote(dest), "USE " + quote(dest)} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return 0, err
		}
	}
	for _, t := range tables {
		var name, ddl string
		if err := conn.QueryRowContext(ctx, "SHOW CREATE TABLE "+quote(source)+"."+quote(t)).Scan(&name, &ddl); err != nil {
			return 0, err
		}
		if _, err := conn.ExecContext(ctx, ddl); err != nil {
			return 0, fmt.Errorf("make table %s: %w", t, err)
		}
		cols, err := insertableColumns(ctx, conn, source, t)
		if err != nil {
			return 0, err
		}
		if _, err := conn.ExecContext(ctx, "INSERT INTO "+quote(t)+" ("+cols+") SELECT "+cols+" FROM "+quote(source)+"."+quote(t)); err != nil {
			return 0, fmt.Errorf("fill table %s: %w", t, err)
		}
	}
	// the connection goes back to the pool: its session settings must not follow it
	conn.Raw(func(any) error { return driver.ErrBadConn })
	return size.Int64, nil
}

// insertableColumns lists a table's columns but the generated ones, quoted.
func insertableColumns(ctx context.Context, conn *sql.Conn, db, table string) (string, error) {
	rows, err := conn.QueryContext(ctx, "SELECT column_name FROM information_schema.columns WHERE table_schema = ? AND table_name = ? AND extra NOT LIKE '%GENERATED%' ORDER BY ordinal_position", db, table)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var cols []string
	for rows.Next() {
		var c string
		rows.Scan(&c)
		cols = append(cols, quote(c))
	}
	return strings.Join(cols, ", "), rows.Err()
}

// Name is the copy's database.
func (s *Sandbox) Name() string { return s.name }

// Close drops the copy.
func (s *Sandbox) Close() error {
	if s.conn != nil {
		s.conn.Raw(func(any) error { return driver.ErrBadConn })
		s.conn.Close()
		s.conn = nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	_, err := s.ex.db.ExecContext(ctx, "DROP DATABASE IF EXISTS "+quote(s.name))
	s.ex.Close()
	return err
}

// Query checks one statement and runs it in the copy.
func (s *Sandbox) Query(ctx context.Context, stmt string) (*qeval.ResultSet, error) {
	end, err := sandboxCheck(stmt, s.name)
	if err != nil {
		return nil, err
	}
	stmt = stmt[:end]
	rs, err := s.run(ctx, stmt)
	if err != nil {
		return nil, err
	}
	if w := firstWord(stmt); !readKeywords[w] {
		var size sql.NullInt64
		err := s.conn.QueryRowContext(ctx, "SELECT SUM(data_length + index_length) FROM information_schema.tables WHERE table_schema = DATABASE()").Scan(&size)
		if err == nil && size.Int64 > s.maxBytes {
			return nil, &qeval.Error{Code: qeval.CodeTooLarge,
				Message: fmt.Sprintf("the sandbox copy is full: the statements grew it past its size bound (%d bytes)", s.maxBytes)}
		}
	}
	return rs, nil
}

// run runs a checked (or qeval's own) statement on the sandbox's connection.
func (s *Sandbox) run(ctx context.Context, stmt string) (*qeval.ResultSet, error) {
	if s.conn == nil {
		return nil, &qeval.Error{Code: qeval.CodeUnavailable, Message: "the connection to the sandbox copy is lost"}
	}
	if ctx.Err() != nil {
		return nil, sqlguard.Stopped(ctx)
	}
	tctx, cancelTimeout := context.WithTimeout(ctx, s.ex.limits.Timeout)
	defer cancelTimeout()
	qctx, stop := context.WithCancel(tctx)
	defer stop()
	if _, err := s.conn.ExecContext(qctx, s.ex.timeoutStatement(qctx)); err != nil {
		return nil, s.ex.classify(ctx, tctx, stmt, err)
	}
	rs, killed, err := s.ex.fetch(qctx, stop, s.conn, s.id, stmt)
	if killed || qctx.Err() != nil {
		// the driver dropped the connection: the copy's temporary tables and open
		// transaction are gone with it, and the next statement says so
		s.conn.Raw(func(any) error { return driver.ErrBadConn })
		s.conn.Close()
		s.conn = nil
	}
	if err != nil {
		return nil, s.ex.classify(ctx, tctx, stmt, err)
	}
	return rs, nil
}

func firstWord(stmt string) string {
	for _, t := range lex(stmt) {
		if t.Kind == tokWord {
			return t.Text
		}
		if t.Kind != tokPunct || t.Text != "(" {
			return ""
		}
	}
	return ""
}

// sandboxKeywords start the statements a copy runs besides reads.
var sandboxKeywords = map[string]bool{
	"INSERT": true, "UPDATE": true, "DELETE": true, "REPLACE": true, "TRUNCATE": true, "RENAME": true,
	"CREATE": true, "DROP": true, "ALTER": true, "ANALYZE": true, "OPTIMIZE": true, "CHECK": true,
	"BEGIN": true, "START": true, "COMMIT": true, "ROLLBACK": true, "SAVEPOINT": true, "RELEASE": true, "SET": true,
}

// sandboxObjects are what CREATE, DROP and ALTER may not name in a copy.
var sandboxObjects = map[string]bool{
	"DATABASE": true, "SCHEMA": true, "USER": true, "ROLE": true, "SERVER": true, "TABLESPACE": true,
	"LOGFILE": true, "EVENT": true, "INSTANCE": true, "RESOURCE": true, "SPATIAL": false,
}

// sandboxSettings are the session settings SET may change in a copy.
var sandboxSettings = map[string]bool{
	"FOREIGN_KEY_CHECKS": true, "UNIQUE_CHECKS": true, "SQL_SAFE_UPDATES": true, "AUTOCOMMIT": true,
	"TIME_ZONE": true, "NAMES": true, "CHARACTER": true, "TRANSACTION": true,
}

var otherSandbox = lazyregexp.New(`(?i)^` + regexp.QuoteMeta(qeval.SandboxPrefix))

// sandboxCheck refuses what a statement in the copy named name may not do, before it
// reaches the server (the user's privileges are the real guard); it returns where the
// statement ends.
func sandboxCheck(stmt, name string) (int, error) {
	if strings.IndexByte(stmt, 0) >= 0 {
		return 0, &qeval.Error{Code: qeval.CodeQuery, Message: "the statement contains a NUL byte"}
	}
	toks := lex(stmt)
	end := len(stmt)
	var words []string
	for i, t := range toks {
		if t.Kind == tokPunct && t.Text == ";" {
			if i+1 < len(toks) {
				return 0, &qeval.Error{Code: qeval.CodeQuery, Message: "several statements in one: a sandbox runs one at a time"}
			}
			end = t.Pos
			break
		}
		next := sqlguard.Token{}
		if i+1 < len(toks) {
			next = toks[i+1]
		}
		switch {
		case (t.Kind == tokWord || t.Kind == tokQuoted) && next.Kind == tokPunct && next.Text == "(" && sqlguard.DeniedFunction("mysql", t.Text):
			return 0, forbidden(fmt.Sprintf("function %s() is not allowed: %s", strings.ToUpper(t.Text), sandboxReason))
		case t.Kind == tokWord && t.Text == "INTO" && next.Kind == tokWord && (next.Text == "OUTFILE" || next.Text == "DUMPFILE"):
			return 0, forbidden("SELECT ... INTO " + next.Text + " is not allowed: " + sandboxReason)
		case (t.Kind == tokWord || t.Kind == tokQuoted) && next.Kind == tokPunct && next.Text == "." && otherSandbox.MatchString(t.Text) && !strings.EqualFold(t.Text, name):
			return 0, forbidden("another sandbox's database is not this answer's: " + sandboxReason)
		}
		if t.Kind == tokWord && len(words) < 3 {
			words = append(words, t.Text)
		}
	}
	if len(words) == 0 {
		return 0, &qeval.Error{Code: qeval.CodeQuery, Message: "empty query"}
	}
	first := words[0]
	switch {
	case readKeywords[first]:
		return end, nil
	case !sandboxKeywords[first]:
		return 0, forbidden(fmt.Sprintf("%s is not allowed: %s", first, sandboxReason))
	case (first == "CREATE" || first == "DROP" || first == "ALTER") && len(words) > 1 && sandboxObjects[objectWord(words[1:])]:
		return 0, forbidden(fmt.Sprintf("%s %s is not allowed: %s", first, objectWord(words[1:]), sandboxReason))
	case first == "SET" && len(words) > 1 && !sandboxSettings[settingWord(words[1:])] && !userVariable(stmt):
		return 0, forbidden("SET of this setting is not allowed: " + sandboxReason)
	}
	return end, nil
}

// userVariable reports whether a SET statement sets a user variable (@x), not a
// system one (@@x).
func userVariable(stmt string) bool {
	toks := lex(stmt)
	return len(toks) > 2 && toks[1].Kind == tokPunct && toks[1].Text == "@" && !(toks[2].Kind == tokPunct && toks[2].Text == "@")
}

func objectWord(words []string) string {
	for _, w := range words {
		switch w {
		case "OR", "REPLACE", "UNIQUE", "TEMPORARY", "FULLTEXT", "SPATIAL", "ONLINE", "OFFLINE", "IGNORE", "IF", "NOT", "EXISTS", "DEFINER", "SQL", "SECURITY", "ALGORITHM":
			continue
		}
		return w
	}
	return ""
}

func settingWord(words []string) string {
	if words[0] == "SESSION" || words[0] == "LOCAL" {
		if len(words) > 1 {
			return words[1]
		}
		return ""
	}
	return words[0]
}

// sandboxReason ends the message of a statement refused in a copy.
const sandboxReason = "a stateful answer may change only the copy's own tables"

// SandboxSetupSQL makes (when missing) user, who may log in from host, read database
// db, and do anything inside databases named qeval_sbx_… (its sandbox copies), nothing
// else: no FILE, SUPER or PROCESS, no other database.
func SandboxSetupSQL(user, host, db, password string) []string {
	u := quoteString(user) + "@" + quoteString(host)
	out := ReaderSetupSQL(user, host, db, password)
	return append(out, "GRANT ALL PRIVILEGES ON `"+strings.ReplaceAll(qeval.SandboxPrefix, "_", `\_`)+"%`.* TO "+u)
}

// SetupSandbox runs SandboxSetupSQL with the administrator connection adminDSN, as
// SetupReader runs ReaderSetupSQL.
func SetupSandbox(ctx context.Context, adminDSN, user, host, password string) (*Reader, error) {
	r, err := SetupReader(ctx, adminDSN, user, host, password)
	if err != nil {
		return nil, err
	}
	dsn, _ := fromURL(adminDSN)
	conn, err := sql.Open("mysql", dsn)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	grants := SandboxSetupSQL(user, r.Host, r.Database, password)
	if _, err := conn.ExecContext(ctx, grants[len(grants)-1]); err != nil {
		return nil, &qeval.Error{Code: qeval.CodeQuery, Op: "set up sandbox user " + user, Message: scrub(scrub(err.Error(), passwordOf(dsn)), password)}
	}
	return r, nil
}

// Sandboxes lists the sandbox copies (databases qeval_sbx_…) on the server dsn names, as
// its user sees them; DropSandbox drops one.
func Sandboxes(ctx context.Context, dsn string) ([]string, error) {
	ex, err := open(dsn, qeval.Limits{}, Options{AllowPrivileged: true}, "")
	if err != nil {
		return nil, err
	}
	defer ex.Close()
	rows, err := ex.db.QueryContext(ctx, `SHOW DATABASES LIKE 'qeval\_sbx\_%'`)
	if err != nil {
		return nil, ex.connectError(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		rows.Scan(&n)
		out = append(out, n)
	}
	return out, rows.Err()
}

// DropSandbox drops the sandbox copy name on the server dsn names.
func DropSandbox(ctx context.Context, dsn, name string) error {
	if !strings.HasPrefix(name, qeval.SandboxPrefix) {
		return &qeval.Error{Code: qeval.CodeInvalid, Message: name + " is not a sandbox copy"}
	}
	ex, err := open(dsn, qeval.Limits{}, Options{AllowPrivileged: true}, "")
	if err != nil {
		return err
	}
	defer ex.Close()
	_, err = ex.db.ExecContext(ctx, "DROP DATABASE IF EXISTS "+quote(name))
	return err
}
