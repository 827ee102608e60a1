package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"slices"
	"strings"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/internal/lazyregexp"
)

// Options change how Open connects.
type Options struct {
	// AllowPrivileged lets the executor run as a user that holds more than reading the
	// evaluation databases (any write, DDL, FILE, SUPER or PROCESS privilege, or SELECT
	// on every database, which reads the server's accounts): --unsafe-allow-privileged.
	AllowPrivileged bool
}

// readPrivileges are the privileges a user that runs generated queries may hold.
var readPrivileges = []string{"USAGE", "SELECT", "SHOW VIEW"}

// grantLine reads "GRANT <privileges> ON <object> TO …"; a role grant ("GRANT `r` TO
// …") has no ON and grants nothing until the role is set, which the statement check
// refuses.
var grantLine = lazyregexp.New(`(?is)^GRANT\s+(.+?)\s+ON\s+(.+?)\s+TO\s`)

// columnList is a column-level grant's list: SELECT (a, b).
var columnList = lazyregexp.New(`\([^)]*\)`)

// excessGrants returns, for the lines of SHOW GRANTS, each grant beyond reading one
// database ("INSERT on `test`.*", "SELECT on *.*"), in the order met.
func excessGrants(lines []string) []string {
	var out []string
	for _, l := range lines {
		m := grantLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		object := strings.TrimSpace(m[2])
		for _, p := range strings.Split(columnList.ReplaceAllString(m[1], ""), ",") {
			p = strings.ToUpper(strings.Join(strings.Fields(p), " "))
			switch {
			case p == "" || p == "USAGE":
			case !slices.Contains(readPrivileges, p):
				out = append(out, p+" on "+object)
			case object == "*.*" || strings.HasPrefix(object, "`mysql`.") || strings.HasPrefix(object, "mysql."):
				out = append(out, p+" on "+object)
			}
		}
	}
	return out
}

// ReaderSetupSQL creates (when missing) user, who may log in from host ("%" for any),
// and lets it read database db and nothing else; with a password, the account is
// created with it, or given it when it exists.
func ReaderSetupSQL(user, host, db, password string) []string {
	u := quoteString(user) + "@" + quoteString(host)
	create := "CREATE USER IF NOT EXISTS " + u
	var out []string
	if password != "" {
		create += " IDENTIFIED BY " + quoteString(password)
		out = append(out, create, "ALTER USER "+u+" IDENTIFIED BY "+quoteString(password))
	} else {
		out = append(out, create)
	}
	return append(out, "GRANT SELECT, SHOW VIEW ON "+quote(db)+".* TO "+u)
}

// quoteString writes s as a string literal. Backslashes are refused in passwords (see
// SetupReader): how the server reads one depends on its sql_mode.
func quoteString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// DatabaseOf is the database a DSN (driver form or mysql:// URL) names ("" when none,
// or when the DSN cannot be read).
func DatabaseOf(dsn string) string {
	d, err := fromURL(dsn)
	if err != nil {
		return ""
	}
	cfg, err := gomysql.ParseDSN(d)
	if err != nil {
		return ""
	}
	return cfg.DBName
}

// Reader is what SetupReader did.
type Reader struct {
	Database string // the database the user may read
	Host     string // the host it may log in from
	DSN      string // a mysql:// URL of the database as the user, with its password
}

// SetupReader runs ReaderSetupSQL(user, host, the DSN's database, password) with the
// administrator connection adminDSN (a driver DSN or a mysql:// URL). An empty host is
// the one the administrator's connection comes from, as the server sees it (USER()).
func SetupReader(ctx context.Context, adminDSN, user, host, password string) (*Reader, error) {
	op := "set up user " + user
	dsn, err := fromURL(adminDSN)
	if err != nil {
		return nil, err
	}
	cfg, err := gomysql.ParseDSN(dsn)
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: op, Message: "invalid dsn " + MaskDSN(dsn) + ": " + scrub(err.Error(), passwordOf(dsn))}
	}
	if cfg.DBName == "" {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: op, Message: "the DSN names no database: " + MaskDSN(dsn),
			Hint: "name the evaluation database: mysql://root@127.0.0.1:3306/DB"}
	}
	if strings.ContainsAny(password, `\`) {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: op, Message: "the password holds a backslash, which the server reads by its sql_mode"}
	}
	conn, err := sql.Open("mysql", dsn)
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: op, Message: scrub(err.Error(), cfg.Passwd)}
	}
	defer conn.Close()
	clean := func(err error) string { return scrub(scrub(err.Error(), cfg.Passwd), password) }
	if host == "" {
		if err := conn.QueryRowContext(ctx, "SELECT SUBSTRING_INDEX(USER(), '@', -1)").Scan(&host); err != nil {
			return nil, &qeval.Error{Code: qeval.CodeUnavailable, Op: "connect " + MaskDSN(dsn), Message: clean(err)}
		}
	}
	for _, q := range ReaderSetupSQL(user, host, cfg.DBName, password) {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return nil, &qeval.Error{Code: qeval.CodeQuery, Op: op, Message: clean(err)}
		}
	}
	u := url.URL{Scheme: "mysql", User: url.UserPassword(user, password), Host: cfg.Addr, Path: "/" + cfg.DBName}
	return &Reader{Database: cfg.DBName, Host: host, DSN: u.String()}, nil
}

// checkGrants refuses a user that holds more than reading the evaluation databases:
// MySQL's read-only transaction does not stop DDL (it commits implicitly), SELECT …
// INTO OUTFILE or LOAD_FILE, so the statement check would be the only guard.
func (e *Executor) checkGrants(ctx context.Context, db string) error {
	rows, err := e.db.QueryContext(ctx, "SHOW GRANTS")
	if err != nil {
		return e.connectError(err)
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var l string
		if err := rows.Scan(&l); err != nil {
			return e.connectError(err)
		}
		lines = append(lines, l)
	}
	if err := rows.Err(); err != nil {
		return e.connectError(err)
	}
	excess := excessGrants(lines)
	if len(excess) == 0 {
		return nil
	}
	var user string
	_ = e.db.QueryRowContext(ctx, "SELECT CURRENT_USER()").Scan(&user)
	if len(excess) > 3 {
		excess = append(excess[:3], fmt.Sprintf("%d more", len(excess)-3))
	}
	if db == "" {
		db = "<database>"
	}
	return &qeval.Error{Code: qeval.CodeForbidden, Op: "open " + e.dsn,
		Message: fmt.Sprintf("user %q holds %s: generated queries could change data, read server files or other databases", user, strings.Join(excess, ", ")),
		Hint: "connect as a user that can only read the evaluation database (qeval db setup-role --dsn ADMIN_DSN --role qeval_reader, or: " +
			strings.Join(ReaderSetupSQL("qeval_reader", "%", db, "<password>"), "; ") + "), or pass --unsafe-allow-privileged"}
}
