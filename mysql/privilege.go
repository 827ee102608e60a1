package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"slices"
	"strings"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/qeval/qeval"
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
var grantLine = regexp.MustCompile(`(?is)^GRANT\s+(.+?)\s+ON\s+(.+?)\s+TO\s`)

// columnList is a column-level grant's list: SELECT (a, b).
var columnList = regexp.MustCompile(`\([^)]*\)`)

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

// ReaderSetupSQL creates (when missing) user, who may log in from any host, and lets it
// read database db and nothing else; with a password, the account is created with it.
func ReaderSetupSQL(user, db, password string) []string {
	u := "'" + strings.ReplaceAll(user, "'", "''") + "'@'%'"
	create := "CREATE USER IF NOT EXISTS " + u
	if password != "" {
		create += " IDENTIFIED BY '" + strings.ReplaceAll(password, "'", "''") + "'"
	}
	return []string{create, "GRANT SELECT, SHOW VIEW ON " + quote(db) + ".* TO " + u}
}

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

// SetupReader runs ReaderSetupSQL(user, the DSN's database, "") with the administrator
// connection adminDSN (a driver DSN or a mysql:// URL).
func SetupReader(ctx context.Context, adminDSN, user string) (db string, err error) {
	dsn, err := fromURL(adminDSN)
	if err != nil {
		return "", err
	}
	cfg, err := gomysql.ParseDSN(dsn)
	if err != nil {
		return "", &qeval.Error{Code: qeval.CodeInvalid, Op: "set up user " + user, Message: "invalid dsn " + MaskDSN(dsn) + ": " + scrub(err.Error(), passwordOf(dsn))}
	}
	if cfg.DBName == "" {
		return "", &qeval.Error{Code: qeval.CodeInvalid, Op: "set up user " + user, Message: "the DSN names no database: " + MaskDSN(dsn),
			Hint: "name the evaluation database: mysql://root@127.0.0.1:3306/DB"}
	}
	conn, err := sql.Open("mysql", dsn)
	if err != nil {
		return "", &qeval.Error{Code: qeval.CodeInvalid, Op: "set up user " + user, Message: scrub(err.Error(), cfg.Passwd)}
	}
	defer conn.Close()
	for _, q := range ReaderSetupSQL(user, cfg.DBName, "") {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return "", &qeval.Error{Code: qeval.CodeQuery, Op: "set up user " + user, Message: scrub(err.Error(), cfg.Passwd)}
		}
	}
	return cfg.DBName, nil
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
			strings.Join(ReaderSetupSQL("qeval_reader", db, "<password>"), "; ") + "), or pass --unsafe-allow-privileged"}
}
