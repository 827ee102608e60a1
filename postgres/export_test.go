package postgres

import (
	"context"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/qeval/qeval"
)

// Check is check, for the tests of the external test package.
var Check = check

// Convert is convert with pgx's default type map.
func Convert(oid uint32, raw []byte) qeval.Value { return convert(pgtype.NewMap(), oid, raw) }

// Run runs a query without the statement check, to test what the read-only
// transaction alone undoes.
func (e *Executor) RunUnchecked(ctx context.Context, query string) (*qeval.ResultSet, error) {
	return e.run(ctx, query)
}
