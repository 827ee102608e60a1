package validate

import (
	"fmt"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/internal/sqlguard"
	"github.com/qeval/qeval/sqlparse"
)

// Guard returns the statement check of a dialect built on its real parser, for an
// executor to run before a generated query reaches the server. It works on the parse
// tree, not the text: names are those the parser resolved (after U& escapes, quoting
// and schema qualification), so U&"pg\005fread\005ffile"(…) is pg_read_file.
// It refuses more than one statement, a statement that is not a read, and a call of a
// function the dialect's list denies (sqlguard.DeniedFunction: file and signal
// functions, SQL run from a string such as ts_stat or query_to_xml, …). A query the
// parser cannot read is left to the executor's own check and the server, whose
// read-only transaction and least-privileged role remain the real sandbox.
func Guard(dialect string) func(query string) error {
	return func(query string) error {
		stmts, err := sqlparse.ParseStatements(dialect, query, nil)
		if err != nil {
			if qeval.IsTooLarge(err) {
				return err
			}
			return nil
		}
		if len(stmts) != 1 {
			return forbidden(fmt.Sprintf("%d statements in one query; only one may run", len(stmts)))
		}
		st := stmts[0]
		if k := strings.ToLower(st.Shape.Kind); !guardReads[k] {
			return forbidden(fmt.Sprintf("%s statements are not allowed; only reads are", strings.ToUpper(k)))
		}
		for _, t := range st.Shape.Tables {
			if sqlguard.DeniedTable(dialect, t) {
				return forbidden(fmt.Sprintf("table %s is a system table that generated queries may not read", t))
			}
		}
		for _, f := range st.Funcs {
			if sqlguard.DeniedFunction(dialect, f) {
				return forbidden(fmt.Sprintf("function %s() is not allowed (read-only executor)", f))
			}
		}
		return nil
	}
}

// guardReads are the statement kinds a guarded executor runs.
var guardReads = map[string]bool{"select": true, "values": true, "table": true, "with": true}

func forbidden(msg string) error { return &qeval.Error{Code: qeval.CodeForbidden, Message: msg} }
