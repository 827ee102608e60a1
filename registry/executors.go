package registry

import (
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/kqlexec"
	"github.com/qeval/qeval/kusto"
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
	"kql":      kqlexec.Opener,
	"kusto":    kustoOpener,
}

// kustoOpener opens an Azure Data Explorer database named as
// https://<cluster>/<database>, signing in with the SDK's default credential chain.
func kustoOpener(target string, limits qeval.Limits) (qeval.Executor, error) {
	u, err := url.Parse(target)
	if err != nil || u.Host == "" || strings.Trim(u.Path, "/") == "" {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Message: fmt.Sprintf("kusto target %q must look like https://<cluster>/<database>", target)}
	}
	return kusto.New(kusto.Config{ClusterURL: u.Scheme + "://" + u.Host, Database: strings.Trim(u.Path, "/"), Auth: kusto.AuthDefault, Limits: limits})
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
	case strings.HasPrefix(t, "https://") && strings.Contains(t, ".kusto."):
		return "kusto"
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
