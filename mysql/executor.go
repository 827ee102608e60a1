package mysql

import (
	"context"
	"database/sql"
	"errors"
	"net"
	"net/url"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/qeval/qeval"
)

var (
	_ qeval.Executor     = (*Executor)(nil)
	_ qeval.SchemaReader = (*Executor)(nil)
)

// Executor runs untrusted read-only queries on one MySQL or MariaDB database. It is
// safe for concurrent use; each query takes one pooled connection for its duration.
type Executor struct {
	dsn      string // masked: safe to print
	password string // to scrub from server messages
	limits   qeval.Limits
	db       *sql.DB
	mariadb  bool // the server is MariaDB, whose statement timeout differs from MySQL's
	closed   atomic.Bool
	database string // the DSN's database
}

// sessionSQLMode is the sql_mode of every connection: the server's, without the two
// modes that change how literals are quoted, so that the statement check reads
// strings and identifiers as the server does.
const sessionSQLMode = "REPLACE(REPLACE(@@sql_mode, 'NO_BACKSLASH_ESCAPES', ''), 'ANSI_QUOTES', '')"

// Open connects to the MySQL or MariaDB database named by dsn, in the driver's form
// user:password@tcp(127.0.0.1:3306)/db?param=value, and checks that it answers. Every
// query runs with limits (defaults for zero fields). These DSN parameters are
// overridden: multiStatements (always off), parseTime (off), allowAllFiles (off),
// interpolateParams (off), columnsWithAlias (off), time_zone (UTC) and sql_mode (see
// sessionSQLMode). Errors never contain the password. A user that holds more than
// reading the evaluation databases is refused (see OpenWith).
func Open(dsn string, limits qeval.Limits) (*Executor, error) {
	return OpenWith(dsn, limits, Options{})
}

// OpenWith is Open with options: unless opt.AllowPrivileged, a user that holds more
// than SELECT and SHOW VIEW on the evaluation databases (writes, DDL, FILE, SUPER,
// PROCESS, or SELECT on every database) is refused with CodeForbidden and a hint that
// says how to create one that does not.
func OpenWith(dsn string, limits qeval.Limits, opt Options) (*Executor, error) {
	return open(dsn, limits, opt, "")
}

// open is OpenWith; database, when set, is the database to connect to in place of the
// DSN's.
func open(dsn string, limits qeval.Limits, opt Options, database string) (*Executor, error) {
	dsn, err := fromURL(dsn)
	if err != nil {
		return nil, err
	}
	masked := MaskDSN(dsn)
	cfg, err := gomysql.ParseDSN(dsn)
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "open mysql", Message: "invalid dsn " + masked + ": " + scrub(err.Error(), passwordOf(dsn)),
			Hint: "write the DSN as user:password@tcp(host:port)/database"}
	}
	e := &Executor{dsn: masked, password: cfg.Passwd, limits: limits.WithDefaults(), database: cfg.DBName}
	if database != "" {
		cfg.DBName = database
	}
	cfg.MultiStatements = false
	cfg.ParseTime = false
	cfg.AllowAllFiles = false
	cfg.InterpolateParams = false
	cfg.ColumnsWithAlias = false
	cfg.Loc = time.UTC
	cfg.Logger = discardLogger{}
	if cfg.Timeout == 0 {
		cfg.Timeout = e.limits.Timeout
	}
	if cfg.Params == nil {
		cfg.Params = map[string]string{}
	}
	for k := range cfg.Params {
		if strings.EqualFold(k, "time_zone") || strings.EqualFold(k, "sql_mode") {
			delete(cfg.Params, k)
		}
	}
	cfg.Params["time_zone"] = "'+00:00'"
	cfg.Params["sql_mode"] = sessionSQLMode
	connector, err := gomysql.NewConnector(cfg)
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "open mysql", Message: "invalid dsn " + masked + ": " + e.scrub(err.Error())}
	}
	e.db = sql.OpenDB(connector)
	e.db.SetMaxIdleConns(max(4, runtime.GOMAXPROCS(0)))

	ctx, cancel := context.WithTimeout(context.Background(), e.limits.Timeout)
	defer cancel()
	var version string
	if err := e.db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&version); err != nil {
		e.db.Close()
		return nil, e.connectError(err)
	}
	e.mariadb = strings.Contains(strings.ToLower(version), "mariadb")
	if !opt.AllowPrivileged {
		if err := e.checkGrants(ctx, cfg.DBName); err != nil {
			e.db.Close()
			return nil, err
		}
	}
	return e, nil
}

// DSN returns the data source name with its password masked.
func (e *Executor) DSN() string { return e.dsn }

