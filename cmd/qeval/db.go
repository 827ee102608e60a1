package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/mysql"
	"github.com/qeval/qeval/postgres"
	"github.com/qeval/qeval/registry"
)

// cmdDB is `qeval db setup-role`: it creates, with an administrator's connection, the
// role qeval should connect as: one that can log in and read the evaluation schema's
// tables (PostgreSQL) or the evaluation database (MySQL, MariaDB), nothing else (least
// privilege is the real sandbox of generated SQL).
func cmdDB(ctx context.Context, args []string, e *env) int {
	if len(args) == 0 || args[0] != "setup-role" {
		return fail(e, &qeval.Error{Code: qeval.CodeInvalid, Message: "qeval db takes the subcommand setup-role",
			Hint: "qeval db setup-role --dsn postgres://postgres@127.0.0.1:5432/test --role qeval_reader"})
	}
	fs := newFlags("db setup-role", "--dsn ADMIN_DSN --role NAME [--schema public] [--print]", e)
	dsn := fs.String("dsn", "", "a PostgreSQL or MySQL DSN of a role that may create roles (required); for MySQL, its database is the one the user may read")
	role := fs.String("role", "qeval_reader", "the role (MySQL: user) to create")
	schema := fs.String("schema", "public", "PostgreSQL: the schema whose tables the role may read")
	printOnly := fs.Bool("print", false, "print the SQL instead of running it")
	if code := parseFlags(fs, args[1:]); code >= 0 {
		return code
	}
	if registry.EngineOf(*dsn) == "mysql" {
		return setupMySQLReader(ctx, e, *dsn, *role, *printOnly)
	}
	stmts := postgres.RoleSetupSQL(*role, *schema)
	if *printOnly {
		fmt.Fprintln(e.stdout, strings.Join(stmts, ";\n")+";")
		return exitOK
	}
	if *dsn == "" {
		return fail(e, &qeval.Error{Code: qeval.CodeInvalid, Message: "missing --dsn", Hint: "or --print to see the SQL"})
	}
	created, err := postgres.SetupRole(ctx, *dsn, *role, *schema)
	if err != nil {
		return fail(e, err)
	}
	if !created {
		fmt.Fprintf(e.stderr, "role %s exists; read access granted again\n", *role)
	}
	fmt.Fprintf(e.stdout, "role %s can log in and read the tables of schema %s; connect qeval as it, e.g. postgres://%s@HOST:PORT/DB\n", *role, *schema, *role)
	return exitOK
}

// setupMySQLReader is setup-role on MySQL or MariaDB: a user that may read the DSN's
// database and nothing else.
func setupMySQLReader(ctx context.Context, e *env, dsn, user string, printOnly bool) int {
	if printOnly {
		db := mysql.DatabaseOf(dsn)
		if db == "" {
			db = "<database>"
		}
		fmt.Fprintln(e.stdout, strings.Join(mysql.ReaderSetupSQL(user, db, "<password>"), ";\n")+";")
		return exitOK
	}
	db, err := mysql.SetupReader(ctx, dsn, user)
	if err != nil {
		return fail(e, err)
	}
	fmt.Fprintf(e.stdout, "user %s can log in and read database %s; connect qeval as it, e.g. mysql://%s@HOST:PORT/%s\n", user, db, user, db)
	return exitOK
}
