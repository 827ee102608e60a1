package postgres

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/internal/lazyregexp"
)

var (
	_ qeval.Executor     = (*Executor)(nil)
	_ qeval.SchemaReader = (*Executor)(nil)
)

// Executor runs untrusted read-only queries on one PostgreSQL database. It is safe for
// concurrent use; each query takes one connection of a pool for its duration.
type Executor struct {
	dsn      string // masked: safe to print
	password string // to scrub from server messages
	limits   qeval.Limits
	pool     *pgxpool.Pool
	types    sync.Map // uint32 OID -> string name, for types outside pgx's table
	closed   atomic.Bool
	guard    func(query string) error
}

// Options are the extras of OpenWith.
type Options struct {
	// AllowPrivileged lets the executor run as a superuser or as a member of
	// pg_read_server_files, pg_write_server_files, pg_execute_server_program or
	// pg_signal_backend. Without it Open refuses such a role (generated SQL could read
	// server files and kill other sessions): a role that can only read the
	// evaluation schema is the real sandbox, see RoleSetupSQL.
	AllowPrivileged bool
	// Guard, when set, checks each query before it reaches the server, after the
	// executor's own text check (the registry passes validate.Guard("postgres"), which
	// works on the parse tree).
	Guard func(query string) error
}

// privilegedRoles are the predefined roles that reach outside the database.
var privilegedRoles = []string{"pg_read_server_files", "pg_write_server_files", "pg_execute_server_program", "pg_signal_backend"}

// RoleSetupSQL returns the statements that create a role that can log in (with
// password, unless it is "") and only read the tables of schema, for qeval to connect as
// (qeval db setup-role runs them).
func RoleSetupSQL(role, schema, password string) []string {
	r, s := pgx.Identifier{role}.Sanitize(), pgx.Identifier{schema}.Sanitize()
	pw := ""
	if password != "" {
		pw = " PASSWORD " + quoteLiteral(password)
	}
	return []string{
		"CREATE ROLE " + r + " LOGIN" + pw + " NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS",
		"GRANT USAGE ON SCHEMA " + s + " TO " + r,
		"GRANT SELECT ON ALL TABLES IN SCHEMA " + s + " TO " + r,
		"ALTER DEFAULT PRIVILEGES IN SCHEMA " + s + " GRANT SELECT ON TABLES TO " + r,
	}
}

// cancelDeadlineDelay is how long after a query's context ends the connection waits
// for the server to honour the cancel request before it is cut.
const cancelDeadlineDelay = 500 * time.Millisecond

// runtimeParams fix how the server prints values, so that convert reads them
// unambiguously, and how it reads string literals, so that the statement check
// agrees with it. The DSN may set the first two; the others are always set.
var runtimeParams = []struct {
	name, value string
	force       bool
}{
	{"application_name", "qeval", false},
	{"TimeZone", "UTC", false},
	{"DateStyle", "ISO, YMD", true},
	{"IntervalStyle", "postgres", true},
	{"bytea_output", "hex", true},
	{"standard_conforming_strings", "on", true},
}

// Open connects to the PostgreSQL database named by dsn (a URL such as
// postgres://user:password@127.0.0.1:5432/db or key=value pairs, as libpq reads them)
// and checks that it answers. Every query runs with limits (defaults for zero fields).
// Errors never contain the password.
func Open(dsn string, limits qeval.Limits) (*Executor, error) {
	return OpenWith(dsn, limits, Options{})
}

// OpenWith is Open with Options.
func OpenWith(dsn string, limits qeval.Limits, opt Options) (*Executor, error) {
	masked := MaskDSN(dsn)
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "open postgres", Message: "invalid dsn " + masked + ": " + parseMessage(err),
			Hint: "write the DSN as postgres://user:password@host:port/database or host=... dbname=... pairs"}
	}
	e := &Executor{dsn: masked, password: cfg.ConnConfig.Password, limits: limits.WithDefaults(), guard: opt.Guard}
	configure(cfg.ConnConfig)
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		return nil, e.connectError(err)
	}
	e.pool = pool
	ctx, cancel := context.WithTimeout(context.Background(), e.limits.Timeout)
	defer cancel()
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, e.connectError(err)
	}
	if !opt.AllowPrivileged {
		if err := e.checkRole(ctx); err != nil {
			pool.Close()
			return nil, err
		}
	}
	return e, nil
}

