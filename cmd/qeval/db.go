package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/clickhouse"
	"github.com/qeval/qeval/mysql"
	"github.com/qeval/qeval/postgres"
	"github.com/qeval/qeval/registry"
)

// cmdDB is `qeval db setup-role`: it creates, with an administrator's connection, the
// role qeval should connect as: one that can log in with a password and read the
// evaluation schema's tables (PostgreSQL) or the evaluation database (MySQL, MariaDB,
// ClickHouse), nothing else (least privilege is the real sandbox of generated SQL). The
// password is generated and printed once, in the DSN to connect with, unless
// --password-file gives it.
func cmdDB(ctx context.Context, args []string, e *env) int {
	if len(args) == 0 || args[0] != "setup-role" {
		return fail(e, &qeval.Error{Code: qeval.CodeInvalid, Message: "qeval db takes the subcommand setup-role",
			Hint: "qeval db setup-role --dsn postgres://postgres@127.0.0.1:5432/test --role qeval_reader"})
	}
	fs := newFlags("db setup-role", "--dsn ADMIN_DSN --role NAME [--schema public] [--host H] [--password-file F] [--users-xml F] [--print]", e)
	dsn := fs.String("dsn", "", "a PostgreSQL, MySQL or ClickHouse DSN of a role that may create roles (required); for MySQL and ClickHouse, its database is the one the user may read")
	role := fs.String("role", "qeval_reader", "the role (MySQL, ClickHouse: user) to create")
	schema := fs.String("schema", "public", "PostgreSQL: the schema whose tables the role may read")
	host := fs.String("host", "", "MySQL, ClickHouse: the address the user may log in from (default: the one this connection comes from, as the server sees it; % for any)")
	passwordFile := fs.String("password-file", "", "read the role's password from this file (default: a new random one, printed once)")
	usersXML := fs.String("users-xml", "", "ClickHouse before 20.4 (users in users.xml): write the user's entry to this file (e.g. /etc/clickhouse-server/users.d/qeval_reader.xml) instead of printing it")
	printOnly := fs.Bool("print", false, "print the SQL (ClickHouse: and the users.xml entry) instead of running it")
	if code := parseFlags(fs, args[1:]); code >= 0 {
		return code
	}
	password, given, err := rolePassword(*passwordFile)
	if err != nil {
		return fail(e, err)
	}
	engine := registry.EngineOf(*dsn)
	if *printOnly {
		return printRoleSQL(e, engine, *dsn, *role, *schema, *host, password)
	}
	if *dsn == "" {
		return fail(e, &qeval.Error{Code: qeval.CodeInvalid, Message: "missing --dsn", Hint: "or --print to see the SQL"})
	}
	var what, target string
	switch engine {
	case "mysql":
		r, err := mysql.SetupReader(ctx, *dsn, *role, *host, password)
		if err != nil {
			return fail(e, err)
		}
		what, target = fmt.Sprintf("user %s can log in from %s and read database %s", *role, r.Host, r.Database), r.DSN
	case "clickhouse":
		r, err := clickhouse.SetupReader(ctx, *dsn, *role, *host, password)
		if err != nil {
			return fail(e, err)
		}
		from := r.Host
		if from == "" {
			from = "any address"
		}
		if r.UsersXML != "" {
			if code := writeUsersXML(e, *usersXML, r.UsersXML); code != exitOK {
				return code
			}
			fmt.Fprintf(e.stderr, "this server keeps its users in users.xml (no SQL users before ClickHouse 20.4): nothing was changed; "+
				"put the entry above in its users.d folder (/etc/clickhouse-server/users.d/%s.xml), which it reads within seconds\n", *role)
			what = fmt.Sprintf("with that entry, user %s can log in from %s and read database %s (readonly profile, allow_databases)", *role, from, r.Database)
		} else {
			if !r.Created {
				fmt.Fprintf(e.stderr, "user %s exists: its password was replaced and read access granted again\n", *role)
			}
			what = fmt.Sprintf("user %s can log in from %s and read database %s", *role, from, r.Database)
		}
		target = r.DSN
	default:
		created, err := postgres.SetupRole(ctx, *dsn, *role, *schema, password)
		if err != nil {
			return fail(e, err)
		}
		if !created {
			fmt.Fprintf(e.stderr, "role %s exists: its password was replaced and read access granted again\n", *role)
		}
		if target, err = postgres.RoleDSN(*dsn, *role, password); err != nil {
			return fail(e, err)
		}
		what = fmt.Sprintf("role %s can log in and read the tables of schema %s", *role, *schema)
	}
	if given {
		target = registry.EngineFor(target).Show(target) // the password is the file's
		what += " with the password of " + *passwordFile
	} else {
		what += " with the password below (shown this once)"
	}
	fmt.Fprintf(e.stdout, "%s; connect qeval as it:\n  %s\n", what, target)
	return exitOK
}

