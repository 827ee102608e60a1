package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/qeval/qeval"
)

// A sandbox copy is a new database made with CREATE DATABASE … TEMPLATE by the role of
// the target's DSN: a role that may create databases and nothing else (SandboxSetupSQL
// makes it, with a template database whose tables it owns), so that inside the copy it
// may write to the tables and change their definitions, and outside it can touch
// nothing. It is dropped when the sandbox closes. The target names the template.
//
// Each statement is checked first (sandboxCheck: no database, role, grant, extension,
// server-file, signal or setting statement, none of sqlguard's functions), runs with
// statement_timeout set to what is left of its deadline, and a write is followed by a
// look at the copy's size (pg_database_size), which is bounded.

var _ qeval.Sandbox = (*Sandbox)(nil)

// DefaultSandboxGrowth is how many bytes a copy may grow past its template's size.
const DefaultSandboxGrowth = 64 << 20

// Sandbox is a disposable copy of a PostgreSQL database; see qeval.Sandbox.
type Sandbox struct {
	ex       *Executor // its limits, type names and message scrubbing; no pool
	conn     *pgx.Conn
	admin    *pgx.ConnConfig // the maintenance database, as the sandbox role
	name     string
	maxBytes int64
}

// NewSandbox copies the database dsn names (a template) into a new database, as the
// DSN's role, and connects to the copy.
func NewSandbox(ctx context.Context, dsn string, limits qeval.Limits) (*Sandbox, error) {
	masked := MaskDSN(dsn)
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "open postgres", Message: "invalid dsn " + masked + ": " + parseMessage(err)}
	}
	configure(cfg)
	ex := &Executor{dsn: masked, password: cfg.Password, limits: limits.WithDefaults()}
	template := cfg.Database
	admin := cfg.Copy()
	admin.Database = "postgres"
	sb := &Sandbox{ex: ex, admin: admin, name: qeval.SandboxName()}
	size, err := sb.create(ctx, template)
	if err != nil {
		return nil, err
	}
	sb.maxBytes = size + DefaultSandboxGrowth
	cc := cfg.Copy()
	cc.Database = sb.name
	if sb.conn, err = pgx.ConnectConfig(ctx, cc); err != nil {
		sb.drop()
		return nil, ex.connectError(err)
	}
	return sb, nil
}

// create makes the copy of template and returns the template's size.
func (s *Sandbox) create(ctx context.Context, template string) (int64, error) {
	conn, err := pgx.ConnectConfig(ctx, s.admin)
	if err != nil {
		return 0, s.ex.connectError(err)
	}
	defer conn.Close(context.Background())
	var size int64
	if err := conn.QueryRow(ctx, "SELECT pg_database_size($1)", template).Scan(&size); err != nil {
		return 0, s.copyError(template, err)
	}
	q := "CREATE DATABASE " + pgx.Identifier{s.name}.Sanitize() + " TEMPLATE " + pgx.Identifier{template}.Sanitize()
	for wait := 50 * time.Millisecond; ; wait *= 2 {
		_, err = conn.Exec(ctx, q)
		var pgErr *pgconn.PgError
		if err == nil || !errors.As(err, &pgErr) || pgErr.Code != "55006" || wait > time.Second || ctx.Err() != nil {
			break
		}
		time.Sleep(wait) // another session on the template: PostgreSQL waited 5 s already
	}
	if err != nil {
		return 0, s.copyError(template, err)
	}
	return size, nil
}

// copyError says why the copy could not be made: the privilege missing, or the
// sessions in the way.
func (s *Sandbox) copyError(template string, err error) error {
	var pgErr *pgconn.PgError
	msg := s.ex.scrub(err.Error())
	hint := "make the sandbox role and its template with qeval db setup-role --sandbox"
	if errors.As(err, &pgErr) {
		msg = s.ex.scrub(pgErr.Message)
		switch pgErr.Code {
		case "42501":
			msg = fmt.Sprintf("postgres: role %q may not copy database %q: %s (a sandbox role needs CREATEDB, and the database must be a template: ALTER DATABASE … IS_TEMPLATE true)", s.admin.User, template, msg)
		case "55006":
			msg = fmt.Sprintf("postgres: database %q has other sessions, and PostgreSQL copies a database only while no one is connected to it (%s)", template, msg)
			hint = "give stateful cases a template database of their own (qeval db setup-role --sandbox makes one) and run no read-only case on it"
		}
	}
	return &qeval.Error{Code: qeval.CodeForbidden, Op: "copy database " + template + " into a sandbox", Message: msg, Hint: hint, Err: err}
}

// Close drops the copy.
func (s *Sandbox) Close() error {
	if s.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
		s.conn.Close(ctx)
		cancel()
		s.conn = nil
	}
	return s.drop()
}

func (s *Sandbox) drop() error {
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, s.admin)
	if err != nil {
		return s.ex.connectError(err)
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{s.name}.Sanitize()+" WITH (FORCE)")
	return err
}

// Name is the copy's database.
func (s *Sandbox) Name() string { return s.name }

// Query checks one statement and runs it in the copy, outside any transaction of
// qeval's (the statement's own BEGIN … COMMIT are the answer's).
func (s *Sandbox) Query(ctx context.Context, stmt string) (*qeval.ResultSet, error) {
	if err := sandboxCheck(stmt); err != nil {
		return nil, err
	}
	rs, err := s.run(ctx, stmt)
	if err != nil {
		return nil, err
	}
	if !readKeywords[firstWord(stmt)] {
		var size int64
		if err := s.conn.QueryRow(ctx, "SELECT pg_database_size(current_database())").Scan(&size); err == nil && size > s.maxBytes {
			return nil, &qeval.Error{Code: qeval.CodeTooLarge,
				Message: fmt.Sprintf("the sandbox copy is full: the statements grew it past its size bound (%d bytes)", s.maxBytes)}
		}
	}
	return rs, nil
}

