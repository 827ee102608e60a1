package registry

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/clickhouse"
	"github.com/qeval/qeval/duckdb"
	"github.com/qeval/qeval/kqlexec"
	"github.com/qeval/qeval/kusto"
	"github.com/qeval/qeval/mysql"
	"github.com/qeval/qeval/postgres"
	"github.com/qeval/qeval/sqlite"
	"github.com/qeval/qeval/sqlparse"
)

// engines is the one list of database engines, in the order targets are tried. Each
// entry is the engine's whole bundle.
var engines = []Engine{
	{
		Name: "postgres", Dialect: "postgres", Grammar: sqlparse.Postgres, Hint: "postgres://USER@HOST:5432/DB",
		Accepts: prefixes("postgres://", "postgresql://"), Display: postgres.MaskDSN, privileged: true,
		open: func(target string, p Params, guard func(string) error) (qeval.Executor, error) {
			// the guard runs after the executor's own text check
			return postgres.OpenWith(target, p.Limits, postgres.Options{AllowPrivileged: p.AllowPrivileged, Guard: guard})
		},
		Mirror: serverMirror(postgres.CreateSchema, postgres.DropSchema),
		sandbox: func(ctx context.Context, target string, p Params) (qeval.Sandbox, error) {
			return postgres.NewSandbox(ctx, target, p.Limits)
		},
		Roles: &RoleSetup{
			Print: func(r RoleRequest) string {
				if r.Sandbox {
					db := roleDatabase(r.DSN)
					server, in, after := postgres.SandboxSetupSQL(r.Role, db, r.Password)
					return strings.Join(server, ";\n") + ";\n-- in database " + postgres.TemplateName(db) + ":\n" +
						strings.Join(in, ";\n") + ";\n-- then:\n" + strings.Join(after, ";\n") + ";\n"
				}
				return strings.Join(postgres.RoleSetupSQL(r.Role, r.Schema, r.Password), ";\n") + ";\n"
			},
			Create: func(ctx context.Context, r RoleRequest) (RoleMade, error) {
				if r.Sandbox {
					dsn, err := postgres.SetupSandbox(ctx, r.DSN, r.Role, r.Password)
					db := roleDatabase(r.DSN)
					return RoleMade{Target: dsn, What: fmt.Sprintf("role %s can log in and create databases, nothing else; database %s is a template copy of %s whose tables it owns, "+
						"which stateful cases copy (connect them to it, and nothing else)", r.Role, postgres.TemplateName(db), db)}, err
				}
				created, err := postgres.SetupRole(ctx, r.DSN, r.Role, r.Schema, r.Password)
				if err != nil {
					return RoleMade{}, err
				}
				var made RoleMade
				if !created {
					made.Note = fmt.Sprintf("role %s exists: its password was replaced and read access granted again", r.Role)
				}
				made.What = fmt.Sprintf("role %s can log in and read the tables of schema %s", r.Role, r.Schema)
				made.Target, err = postgres.RoleDSN(r.DSN, r.Role, r.Password)
				return made, err
			},
		},
	},
	{
		Name: "mysql", Dialect: "mysql", Grammar: sqlparse.MySQL, Hint: "mysql://USER@HOST:3306/DB",
		Accepts: isMySQL, Display: mysql.MaskDSN, privileged: true,
		open: func(target string, p Params, guard func(string) error) (qeval.Executor, error) {
			ex, err := mysql.OpenWith(target, p.Limits, mysql.Options{AllowPrivileged: p.AllowPrivileged})
			if err != nil {
				return nil, err
			}
			return guarded(ex, guard), nil
		},
		Mirror: serverMirror(mysql.CreateDatabase, mysql.DropDatabase),
		sandbox: func(ctx context.Context, target string, p Params) (qeval.Sandbox, error) {
			return mysql.NewSandbox(ctx, target, p.Limits)
		},
		Roles: &RoleSetup{
			Print: func(r RoleRequest) string {
				db := mysql.DatabaseOf(r.DSN)
				if db == "" {
					db = roleDatabase(r.DSN)
				}
				host := r.Host
				if host == "" {
					host = "%"
				}
				if r.Sandbox {
					return strings.Join(mysql.SandboxSetupSQL(r.Role, host, db, r.Password), ";\n") + ";\n"
				}
				return strings.Join(mysql.ReaderSetupSQL(r.Role, host, db, r.Password), ";\n") + ";\n"
			},
			Create: func(ctx context.Context, r RoleRequest) (RoleMade, error) {
				if r.Sandbox {
					u, err := mysql.SetupSandbox(ctx, r.DSN, r.Role, r.Host, r.Password)
					if err != nil {
						return RoleMade{}, err
					}
					return RoleMade{What: fmt.Sprintf("user %s can log in from %s, read database %s and make and drop the sandbox copies (databases %s…) of stateful cases, nothing else",
						r.Role, u.Host, u.Database, qeval.SandboxPrefix), Target: u.DSN}, nil
				}
				u, err := mysql.SetupReader(ctx, r.DSN, r.Role, r.Host, r.Password)
				if err != nil {
					return RoleMade{}, err
				}
				return RoleMade{What: fmt.Sprintf("user %s can log in from %s and read database %s", r.Role, u.Host, u.Database), Target: u.DSN}, nil
			},
		},
	},
	{
		Name: "kusto", Dialect: "kql", Hint: "https://CLUSTER.kusto.windows.net/DB",
		Accepts: isKusto,
		open: func(target string, p Params, _ func(string) error) (qeval.Executor, error) {
			return openKusto(target, p.Limits)
		},
	},
	{
		Name: "kql", Dialect: "kql", Hint: "kql:PATH",
		Accepts: prefixes("kql:"),
		open: func(target string, p Params, _ func(string) error) (qeval.Executor, error) {
			return kqlexec.Open(strings.TrimPrefix(target, "kql:"), kqlexec.Options{Now: p.Now, Limits: p.Limits})
		},
	},
	{
		Name: "clickhouse", Dialect: "clickhouse", Grammar: sqlparse.MySQL, Hint: "clickhouse://USER@HOST:9000/DB",
		Accepts: clickhouse.IsTarget, Display: clickhouse.MaskDSN, privileged: true,
		open: func(target string, p Params, guard func(string) error) (qeval.Executor, error) {
			// a user that may read every database or write is refused unless AllowPrivileged
			ex, err := clickhouse.OpenWith(target, p.Limits, clickhouse.Options{AllowPrivileged: p.AllowPrivileged})
			if err != nil {
				return nil, err
			}
			return guarded(ex, guard), nil
		},
		Mirror: serverMirror(clickhouse.CreateDatabase, clickhouse.DropDatabase),
		Roles: &RoleSetup{
			Print: func(r RoleRequest) string {
				host, db := r.Host, roleDatabase(r.DSN)
				if host == "%" {
					host = ""
				}
				return "-- ClickHouse 20.4 and later (SQL users):\n" +
					strings.Join(clickhouse.ReaderSetupSQL(r.Role, host, db, r.Password), ";\n") + ";\n" +
					fmt.Sprintf("-- older servers (users.xml): /etc/clickhouse-server/users.d/%s.xml\n", r.Role) +
					clickhouse.ReaderUsersXML(r.Role, host, db, r.Password)
			},
			Create: func(ctx context.Context, r RoleRequest) (RoleMade, error) {
				u, err := clickhouse.SetupReader(ctx, r.DSN, r.Role, r.Host, r.Password)
				if err != nil {
					return RoleMade{}, err
				}
				from := u.Host
				if from == "" {
					from = "any address"
				}
				made := RoleMade{Target: u.DSN, What: fmt.Sprintf("user %s can log in from %s and read database %s", r.Role, from, u.Database)}
				switch {
				case u.UsersXML != "":
					made.UsersXML = u.UsersXML
					made.Note = fmt.Sprintf("this server keeps its users in users.xml (no SQL users before ClickHouse 20.4): nothing was changed; "+
						"put the entry above in its users.d folder (/etc/clickhouse-server/users.d/%s.xml), which it reads within seconds", r.Role)
					made.What = fmt.Sprintf("with that entry, user %s can log in from %s and read database %s (readonly profile, allow_databases)", r.Role, from, u.Database)
				case !u.Created:
					made.Note = fmt.Sprintf("user %s exists: its password was replaced and read access granted again", r.Role)
				}
				return made, nil
			},
		},
	},
	{
		Name: "duckdb", Dialect: "duckdb", Grammar: sqlparse.Postgres, Hint: "duckdb:PATH",
		Accepts: duckdb.IsTarget, File: duckdb.Path,
		open: func(target string, p Params, guard func(string) error) (qeval.Executor, error) {
			ex, err := duckdb.Open(target, p.Limits)
			if err != nil {
				return nil, err
			}
			return guarded(ex, guard), nil
		},
		Mirror: &MirrorWriter{Open: duckdbMirror},
		sandbox: func(ctx context.Context, target string, p Params) (qeval.Sandbox, error) {
			return duckdb.NewSandbox(ctx, target, p.Limits, duckdb.SandboxOptions{})
		},
	},
	{
		Name: "sqlite", Dialect: "sqlite", Grammar: sqlparse.SQLite, Hint: "PATH.sqlite",
		Accepts: func(string) bool { return true }, File: func(t string) string { return t },
		open: func(target string, p Params, guard func(string) error) (qeval.Executor, error) {
			ex, err := sqlite.Open(target, p.Limits)
			if err != nil {
				return nil, err
			}
			if guard == nil {
				return ex, nil
			}
			return &guardedSQLite{guardedExecutor: guardedExecutor{Executor: ex, guard: guard}, ex: ex}, nil
		},
		sandbox: func(ctx context.Context, target string, p Params) (qeval.Sandbox, error) {
			return sqlite.NewSandbox(ctx, target, p.Limits, sqlite.SandboxOptions{})
		},
	},
}

