package main

import (
	"context"
	"fmt"
	"os"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/registry"
)

// cmdDB is `qeval db setup-role`: it creates, with an administrator's connection, the
// role qeval should connect as: one that can log in with a password and read the
// evaluation schema's tables (PostgreSQL) or the evaluation database (MySQL, MariaDB,
// ClickHouse), nothing else (least privilege is the real sandbox of generated SQL). The
// password is generated and printed once, in the DSN to connect with, unless
// --password-file gives it.
func cmdDB(ctx context.Context, args []string, e *env) int {
	if len(args) > 0 && args[0] == "clean" {
		return cmdDBClean(ctx, args[1:], e)
	}
	if len(args) == 0 || args[0] != "setup-role" {
		return fail(e, &qeval.Error{Code: qeval.CodeInvalid, Message: "qeval db takes the subcommand setup-role or clean",
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
	sandbox := fs.Bool("sandbox", false, "PostgreSQL, MySQL: the role stateful cases run as, which makes and drops copies of the database (docs/stateful.md)")
	if code := parseFlags(fs, args[1:]); code >= 0 {
		return code
	}
	password, given, err := registry.RolePassword(*passwordFile)
	if err != nil {
		return fail(e, err)
	}
	// the DSN's engine; PostgreSQL's statements when there is no DSN to go by (--print)
	engine := registry.EngineFor(*dsn)
	if engine.Roles == nil {
		engine, _ = registry.LookupEngine("postgres")
	}
	req := registry.RoleRequest{DSN: *dsn, Role: *role, Schema: *schema, Host: *host, Password: password, Sandbox: *sandbox}
	if *printOnly {
		fmt.Fprint(e.stdout, engine.Roles.Print(req))
		return exitOK
	}
	if *dsn == "" {
		return fail(e, &qeval.Error{Code: qeval.CodeInvalid, Message: "missing --dsn", Hint: "or --print to see the SQL"})
	}
	made, err := engine.Roles.Create(ctx, req)
	if err != nil {
		return fail(e, err)
	}
	if made.UsersXML != "" {
		if code := writeUsersXML(e, *usersXML, made.UsersXML); code != exitOK {
			return code
		}
	}
	if made.Note != "" {
		fmt.Fprintln(e.stderr, made.Note)
	}
	what, target := made.What, made.Target
	if given {
		target = registry.EngineFor(target).Show(target) // the password is the file's
		what += " with the password of " + *passwordFile
	} else {
		what += " with the password below (shown this once)"
	}
	fmt.Fprintf(e.stdout, "%s; connect qeval as it:\n  %s\n", what, target)
	return exitOK
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

// cmdDBClean is `qeval db clean`: it lists the sandbox copies of stateful cases that a
// killed run left (in the temporary folder, and on the servers --dsn names) and, with
// --remove, removes those whose process no longer runs.
func cmdDBClean(ctx context.Context, args []string, e *env) int {
	fs := newFlags("db clean", "[--dsn DSN]... [--dir D] [--remove]", e)
	var dsns stringList
	fs.Var(&dsns, "dsn", "a PostgreSQL or MySQL DSN whose server to look at, as the sandbox role (repeatable)")
	dir := fs.String("dir", "", "the folder of the SQLite and DuckDB copies (default: the temporary folder)")
	remove := fs.Bool("remove", false, "remove the copies whose process no longer runs")
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	left, err := registry.Leftovers(ctx, *dir, dsns, *remove)
	for _, l := range left {
		fmt.Fprintln(e.stdout, l)
	}
	if len(left) == 0 {
		fmt.Fprintln(e.stdout, "no sandbox copies")
	}
	if err != nil {
		return fail(e, err)
	}
	return exitOK
}