// Close closes every pooled connection; queries running at that time fail. Calling it
// again does nothing.
func (e *Executor) Close() error {
	if e == nil || e.db == nil {
		return nil // a half-opened executor holds nothing
	}
	e.closed.Store(true)
	return e.db.Close()
}

// fromURL turns a mysql://user:password@host:port/db?param=value URL into the driver's
// form user:password@tcp(host:port)/db?param=value; any other DSN is returned as it is
// (the driver reads a URL as "invalid dsn").
func fromURL(dsn string) (string, error) {
	if !strings.HasPrefix(strings.ToLower(dsn), "mysql://") {
		return dsn, nil
	}
	u, err := url.Parse(dsn)
	if err != nil || u.Host == "" {
		return "", &qeval.Error{Code: qeval.CodeInvalid, Op: "open mysql", Message: "invalid dsn " + MaskDSN(dsn),
			Hint: "write the DSN as mysql://user:password@host:port/database or user:password@tcp(host:port)/database"}
	}
	host := u.Host
	if u.Port() == "" {
		host += ":3306"
	}
	out := ""
	if u.User != nil {
		out = u.User.Username()
		if p, ok := u.User.Password(); ok {
			out += ":" + p
		}
		out += "@"
	}
	out += "tcp(" + host + ")/" + strings.TrimPrefix(u.Path, "/")
	if u.RawQuery != "" {
		out += "?" + u.RawQuery
	}
	return out, nil
}

// discardLogger drops the driver's own log lines: the executor reports every failure
// as an error, and a library does not write to stderr.
type discardLogger struct{}

func (discardLogger) Print(...any) {}

// connectError describes a failure to reach the server, naming the masked DSN.
func (e *Executor) connectError(err error) error {
	code, msg := qeval.CodeUnavailable, ""
	var myErr *gomysql.MySQLError
	var errno syscall.Errno
	var dnsErr *net.DNSError
	switch {
	case errors.As(err, &myErr):
		msg = myErr.Message
		switch myErr.Number {
		case 1049: // ER_BAD_DB_ERROR
			code = qeval.CodeNotFound
		case 1045, 1044, 1698: // access denied
			code = qeval.CodeInvalid
		}
	case errors.As(err, &errno):
		msg = errno.Error()
	case errors.As(err, &dnsErr):
		msg = "no such host " + dnsErr.Name
	case errors.Is(err, context.DeadlineExceeded):
		msg = "no answer within " + e.limits.Timeout.String()
	default:
		msg = err.Error()
	}
	return &qeval.Error{Code: code, Op: "connect " + e.dsn, Message: e.scrub(msg),
		Hint: "check that the server is running there and that the DSN's user, password and database are right", Err: err}
}

func (e *Executor) scrub(msg string) string { return scrub(msg, e.password) }

// scrub removes a password from a message the server or driver wrote.
func scrub(msg, password string) string {
	if password == "" {
		return msg
	}
	return strings.ReplaceAll(msg, password, "xxxxx")
}

// credentials finds the user:password part of a DSN the way the driver does: before
// the last '@' that precedes the last '/' (or, in a DSN without '/', the last '@').
// It returns its end, or -1.
func credentials(dsn string) int {
	if slash := strings.LastIndexByte(dsn, '/'); slash >= 0 {
		if at := strings.LastIndexByte(dsn[:slash], '@'); at >= 0 {
			return at
		}
	}
	return strings.LastIndexByte(dsn, '@')
}

func passwordOf(dsn string) string {
	at := credentials(dsn)
	if at < 0 {
		return ""
	}
	if colon := strings.IndexByte(dsn[:at], ':'); colon >= 0 {
		return dsn[colon+1 : at]
	}
	return ""
}

// MaskDSN returns dsn with its password replaced by xxxxx:
// root:s3cret@tcp(127.0.0.1:3306)/test becomes root:xxxxx@tcp(127.0.0.1:3306)/test.
// Use it whenever a DSN is printed.
func MaskDSN(dsn string) string {
	if strings.HasPrefix(strings.ToLower(dsn), "mysql://") {
		if u, err := url.Parse(dsn); err == nil {
			if _, has := u.User.Password(); has {
				u.User = url.UserPassword(u.User.Username(), "xxxxx")
			}
			return u.String()
		}
		return "mysql://xxxxx"
	}
	at := credentials(dsn)
	if at < 0 {
		return dsn
	}
	colon := strings.IndexByte(dsn[:at], ':')
	if colon < 0 {
		return dsn
	}
	return dsn[:colon] + ":xxxxx" + dsn[at:]
}
