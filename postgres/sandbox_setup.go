package postgres

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/qeval/qeval"
)

// TemplateName is the template database `qeval db setup-role --sandbox` makes of a
// source database: the stateful cases' copies are made from it.
func TemplateName(source string) string { return "qeval_tpl_" + source }

// SandboxSetupSQL returns the statements that make a sandbox role (one that can log in
// and create databases, nothing else) and a template database of source whose schemas
// and tables it owns: server runs on any database of the server, inTemplate in the
// template once it is made. The source is never changed; the role has no privilege on
// it.
func SandboxSetupSQL(role, source, password string) (server, inTemplate, after []string) {
	r, tpl := pgx.Identifier{role}.Sanitize(), pgx.Identifier{TemplateName(source)}.Sanitize()
	pw := ""
	if password != "" {
		pw = " PASSWORD " + quoteLiteral(password)
	}
	server = []string{
		"CREATE ROLE " + r + " LOGIN" + pw + " NOSUPERUSER CREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS",
		"CREATE DATABASE " + tpl + " TEMPLATE " + pgx.Identifier{source}.Sanitize(),
	}
	inTemplate = []string{`DO $qeval$DECLARE o record; BEGIN
  FOR o IN SELECT n.nspname, c.relname, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\_%'
      AND c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S')
      AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = c.oid AND d.classid = 'pg_class'::regclass AND d.deptype IN ('a', 'i'))
  LOOP
    EXECUTE format('ALTER %s %I.%I OWNER TO ` + quoteIdentInFormat(role) + `',
      CASE o.relkind WHEN 'S' THEN 'SEQUENCE' WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' WHEN 'f' THEN 'FOREIGN TABLE' ELSE 'TABLE' END,
      o.nspname, o.relname);
  END LOOP;
  FOR o IN SELECT nspname FROM pg_namespace WHERE nspname NOT IN ('pg_catalog', 'information_schema') AND nspname NOT LIKE 'pg\_%' LOOP
    EXECUTE format('ALTER SCHEMA %I OWNER TO ` + quoteIdentInFormat(role) + `', o.nspname);
  END LOOP;
END$qeval$`}
	after = []string{"ALTER DATABASE " + tpl + " IS_TEMPLATE true"}
	return server, inTemplate, after
}

// quoteIdentInFormat is a role name as an identifier inside a format() string literal.
func quoteIdentInFormat(role string) string {
	return strings.ReplaceAll(pgx.Identifier{role}.Sanitize(), "'", "''")
}

// SetupSandbox runs SandboxSetupSQL with an administrator's connection to the source
// database adminDSN names: it makes (or refreshes) the role and the template, and
// returns the DSN stateful cases use: the template, as the role.
func SetupSandbox(ctx context.Context, adminDSN, role, password string) (string, error) {
	cfg, err := pgx.ParseConfig(adminDSN)
	if err != nil {
		return "", &qeval.Error{Code: qeval.CodeInvalid, Message: "invalid dsn " + MaskDSN(adminDSN) + ": " + parseMessage(err)}
	}
	source := cfg.Database
	server, inTemplate, after := SandboxSetupSQL(role, source, password)
	admin := cfg.Copy()
	admin.Database = "postgres"
	tpl := pgx.Identifier{TemplateName(source)}.Sanitize()
	refresh := []string{
		// a template made before is made again, from the source as it is now
		"ALTER DATABASE " + tpl + " IS_TEMPLATE false",
		"DROP DATABASE " + tpl,
	}
	if err := execAll(ctx, admin, adminDSN, role, password, refresh, true); err != nil {
		return "", err
	}
	if err := execAll(ctx, admin, adminDSN, role, password, server, true); err != nil {
		return "", err
	}
	if password != "" {
		if err := execAll(ctx, admin, adminDSN, role, password, []string{"ALTER ROLE " + pgx.Identifier{role}.Sanitize() + " WITH LOGIN CREATEDB PASSWORD " + quoteLiteral(password)}, false); err != nil {
			return "", err
		}
	}
	in := cfg.Copy()
	in.Database = TemplateName(source)
	if err := execAll(ctx, in, adminDSN, role, password, inTemplate, false); err != nil {
		return "", err
	}
	if err := execAll(ctx, admin, adminDSN, role, password, after, false); err != nil {
		return "", err
	}
	return roleDSN(adminDSN, TemplateName(source), role, password)
}

// execAll runs statements on a new connection; with lenient, one that fails because
// what it makes exists, or what it changes does not, is passed over.
func execAll(ctx context.Context, cfg *pgx.ConnConfig, adminDSN, role, password string, stmts []string, lenient bool) error {
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return &qeval.Error{Code: qeval.CodeUnavailable, Op: "connect " + MaskDSN(adminDSN), Message: scrub(err.Error(), adminDSN)}
	}
	defer conn.Close(context.Background())
	for _, q := range stmts {
		if _, err := conn.Exec(ctx, q); err != nil {
			msg := err.Error()
			if lenient && (strings.Contains(msg, "already exists") || strings.Contains(msg, "does not exist")) {
				continue
			}
			if password != "" {
				msg = strings.ReplaceAll(msg, password, "xxxxx")
			}
			hint := ""
			if strings.Contains(msg, "being accessed by other users") {
				hint = "PostgreSQL copies a database only while no one is connected to it: close the other sessions of the source database and run setup-role again"
			}
			return &qeval.Error{Code: qeval.CodeQuery, Op: "set up sandbox role " + role, Message: scrub(msg, adminDSN), Hint: hint}
		}
	}
	return nil
}

// Sandboxes lists the sandbox copies (databases qeval_sbx_…) on the server dsn names,
// as its role sees them; DropSandbox drops one.
func Sandboxes(ctx context.Context, dsn string) ([]string, error) {
	var out []string
	err := onMaintenance(ctx, dsn, func(conn *pgx.Conn) error {
		rows, err := conn.Query(ctx, `SELECT datname::text FROM pg_database WHERE datname LIKE 'qeval\_sbx\_%' ORDER BY 1`)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, pgx.RowTo[string])
		return err
	})
	return out, err
}

// DropSandbox drops the sandbox copy name on the server dsn names.
func DropSandbox(ctx context.Context, dsn, name string) error {
	if !strings.HasPrefix(name, qeval.SandboxPrefix) {
		return &qeval.Error{Code: qeval.CodeInvalid, Message: name + " is not a sandbox copy"}
	}
	return onMaintenance(ctx, dsn, func(conn *pgx.Conn) error {
		_, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
		return err
	})
}

func onMaintenance(ctx context.Context, dsn string, f func(conn *pgx.Conn) error) error {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return &qeval.Error{Code: qeval.CodeInvalid, Message: "invalid dsn " + MaskDSN(dsn) + ": " + parseMessage(err)}
	}
	cfg.Database = "postgres"
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return &qeval.Error{Code: qeval.CodeUnavailable, Op: "connect " + MaskDSN(dsn), Message: scrub(err.Error(), dsn)}
	}
	defer conn.Close(context.Background())
	if err := f(conn); err != nil {
		return &qeval.Error{Code: qeval.CodeQuery, Op: MaskDSN(dsn), Message: scrub(err.Error(), dsn)}
	}
	return nil
}
