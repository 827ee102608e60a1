package clickhouse

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"html"
	"net/url"
	"strings"

	ch "github.com/ClickHouse/clickhouse-go/v2"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/internal/lazyregexp"
)

// Options change how Open connects.
type Options struct {
	// AllowPrivileged lets the executor run as a user that may do more than read the
	// evaluation databases: one that may read every database (the default user), write,
	// or (on servers with SQL users) hold any grant beyond SELECT on named databases:
	// --unsafe-allow-privileged.
	AllowPrivileged bool
}

// Error codes of the server that the checks read.
const (
	codeSyntaxError          = 62
	codeUnknownDatabase      = 81
	codeDatabaseAccessDenied = 291
)

// checkUser refuses a user that may do more than read the evaluation databases. On a
// server with SQL-driven access control (20.4 and later) it reads SHOW GRANTS, as the
// MySQL executor does; on an older one (Debian's 18.16), which has no grants to read,
// it asks the server: whether the user's profile is readonly, and whether a database
// the user was not given (one that does not exist) is refused as "access denied"
// (users.xml's allow_databases) or looked up (the user may read every database).
func (e *Executor) checkUser(ctx context.Context) error {
	lines, err := e.showGrants(ctx)
	var ex *ch.Exception
	if errors.As(err, &ex) && ex.Code == codeSyntaxError {
		return e.checkProfile(ctx)
	}
	if err != nil {
		return e.connectError(err)
	}
	return e.refuse(excessGrants(lines))
}

func (e *Executor) showGrants(ctx context.Context) ([]string, error) {
	rows, err := e.conn.Query(ctx, "SHOW GRANTS")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var l string
		if err := rows.Scan(&l); err != nil {
			return nil, err
		}
		lines = append(lines, l)
	}
	return lines, rows.Err()
}

// checkProfile is checkUser on a server without SQL users.
func (e *Executor) checkProfile(ctx context.Context) error {
	var excess []string
	var readonly string
	if err := e.conn.QueryRow(ctx, "SELECT value FROM system.settings WHERE name = 'readonly'").Scan(&readonly); err != nil {
		return e.connectError(err)
	}
	if readonly == "0" {
		excess = append(excess, "may write (its profile is not readonly)")
	}
	var b [8]byte
	rand.Read(b[:])
	probe := "qeval_probe_" + hex.EncodeToString(b[:])
	var one uint8
	err := e.conn.QueryRow(ctx, "SELECT 1 FROM "+quote(probe)+".t").Scan(&one)
	var ex *ch.Exception
	switch {
	case errors.As(err, &ex) && ex.Code == codeDatabaseAccessDenied:
	case errors.As(err, &ex) && ex.Code == codeUnknownDatabase:
		excess = append(excess, "may read every database (no allow_databases in users.xml)")
	default:
		return e.connectError(fmt.Errorf("check the user's databases: %w", err))
	}
	return e.refuse(excess)
}

// refuse is the error for a user that holds the excess privileges, or nil.
func (e *Executor) refuse(excess []string) error {
	if len(excess) == 0 {
		return nil
	}
	if len(excess) > 3 {
		excess = append(excess[:3], fmt.Sprintf("%d more", len(excess)-3))
	}
	return &qeval.Error{Code: qeval.CodeForbidden, Op: "open " + e.dsn,
		Message: fmt.Sprintf("user %q %s: generated queries could read other databases or change data", e.user, strings.Join(excess, ", ")),
		Hint: "connect as a user that may only read the evaluation database (qeval db setup-role --dsn ADMIN_DSN --role qeval_reader " +
			"creates one, or prints the users.xml entry on servers without SQL users), or pass --unsafe-allow-privileged"}
}

