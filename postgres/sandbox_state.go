package postgres

import (
	"context"
	"encoding/json"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/qeval/qeval"
)

// userRelations filters pg_class rows (alias c, namespace n) to the copy's own
// relations of the given kinds.
const userRelations = ` n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\_%' AND c.relkind IN ('r', 'p') `

// Tables describes the copy's tables from the catalog: columns with their types as
// format_type prints them, the primary key, unique and other indexes by their columns,
// foreign keys as pg_get_constraintdef prints them.
func (s *Sandbox) Tables(ctx context.Context) ([]qeval.TableDefinition, error) {
	cols, err := s.run(ctx, `SELECT c.relname::text, a.attname::text, format_type(a.atttypid, a.atttypmod), a.attnotnull
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_attribute a ON a.attrelid = c.oid
WHERE`+userRelations+`AND a.attnum > 0 AND NOT a.attisdropped ORDER BY 1, a.attnum`)
	if err != nil {
		return nil, err
	}
	var out []qeval.TableDefinition
	at := map[string]int{}
	for _, r := range cols.Rows {
		i, ok := at[r[0].Str]
		if !ok {
			i = len(out)
			at[r[0].Str] = i
			out = append(out, qeval.TableDefinition{Name: r[0].Str})
		}
		out[i].Columns = append(out[i].Columns, qeval.ColumnState{Name: r[1].Str, Type: strings.ToUpper(r[2].Str), NotNull: r[3].Int != 0})
	}
	idx, err := s.run(ctx, `SELECT c.relname::text, i.indisprimary, i.indisunique,
  array_to_string(ARRAY(SELECT coalesce(a.attname::text, '<expression>') FROM unnest(i.indkey::int2[]) WITH ORDINALITY k(attnum, ord)
    LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum ORDER BY k.ord), ', ')
FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE`+userRelations)
	if err != nil {
		return nil, err
	}
	for _, r := range idx.Rows {
		i, ok := at[r[0].Str]
		switch {
		case !ok:
		case r[1].Int != 0:
			out[i].PrimaryKey = strings.Split(r[3].Str, ", ")
		case r[2].Int != 0:
			out[i].Indexes = append(out[i].Indexes, "unique ("+r[3].Str+")")
		default:
			out[i].Indexes = append(out[i].Indexes, "("+r[3].Str+")")
		}
	}
	fks, err := s.run(ctx, `SELECT c.relname::text, pg_get_constraintdef(k.oid) FROM pg_constraint k
JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE k.contype = 'f' AND`+userRelations)
	if err != nil {
		return nil, err
	}
	for _, r := range fks.Rows {
		if i, ok := at[r[0].Str]; ok {
			out[i].ForeignKeys = append(out[i].ForeignKeys, strings.ToLower(r[1].Str))
		}
	}
	for i := range out {
		sort.Strings(out[i].Indexes)
		sort.Strings(out[i].ForeignKeys)
	}
	return out, nil
}

// Rows returns a table's rows; ordered, by its primary key, else by all its columns.
func (s *Sandbox) Rows(ctx context.Context, table string, ordered bool) (*qeval.ResultSet, error) {
	q := "SELECT * FROM " + pgx.Identifier{table}.Sanitize()
	if ordered {
		key, err := s.run(ctx, `SELECT array_to_string(ARRAY(SELECT quote_ident(a.attname) FROM pg_index i
  JOIN unnest(i.indkey::int2[]) WITH ORDINALITY k(attnum, ord) ON true JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
  WHERE i.indrelid = to_regclass(`+quoteLiteral(pgx.Identifier{table}.Sanitize())+`)::oid AND i.indisprimary ORDER BY k.ord), ', ')`)
		if err == nil && len(key.Rows) == 1 && key.Rows[0][0].Str != "" {
			q += " ORDER BY " + key.Rows[0][0].Str
		} else {
			q = "SELECT * FROM " + pgx.Identifier{table}.Sanitize() + " AS t ORDER BY t"
		}
	}
	return s.run(ctx, q)
}

// CostUnit names Cost's unit.
func (s *Sandbox) CostUnit() string { return "planner_cost" }

// Cost is the planner's total cost of the statement (EXPLAIN (FORMAT JSON), which does
// not run it); a statement the planner does not plan (DDL) costs nothing.
func (s *Sandbox) Cost(ctx context.Context, stmt string) (float64, error) {
	if err := sandboxCheck(stmt); err != nil {
		return 0, err
	}
	rs, err := s.run(ctx, "EXPLAIN (FORMAT JSON) "+stmt)
	if err != nil {
		if c := qeval.ErrorCode(err); c == qeval.CodeTimeout || c == qeval.CodeCanceled || c == qeval.CodeUnavailable {
			return 0, err
		}
		return 0, nil
	}
	var plans []struct {
		Plan struct {
			TotalCost float64 `json:"Total Cost"`
		} `json:"Plan"`
	}
	if len(rs.Rows) == 1 && json.Unmarshal([]byte(rs.Rows[0][0].Str), &plans) == nil && len(plans) > 0 {
		return plans[0].Plan.TotalCost, nil
	}
	return 0, nil
}
