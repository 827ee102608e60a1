package sqlguard

import "strings"

// deniedSchemas are the system schemas of a dialect whose tables hold other users'
// credentials, sessions or statements; a generated query has no business reading them,
// whatever the connecting user may read.
var deniedSchemas = map[string]map[string]bool{
	"mysql": {"mysql": true, "performance_schema": true, "sys": true},
}

// deniedTables are single system tables with the same kind of content, by dialect:
// the session list shows every session's current statement.
var deniedTables = map[string]map[string]bool{
	"mysql":    {"information_schema.processlist": true},
	"postgres": {"pg_stat_activity": true, "pg_catalog.pg_stat_activity": true, "pg_authid": true, "pg_catalog.pg_authid": true, "pg_shadow": true, "pg_catalog.pg_shadow": true},
}

// DeniedTable reports whether a query in dialect may not read the table name (as the
// parser gives it, qualified or not).
func DeniedTable(dialect, name string) bool {
	n := strings.ToLower(name)
	if deniedTables[dialect][n] {
		return true
	}
	schema, _, ok := strings.Cut(n, ".")
	return ok && deniedSchemas[dialect][schema]
}