// guardedSQLite is the guarded SQLite executor with the methods only SQLite's has: the
// tables a query reads, as the engine resolves them (the metrics' engine path), and its
// virtual-machine step count (BIRD's VES).
type guardedSQLite struct {
	guardedExecutor
	ex *sqlite.Executor
}

// Query runs the guard first; when it refuses, SQLite's own refusal, if it has one, is
// what the caller sees: it names the statement's object and a second statement's
// position. Reads finds it by preparing the query, never running it.
func (g *guardedSQLite) Query(ctx context.Context, query string) (*qeval.ResultSet, error) {
	if err := g.guard(query); err != nil {
		if _, own := g.ex.Reads(ctx, query); own != nil {
			return nil, own
		}
		return nil, err
	}
	return g.ex.Query(ctx, query)
}

// Reads prepares the query without running it: the engine's authorizer applies.
func (g *guardedSQLite) Reads(ctx context.Context, query string) (*qeval.Shape, error) {
	return g.ex.Reads(ctx, query)
}

// VMSteps runs the query, so the guard checks it first.
func (g *guardedSQLite) VMSteps(ctx context.Context, query string) (int64, error) {
	if err := g.guard(query); err != nil {
		return 0, err
	}
	return g.ex.VMSteps(ctx, query)
}

// RoleSetup is how `qeval db setup-role` makes an engine's least-privileged role: one
// that can log in with a password and read the evaluation data, nothing else (least
// privilege is the real sandbox of generated SQL).
type RoleSetup struct {
	// Print is the text --print shows: the statements (for ClickHouse also the users.xml
	// entry of older servers), the password in them.
	Print func(r RoleRequest) string
	// Create makes the role as the administrator r.DSN names.
	Create func(ctx context.Context, r RoleRequest) (RoleMade, error)
}

