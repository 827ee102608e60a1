package clickhouse

import (
	"strings"

	"github.com/qeval/qeval"
)

// writeWords start the statements that are not reads. The server refuses them all under
// readonly=1 (or does not know them: UPDATE and DELETE are ALTER … in ClickHouse); the
// executor refuses them first so that the error names the statement.
var writeWords = map[string]bool{
	"INSERT": true, "UPDATE": true, "DELETE": true, "CREATE": true, "DROP": true, "ALTER": true, "ATTACH": true,
	"DETACH": true, "RENAME": true, "TRUNCATE": true, "OPTIMIZE": true, "SYSTEM": true, "KILL": true, "SET": true,
	"USE": true, "GRANT": true, "REVOKE": true, "REPLACE": true, "EXCHANGE": true, "UNDROP": true, "BACKUP": true,
	"RESTORE": true, "MOVE": true, "CHECK": true, "WATCH": true,
}

// checkStatement refuses a statement whose first word starts a write. Comments and
// opening parentheses before it are skipped; anything else goes to the server.
func checkStatement(q string) error {
	i := 0
	for i < len(q) {
		switch {
		case q[i] == ' ' || q[i] == '\t' || q[i] == '\n' || q[i] == '\r' || q[i] == '(':
			i++
		case strings.HasPrefix(q[i:], "--") || q[i] == '#':
			if j := strings.IndexByte(q[i:], '\n'); j >= 0 {
				i += j + 1
			} else {
				return nil
			}
		case strings.HasPrefix(q[i:], "/*"):
			if j := strings.Index(q[i+2:], "*/"); j >= 0 {
				i += j + 4
			} else {
				return nil
			}
		default:
			j := i
			for j < len(q) && (q[j] == '_' || q[j] >= 'a' && q[j] <= 'z' || q[j] >= 'A' && q[j] <= 'Z') {
				j++
			}
			if w := strings.ToUpper(q[i:j]); writeWords[w] {
				return &qeval.Error{Code: qeval.CodeForbidden, Message: "forbidden: " + w + " is not allowed (read-only executor)"}
			}
			return nil
		}
	}
	return nil
}
