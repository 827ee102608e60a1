package postgres

import (
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/qeval/qeval"
)

// Check is check, for the tests of the external test package.
var Check = check

// Convert is convert with pgx's default type map.
func Convert(oid uint32, raw []byte) qeval.Value { return convert(pgtype.NewMap(), oid, raw) }