// run runs a checked (or qeval's own) statement with the deadline and the caps.
func (s *Sandbox) run(ctx context.Context, stmt string) (*qeval.ResultSet, error) {
	if s.conn == nil || s.conn.IsClosed() {
		return nil, &qeval.Error{Code: qeval.CodeUnavailable, Message: "the connection to the sandbox copy is lost"}
	}
	tctx, cancelTimeout := context.WithTimeout(ctx, s.ex.limits.Timeout)
	defer cancelTimeout()
	qctx, stop := context.WithCancel(tctx)
	defer stop()
	ms := int64(1)
	if dl, ok := qctx.Deadline(); ok {
		ms = max(1, time.Until(dl).Milliseconds())
	}
	if _, err := s.conn.PgConn().Exec(qctx, "SET statement_timeout = "+strconv.FormatInt(ms, 10)).ReadAll(); err != nil {
		return nil, s.ex.classify(ctx, tctx, stmt, err)
	}
	rs, err := s.ex.fetch(qctx, stop, s.conn, stmt)
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

// sandboxKeywords start the statements a copy runs besides reads: writes, definitions,
// transactions.
var sandboxKeywords = map[string]bool{
	"INSERT": true, "UPDATE": true, "DELETE": true, "MERGE": true, "TRUNCATE": true,
	"CREATE": true, "DROP": true, "ALTER": true, "COMMENT": true, "ANALYZE": true, "ANALYSE": true,
	"REINDEX": true, "REFRESH": true, "CALL": true, "DO": true,
	"BEGIN": true, "START": true, "COMMIT": true, "END": true, "ROLLBACK": true, "ABORT": true,
	"SAVEPOINT": true, "RELEASE": true, "SET": true,
}

// sandboxObjects are what CREATE, DROP and ALTER may not name in a copy: they reach
// past its tables (other databases, roles, the server, extensions, languages).
var sandboxObjects = map[string]bool{
	"DATABASE": true, "ROLE": true, "USER": true, "GROUP": true, "SYSTEM": true, "TABLESPACE": true,
	"EXTENSION": true, "SERVER": true, "SUBSCRIPTION": true, "PUBLICATION": true, "LANGUAGE": true,
	"FOREIGN": true, "EVENT": true, "DEFAULT": true, "OWNED": true, "CAST": true, "TRUSTED": true, "PROCEDURAL": true,
}

// sandboxSettings are the settings SET may change in a copy (not its deadline, its role
// or its session).
var sandboxSettings = map[string]bool{
	"SEARCH_PATH": true, "DATESTYLE": true, "TIMEZONE": true, "TIME": true, "CONSTRAINTS": true,
	"CLIENT_MIN_MESSAGES": true, "ENABLE_SEQSCAN": true, "ENABLE_INDEXSCAN": true, "LOCAL": true, "TRANSACTION": true,
}

// sandboxCheck refuses what a statement in a copy may not do, before it reaches the
// server (the role's privileges are the real guard).
func sandboxCheck(stmt string) error {
	if strings.IndexByte(stmt, 0) >= 0 {
		return &qeval.Error{Code: qeval.CodeQuery, Message: "the statement contains a NUL byte"}
	}
	toks := lex(stmt)
	var words []string
	for i, t := range toks {
		if t.Kind == tokPunct && t.Text == ";" && i+1 < len(toks) {
			return &qeval.Error{Code: qeval.CodeQuery, Message: "several statements in one: a sandbox runs one at a time"}
		}
		if (t.Kind == tokWord || t.Kind == tokQuoted) && i+1 < len(toks) && toks[i+1].Kind == tokPunct && toks[i+1].Text == "(" && deniedFunction(t.Text) {
			return forbidden(fmt.Sprintf("function %s() is not allowed: %s", strings.ToLower(t.Text), sandboxReason))
		}
		if t.Kind == tokWord && len(words) < 3 {
			words = append(words, t.Text)
		}
	}
	if len(words) == 0 {
		return &qeval.Error{Code: qeval.CodeQuery, Message: "empty query"}
	}
	first := words[0]
	switch {
	case readKeywords[first]:
		return nil
	case !sandboxKeywords[first]:
		return forbidden(fmt.Sprintf("%s is not allowed: %s", first, sandboxReason))
	case (first == "CREATE" || first == "DROP" || first == "ALTER") && len(words) > 1 && sandboxObjects[objectWord(words[1:])]:
		return forbidden(fmt.Sprintf("%s %s is not allowed: %s", first, objectWord(words[1:]), sandboxReason))
	case first == "SET" && (len(words) < 2 || !sandboxSettings[words[1]] || len(words) > 2 && words[1] == "LOCAL" && !sandboxSettings[words[2]]):
		return forbidden("SET of this setting is not allowed: " + sandboxReason)
	}
	return nil
}

// objectWord is the kind of object a CREATE, DROP or ALTER names, past OR REPLACE,
// UNIQUE, TEMP and the like.
func objectWord(words []string) string {
	for _, w := range words {
		switch w {
		case "OR", "REPLACE", "UNIQUE", "TEMP", "TEMPORARY", "UNLOGGED", "GLOBAL", "LOCAL", "MATERIALIZED", "RECURSIVE":
			continue
		}
		return w
	}
	return ""
}

// sandboxReason ends the message of a statement refused in a copy.
const sandboxReason = "a stateful answer may change only the copy's own tables"
