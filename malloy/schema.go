package malloy

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/qeval/qeval"
)

// tables reads the connection's schema once, through ex.
func (cn *conn) tables(ctx context.Context, ex qeval.Executor) (*qeval.Schema, error) {
	cn.schemaMu.Lock()
	defer cn.schemaMu.Unlock()
	if cn.schema != nil || cn.schemaErr != nil {
		return cn.schema, cn.schemaErr
	}
	sr, ok := ex.(qeval.SchemaReader)
	if !ok {
		cn.schemaErr = fmt.Errorf("the %s engine cannot describe its tables", cn.src.Engine)
		return nil, cn.schemaErr
	}
	s, err := sr.Schema(ctx)
	if err != nil {
		return nil, err
	}
	cn.schema = s
	return s, nil
}

// answer answers the bridge's questions about the connection through ex, its
// read-only executor: the columns of a table (from the schema, read once) or of a SQL
// source (the SQL run with no rows).
func (cn *conn) answer(ex qeval.Executor) answerer {
	return func(ctx context.Context, q *message) *message {
		switch q.Op {
		case "table":
			s, err := cn.tables(ctx, ex)
			if err != nil {
				return &message{Error: jsonString(fmt.Sprintf("read the tables of %s: %s", cn.src.Display, qeval.ErrorMessage(err)))}
			}
			t := findTable(s, q.Path)
			if t == nil {
				return &message{Error: jsonString(fmt.Sprintf("table '%s' is not in %s (%s)", q.Path, cn.src.Display, tableList(s)))}
			}
			cols := t.Columns
			if cols == nil {
				cols = []qeval.Column{}
			}
			return &message{Columns: cols}
		case "sql":
			rs, err := ex.Query(ctx, "SELECT * FROM ("+strings.TrimRight(strings.TrimSpace(q.SQL), ";")+") AS qeval_sql_source LIMIT 0")
			if err != nil {
				return &message{Error: jsonString("the SQL source did not run: " + qeval.ErrorMessage(err))}
			}
			cols := rs.Columns
			if cols == nil {
				cols = []qeval.Column{}
			}
			return &message{Columns: cols}
		}
		return &message{Error: jsonString("unknown question " + q.Op)}
	}
}

// findTable finds the table a Malloy table path names: by its name as written, else
// without regard to case, else by its last part (main.singer, public.singer).
func findTable(s *qeval.Schema, path string) *qeval.TableSchema {
	unq := func(p string) string { return strings.Trim(p, "\"`") }
	for i := range s.Tables {
		if s.Tables[i].Name == unq(path) {
			return &s.Tables[i]
		}
	}
	if t := s.Table(unq(path)); t != nil {
		return t
	}
	if i := strings.LastIndex(path, "."); i >= 0 {
		last := unq(path[i+1:])
		for j := range s.Tables {
			if s.Tables[j].Name == last {
				return &s.Tables[j]
			}
		}
		return s.Table(last)
	}
	return nil
}

// tableList names a schema's tables for a message.
func tableList(s *qeval.Schema) string {
	if len(s.Tables) == 0 {
		return "it has no tables"
	}
	names := make([]string, 0, len(s.Tables))
	for _, t := range s.Tables {
		names = append(names, t.Name)
	}
	sort.Strings(names)
	if len(names) > 20 {
		names = append(names[:20], fmt.Sprintf("and %d more", len(names)-20))
	}
	return "its tables: " + strings.Join(names, ", ")
}