// rolePassword reads the password of --password-file, or makes a new one: 24 random
// bytes, 32 characters of URL-safe base64. It reports whether the file gave it.
func rolePassword(file string) (string, bool, error) {
	if file == "" {
		var b [24]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", false, &qeval.Error{Code: qeval.CodeInternal, Op: "make a password", Message: err.Error()}
		}
		return base64.RawURLEncoding.EncodeToString(b[:]), false, nil
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		return "", false, &qeval.Error{Code: qeval.CodeInvalid, Op: "--password-file", Message: err.Error()}
	}
	pw := strings.TrimRight(string(raw), "\r\n")
	switch {
	case len(pw) < 12:
		return "", false, &qeval.Error{Code: qeval.CodeInvalid, Op: "--password-file " + file, Message: "the password is shorter than 12 characters"}
	case strings.ContainsAny(pw, "'\"\\`\n\r\t\x00"):
		return "", false, &qeval.Error{Code: qeval.CodeInvalid, Op: "--password-file " + file,
			Message: "the password holds a quote, a backslash or a control character", Hint: "use letters, digits and punctuation other than quotes"}
	}
	return pw, true, nil
}

// writeUsersXML writes a ClickHouse users.xml entry to file, or prints it.
func writeUsersXML(e *env, file, entry string) int {
	if file == "" {
		fmt.Fprint(e.stdout, entry)
		return exitOK
	}
	if err := os.WriteFile(file, []byte(entry), 0o644); err != nil {
		return fail(e, &qeval.Error{Code: qeval.CodeInvalid, Op: "--users-xml", Message: err.Error()})
	}
	fmt.Fprintf(e.stderr, "wrote the users.xml entry to %s\n", file)
	return exitOK
}

// printRoleSQL is setup-role --print: the statements for the DSN's engine (PostgreSQL
// when none is given), with the password in them.
func printRoleSQL(e *env, engine, dsn, role, schema, host, password string) int {
	db := "<database>"
	if u, err := url.Parse(dsn); err == nil && strings.Trim(u.Path, "/") != "" {
		db = strings.Trim(u.Path, "/")
	}
	switch engine {
	case "mysql":
		if d := mysql.DatabaseOf(dsn); d != "" {
			db = d
		}
		if host == "" {
			host = "%"
		}
		fmt.Fprintln(e.stdout, strings.Join(mysql.ReaderSetupSQL(role, host, db, password), ";\n")+";")
	case "clickhouse":
		if host == "%" {
			host = ""
		}
		fmt.Fprintln(e.stdout, "-- ClickHouse 20.4 and later (SQL users):")
		fmt.Fprintln(e.stdout, strings.Join(clickhouse.ReaderSetupSQL(role, host, db, password), ";\n")+";")
		fmt.Fprintf(e.stdout, "-- older servers (users.xml): /etc/clickhouse-server/users.d/%s.xml\n", role)
		fmt.Fprint(e.stdout, clickhouse.ReaderUsersXML(role, host, db, password))
	default:
		fmt.Fprintln(e.stdout, strings.Join(postgres.RoleSetupSQL(role, schema, password), ";\n")+";")
	}
	return exitOK
}