// configure sets up a connection as every connection of qeval's: the exec mode, the
// runtime parameters and the cancelling of a statement whose context ends.
func configure(cc *pgx.ConnConfig) {
	// Text results in one round trip, never a named prepared statement: every query
	// is new, and the extended protocol refuses several statements in one string.
	cc.DefaultQueryExecMode = pgx.QueryExecModeExec
	cc.StatementCacheCapacity = 0
	cc.DescriptionCacheCapacity = 0
	for _, p := range runtimeParams {
		k, set := lookupFold(cc.RuntimeParams, p.name)
		if set && !p.force {
			continue
		}
		if set {
			delete(cc.RuntimeParams, k)
		}
		cc.RuntimeParams[p.name] = p.value
	}
	// When a query's context ends, ask the server to cancel the statement (so it stops
	// working, not just the client waiting) and cut the connection if it does not.
	cc.BuildContextWatcherHandler = func(pc *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: pc, DeadlineDelay: cancelDeadlineDelay}
	}
}

// checkRole refuses a role that can reach outside the database.
func (e *Executor) checkRole(ctx context.Context) error {
	var role string
	var super bool
	var members []string
	err := e.pool.QueryRow(ctx, `SELECT current_user::text, r.rolsuper,
		coalesce((SELECT array_agg(b.rolname::text ORDER BY b.rolname) FROM pg_roles b
		          WHERE b.rolname = ANY($1) AND pg_has_role(current_user, b.oid, 'MEMBER')), '{}')
		FROM pg_roles r WHERE r.rolname = current_user`, privilegedRoles).Scan(&role, &super, &members)
	if err != nil {
		return e.connectError(err)
	}
	why := ""
	switch {
	case super:
		why = "a superuser"
	case len(members) > 0:
		why = "a member of " + strings.Join(members, ", ")
	}
	if why == "" {
		return nil
	}
	return &qeval.Error{Code: qeval.CodeForbidden, Op: "open " + e.dsn,
		Message: fmt.Sprintf("role %q is %s: generated queries could read server files or signal other sessions", role, why),
		Hint: "connect as a role that can only read the evaluation schema (qeval db setup-role --dsn ADMIN_DSN --role qeval_reader, or: " +
			strings.Join(RoleSetupSQL("qeval_reader", "public", "<password>"), "; ") + "), or pass --unsafe-allow-privileged"}
}

// DSN returns the data source name with its password masked.
func (e *Executor) DSN() string { return e.dsn }

// Close closes every pooled connection; queries running at that time fail. Calling it
// again does nothing.
func (e *Executor) Close() error {
	if e == nil || e.pool == nil {
		return nil // a half-opened executor holds nothing
	}
	e.closed.Store(true)
	e.pool.Close()
	return nil
}

func lookupFold(m map[string]string, key string) (string, bool) {
	for k := range m {
		if strings.EqualFold(k, key) {
			return k, true
		}
	}
	return "", false
}

// connectError describes a failure to reach the server, naming the masked DSN.
func (e *Executor) connectError(err error) error {
	code, msg := qeval.CodeUnavailable, ""
	var pgErr *pgconn.PgError
	var errno syscall.Errno
	var dnsErr *net.DNSError
	switch {
	case errors.As(err, &pgErr):
		msg = pgErr.Message
		switch {
		case pgErr.Code == "3D000": // invalid_catalog_name
			code = qeval.CodeNotFound
		case strings.HasPrefix(pgErr.Code, "28"): // invalid authorization
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
		Hint: "check that PostgreSQL is running there and that the DSN's user, password and database are right", Err: err}
}

// parseMessage returns why pgx could not parse a DSN, without the DSN itself.
func parseMessage(err error) string {
	var pce *pgconn.ParseConfigError
	if errors.As(err, &pce) {
		msg := err.Error()
		// "cannot parse `<redacted dsn>`: <why>"
		if i := strings.Index(msg, "`: "); i >= 0 {
			return msg[i+3:]
		}
		if inner := pce.Unwrap(); inner != nil {
			return inner.Error()
		}
	}
	return err.Error()
}

// scrub removes the password from a message the server or driver wrote.
func (e *Executor) scrub(msg string) string {
	if e.password == "" {
		return msg
	}
	return strings.ReplaceAll(msg, e.password, "xxxxx")
}

var keywordPassword = lazyregexp.New(`(?i)(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s]*)`)

// MaskDSN returns dsn with its password replaced by xxxxx, in URL form
// (postgres://user:xxxxx@host/db, and a password=... query parameter) and in
// key=value form. Use it whenever a DSN is printed.
func MaskDSN(dsn string) string {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			// Unparseable: keep the scheme and host part only, never the user info.
			if at := strings.LastIndex(dsn, "@"); at >= 0 {
				return dsn[:strings.Index(dsn, "://")+3] + "xxxxx@" + dsn[at+1:]
			}
			return dsn
		}
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
		q := u.Query()
		if q.Has("password") {
			q.Set("password", "xxxxx")
			u.RawQuery = q.Encode()
		}
		return u.String()
	}
	return keywordPassword.ReplaceAllString(dsn, "${1}xxxxx")
}