// RoleRequest is the role setup-role is asked for.
type RoleRequest struct {
	// DSN is the administrator's connection; for MySQL and ClickHouse its database is
	// the one the role may read.
	DSN string
	// Role is the role (MySQL, ClickHouse: user) to make.
	Role string
	// Schema is, for PostgreSQL, the schema whose tables the role may read.
	Schema string
	// Host is, for MySQL and ClickHouse, the address the user may log in from ("": the
	// one the administrator's connection comes from; % for any).
	Host string
	// Password is the role's password.
	Password string
	// Sandbox asks for the role stateful cases run as: one that may make and drop
	// copies of the database (PostgreSQL: create databases from a template of it whose
	// tables it owns; MySQL: create and drop databases named qeval_sbx_…), nothing
	// else.
	Sandbox bool
}

// RoleMade is what RoleSetup.Create made.
type RoleMade struct {
	// What says what the role may do.
	What string
	// Target is the DSN to connect as the role, its password in it.
	Target string
	// Note, when set, is said before the result (the role existed: its password was
	// replaced).
	Note string
	// UsersXML, when set, is the users.xml entry that makes the user on a server that
	// keeps its users there (ClickHouse before 20.4): nothing was changed on it.
	UsersXML string
}

// roleDatabase is the database a DSN URL names, for the statements --print shows.
func roleDatabase(dsn string) string {
	if u, err := url.Parse(dsn); err == nil && strings.Trim(u.Path, "/") != "" {
		return strings.Trim(u.Path, "/")
	}
	return "<database>"
}