// grantLine reads "GRANT <privileges> ON <object> TO …"; roleGrant a role's grant
// ("GRANT r TO u"), whose privileges SHOW GRANTS does not show.
var (
	grantLine  = lazyregexp.New(`(?is)^GRANT\s+(.+?)\s+ON\s+(\S+)\s+TO\s+(.*)$`)
	roleGrant  = lazyregexp.New(`(?is)^GRANT\s+(.+?)\s+TO\s`)
	columnList = lazyregexp.New(`\([^)]*\)`)
)

// readPrivileges may be held on a named database; the SHOW ones only list names.
var readPrivileges = map[string]bool{"SELECT": true, "SHOW": true, "SHOW DATABASES": true, "SHOW TABLES": true,
	"SHOW COLUMNS": true, "SHOW DICTIONARIES": true, "USAGE": true, "NONE": true}

// excessGrants returns, for the lines of SHOW GRANTS, each grant beyond reading named
// databases ("INSERT on db.*", "SELECT on *.*", "role r"), in the order met.
func excessGrants(lines []string) []string {
	var out []string
	for _, l := range lines {
		l = strings.TrimSpace(l)
		m := grantLine.FindStringSubmatch(l)
		if m == nil {
			if r := roleGrant.FindStringSubmatch(l); r != nil {
				out = append(out, "role "+strings.TrimSpace(r[1]))
			}
			continue // REVOKE lines take away
		}
		object := strings.ReplaceAll(strings.TrimSpace(m[2]), "`", "")
		db, _, _ := strings.Cut(object, ".")
		if strings.Contains(strings.ToUpper(m[3]), "WITH GRANT OPTION") {
			out = append(out, "GRANT OPTION on "+object)
		}
		for _, p := range strings.Split(columnList.ReplaceAllString(m[1], ""), ",") {
			p = strings.ToUpper(strings.Join(strings.Fields(p), " "))
			switch {
			case p == "":
			case !readPrivileges[p]:
				out = append(out, p+" on "+object)
			case strings.HasPrefix(p, "SHOW"), p == "USAGE", p == "NONE":
			case db == "*" || strings.EqualFold(db, "system"):
				out = append(out, p+" on "+object)
			}
		}
	}
	return out
}

// quoteString writes s as a ClickHouse string literal.
func quoteString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// ReaderSetupSQL returns the statements that make user, with password, a reader of
// database db on a server with SQL users (ClickHouse 20.4 and later), allowed to log in
// from host (an IP address; "" for any): the account is created when missing, its
// password set, and SELECT on the database granted.
func ReaderSetupSQL(user, host, db, password string) []string {
	u := quote(user)
	auth := " IDENTIFIED WITH sha256_password BY " + quoteString(password)
	if host != "" {
		auth += " HOST IP " + quoteString(host)
	}
	return []string{
		"CREATE USER IF NOT EXISTS " + u + auth,
		"ALTER USER " + u + auth,
		"GRANT SELECT ON " + quote(db) + ".* TO " + u,
	}
}

// ReaderUsersXML returns the users.xml entry (a file for the server's users.d folder)
// that makes user, with password (stored as its SHA-256), a reader of database db on a
// server without SQL users (before 20.4): a readonly profile, allow_databases, and the
// network host may log in from ("" for any).
func ReaderUsersXML(user, host, db, password string) string {
	sum := sha256.Sum256([]byte(password))
	net := "<ip>::/0</ip>"
	if host != "" {
		net = "<ip>" + html.EscapeString(host) + "</ip>"
	}
	u, d := html.EscapeString(user), html.EscapeString(db)
	return `<?xml version="1.0"?>
<!-- qeval db setup-role: a user that may only read one database; put this file in the
     server's users.d folder (/etc/clickhouse-server/users.d/), which it reads within seconds -->
<yandex>
    <profiles>
        <` + u + `>
            <readonly>1</readonly>
        </` + u + `>
    </profiles>
    <users>
        <` + u + `>
            <password_sha256_hex>` + hex.EncodeToString(sum[:]) + `</password_sha256_hex>
            <networks>` + net + `</networks>
            <profile>` + u + `</profile>
            <quota>default</quota>
            <allow_databases>
                <database>` + d + `</database>
            </allow_databases>
        </` + u + `>
    </users>
</yandex>
`
}

