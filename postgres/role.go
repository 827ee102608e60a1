package postgres

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/qeval/qeval"
)

// SetupRole runs RoleSetupSQL(role, schema) with an administrator's connection
// (adminDSN). A role that exists already is kept, and read access is granted again; it
// reports whether the role was created.
func SetupRole(ctx context.Context, adminDSN, role, schema string) (created bool, err error) {
	conn, err := pgx.Connect(ctx, adminDSN)
	if err != nil {
		return false, &qeval.Error{Code: qeval.CodeUnavailable, Op: "connect " + MaskDSN(adminDSN), Message: scrub(err.Error(), adminDSN)}
	}
	defer conn.Close(context.Background())
	created = true
	for _, q := range RoleSetupSQL(role, schema) {
		if _, err := conn.Exec(ctx, q); err != nil {
			if strings.Contains(err.Error(), "already exists") {
				created = false
				continue
			}
			return false, &qeval.Error{Code: qeval.CodeQuery, Op: "set up role " + role, Message: err.Error()}
		}
	}
	return created, nil
}

// scrub removes the password of dsn from a message.
func scrub(msg, dsn string) string {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil || cfg.Password == "" {
		return msg
	}
	return strings.ReplaceAll(msg, cfg.Password, "xxxxx")
}
