package postgres

import (
	"context"
	"net"
	"net/url"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/qeval/qeval"
)

// SetupRole runs RoleSetupSQL(role, schema, password) with an administrator's
// connection (adminDSN). A role that exists already is kept, given password (when not
// "") and read access again; it reports whether the role was created.
func SetupRole(ctx context.Context, adminDSN, role, schema, password string) (created bool, err error) {
	conn, err := pgx.Connect(ctx, adminDSN)
	if err != nil {
		return false, &qeval.Error{Code: qeval.CodeUnavailable, Op: "connect " + MaskDSN(adminDSN), Message: scrub(err.Error(), adminDSN)}
	}
	defer conn.Close(context.Background())
	created = true
	stmts := RoleSetupSQL(role, schema, password)
	if password != "" {
		stmts = append(stmts, "ALTER ROLE "+pgx.Identifier{role}.Sanitize()+" WITH LOGIN PASSWORD "+quoteLiteral(password))
	}
	for _, q := range stmts {
		if _, err := conn.Exec(ctx, q); err != nil {
			if strings.Contains(err.Error(), "already exists") {
				created = false
				continue
			}
			msg := err.Error()
			if password != "" {
				msg = strings.ReplaceAll(msg, password, "xxxxx")
			}
			return false, &qeval.Error{Code: qeval.CodeQuery, Op: "set up role " + role, Message: msg}
		}
	}
	return created, nil
}

// RoleDSN is the postgres:// URL of the database adminDSN names (a URL or key=value
// pairs), as role with password.
func RoleDSN(adminDSN, role, password string) (string, error) {
	return roleDSN(adminDSN, "", role, password)
}

// roleDSN is RoleDSN on database (the admin's when "").
func roleDSN(adminDSN, database, role, password string) (string, error) {
	cfg, err := pgx.ParseConfig(adminDSN)
	if err != nil {
		return "", &qeval.Error{Code: qeval.CodeInvalid, Message: "invalid dsn " + MaskDSN(adminDSN) + ": " + parseMessage(err)}
	}
	if database == "" {
		database = cfg.Database
	}
	u := url.URL{Scheme: "postgres", User: url.UserPassword(role, password),
		Host: net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port))), Path: "/" + database}
	if strings.HasPrefix(cfg.Host, "/") { // a Unix socket folder
		u.Host = ""
		u.RawQuery = url.Values{"host": {cfg.Host}}.Encode()
	}
	return u.String(), nil
}

// quoteLiteral writes s as a string literal that reads the same whatever
// standard_conforming_strings is: E'…' with backslashes and quotes doubled.
func quoteLiteral(s string) string {
	return "E'" + strings.NewReplacer(`\`, `\\`, `'`, `''`).Replace(s) + "'"
}

// scrub removes the password of dsn from a message.
func scrub(msg, dsn string) string {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil || cfg.Password == "" {
		return msg
	}
	return strings.ReplaceAll(msg, cfg.Password, "xxxxx")
}
