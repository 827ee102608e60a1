package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/postgres"
)

// cmdDB is `qeval db setup-role`: it creates, with an administrator's connection, the
// role qeval should connect as: one that can log in and read the evaluation schema's
// tables, nothing else (least privilege is the real sandbox of generated SQL).
func cmdDB(ctx context.Context, args []string, e *env) int {
	if len(args) == 0 || args[0] != "setup-role" {
		return fail(e, &qeval.Error{Code: qeval.CodeInvalid, Message: "qeval db takes the subcommand setup-role",
			Hint: "qeval db setup-role --dsn postgres://postgres@127.0.0.1:5432/test --role qeval_reader"})
	}
	fs := newFlags("db setup-role", "--dsn ADMIN_DSN --role NAME [--schema public] [--print]", e)
	dsn := fs.String("dsn", "", "a PostgreSQL DSN of a role that may create roles (required)")
	role := fs.String("role", "qeval_reader", "the role to create")
	schema := fs.String("schema", "public", "the schema whose tables the role may read")
	printOnly := fs.Bool("print", false, "print the SQL instead of running it")
	if code := parseFlags(fs, args[1:]); code >= 0 {
		return code
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
