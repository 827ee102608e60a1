package registry

import (
	"fmt"
	"sort"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/mysql"
	"github.com/qeval/qeval/postgres"
	"github.com/qeval/qeval/sqlite"
)

// executors is the one list of database engines: name → opener. For sqlite the target
// is a file path; for the servers it is a DSN.
var executors = map[string]qeval.Opener{
	"sqlite":   sqlite.Opener,
	"postgres": postgres.Opener,
	"mysql":    mysql.Opener,
}

// Opener returns the opener of an engine; an unknown name lists the known ones.
func Opener(engine string) (qeval.Opener, error) {
	if o, ok := executors[strings.ToLower(engine)]; ok {
		return o, nil
	}
	return nil, &qeval.Error{Code: qeval.CodeInvalid, Message: fmt.Sprintf("unknown database engine %q (known: %s)", engine, strings.Join(Engines(), ", "))}
}

// Engines lists the engine names, sorted.
func Engines() []string {
	out := make([]string, 0, len(executors))
	for n := range executors {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// EngineOf guesses the engine of a database target: a postgres:// or postgresql:// URL
// is postgres, a mysql:// URL or a go-sql-driver DSN (user@tcp(host)/db) is mysql,
// anything else is a SQLite path.
func EngineOf(target string) string {
	t := strings.ToLower(target)
	switch {
	case strings.HasPrefix(t, "postgres://"), strings.HasPrefix(t, "postgresql://"):
		return "postgres"
	case strings.HasPrefix(t, "mysql://"), strings.Contains(t, "@tcp("), strings.Contains(t, "@unix("):
		return "mysql"
	}
	return "sqlite"
}

// OpenAny opens a database target with the engine EngineOf names.
func OpenAny(target string, limits qeval.Limits) (qeval.Executor, error) {
	o, err := Opener(EngineOf(target))
	if err != nil {
		return nil, err
	}
	return o(target, limits)
}