// isMySQL: a mysql:// URL or a go-sql-driver DSN (user@tcp(host)/db, user@unix(sock)/db).
func isMySQL(t string) bool {
	l := strings.ToLower(t)
	return strings.HasPrefix(l, "mysql://") || strings.Contains(l, "@tcp(") || strings.Contains(l, "@unix(")
}

func isKusto(t string) bool {
	l := strings.ToLower(t)
	return strings.HasPrefix(l, "https://") && strings.Contains(l, ".kusto.")
}

// openKusto opens an Azure Data Explorer database named as
// https://<cluster>/<database>, signing in with the SDK's default credential chain.
func openKusto(target string, limits qeval.Limits) (qeval.Executor, error) {
	u, err := url.Parse(target)
	if err != nil || u.Host == "" || strings.Trim(u.Path, "/") == "" {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Message: fmt.Sprintf("kusto target %q must look like https://<cluster>/<database>", target)}
	}
	return kusto.New(kusto.Config{ClusterURL: u.Scheme + "://" + u.Host, Database: strings.Trim(u.Path, "/"), Auth: kusto.AuthDefault, Limits: limits})
}

// duckdbMirror copies into duckdb:PATH: a file for one source, else a folder of
// <db_id>.duckdb.
func duckdbMirror(_ context.Context, dest string, srcs []MirrorSource, opt MirrorOptions) (func(MirrorSource) (qeval.TableSink, string, error), error) {
	path := duckdb.Path(dest)
	single := len(srcs) == 1 && duckdb.IsTarget(path) && !isDir(path)
	if !single {
		if err := os.MkdirAll(path, 0o755); err != nil {
			return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "mirror into " + dest, Message: err.Error(), Err: err}
		}
	}
	return func(src MirrorSource) (qeval.TableSink, string, error) {
		file := path
		if !single {
			file = filepath.Join(path, src.DBID+".duckdb")
		}
		if opt.Replace {
			os.Remove(file)
			os.Remove(file + ".wal")
		}
		w, err := duckdb.Create(file)
		if err != nil {
			return nil, "", err
		}
		return w, "duckdb:" + file, nil
	}, nil
}