// validUser is what a user or profile name may be: it is an XML element name in
// users.xml.
var validUser = lazyregexp.New(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Reader is what SetupReader did.
type Reader struct {
	// Database is the database the user may read.
	Database string
	// Host is the address the user may log in from ("" for any).
	Host string
	// UsersXML, on a server without SQL users, is the users.xml entry to install (SetupReader
	// changed nothing); "" when the user was created with SQL.
	UsersXML string
	// Created is false when the user existed (its password was set again).
	Created bool
	// DSN is a clickhouse:// URL of the database as the user, with its password.
	DSN string
}

// SetupReader makes user, with password, a reader of the database adminDSN names,
// with that administrator's connection. host is the address the user may log in from:
// "" means the address the administrator's connection comes from, as the server sees
// it, and "%" any. On a server with SQL users it runs ReaderSetupSQL; on an older one,
// whose users live in users.xml, it returns the entry to install and changes nothing.
func SetupReader(ctx context.Context, adminDSN, user, host, password string) (*Reader, error) {
	op := "set up user " + user
	if !validUser.MatchString(user) {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: op, Message: "a ClickHouse user name here is letters, digits and _"}
	}
	opt, db, err := options(adminDSN)
	if err != nil {
		return nil, err
	}
	if u, _ := url.Parse(adminDSN); u == nil || strings.Trim(u.Path, "/") == "" {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: op, Message: "the DSN names no database: " + MaskDSN(adminDSN),
			Hint: "name the evaluation database: clickhouse://default@127.0.0.1:9000/DB"}
	}
	conn, err := ch.Open(opt)
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: op, Message: err.Error()}
	}
	defer conn.Close()
	dsn := url.URL{Scheme: "clickhouse", User: url.UserPassword(user, password), Host: opt.Addr[0], Path: "/" + db}
	r := &Reader{Database: db, Host: host, Created: true, DSN: dsn.String()}
	if host == "" {
		if r.Host, err = clientAddress(ctx, conn); err != nil {
			return nil, &qeval.Error{Code: qeval.CodeUnavailable, Op: "connect " + MaskDSN(adminDSN), Message: err.Error()}
		}
	}
	if r.Host == "%" {
		r.Host = ""
	}
	err = conn.Exec(ctx, "SHOW GRANTS")
	var ex *ch.Exception
	if errors.As(err, &ex) && ex.Code == codeSyntaxError {
		r.UsersXML = ReaderUsersXML(user, r.Host, db, password)
		return r, nil
	}
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeUnavailable, Op: op, Message: err.Error()}
	}
	var n uint64
	if err := conn.QueryRow(ctx, "SELECT count() FROM system.users WHERE name = ?", user).Scan(&n); err == nil && n > 0 {
		r.Created = false
	}
	for _, q := range ReaderSetupSQL(user, r.Host, db, password) {
		if err := conn.Exec(ctx, q); err != nil {
			return nil, &qeval.Error{Code: qeval.CodeQuery, Op: op, Message: strings.ReplaceAll(err.Error(), password, "xxxxx"),
				Hint: "the administrator needs access_management (users.xml) or the ACCESS MANAGEMENT grant; " +
					"or install the users.xml entry that qeval db setup-role --print shows"}
		}
	}
	return r, nil
}

// clientAddress is the address a connection comes from, as the server sees it (an
// IPv4 address without its ::ffff: prefix).
func clientAddress(ctx context.Context, conn ch.Conn) (string, error) {
	id := queryID()
	var addr string
	if err := conn.QueryRow(ch.Context(ctx, ch.WithQueryID(id)),
		"SELECT toString(address) FROM system.processes WHERE query_id = '"+id+"'").Scan(&addr); err != nil {
		return "", err
	}
	return strings.TrimPrefix(addr, "::ffff:"), nil
}
