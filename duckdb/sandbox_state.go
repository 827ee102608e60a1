package duckdb

import (
	"context"
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"github.com/qeval/qeval"
)

// Tables describes the copy's tables (schema main) from DuckDB's catalog functions.
func (s *Sandbox) Tables(ctx context.Context) ([]qeval.TableDefinition, error) {
	cols, err := s.Query(ctx, `SELECT table_name, column_name, data_type, NOT is_nullable FROM duckdb_columns()
WHERE schema_name = 'main' AND database_name = current_database() AND NOT internal ORDER BY table_name, column_index`)
	if err != nil {
		return nil, err
	}
	var out []qeval.TableDefinition
	at := map[string]int{}
	for _, r := range cols.Rows {
		t := r[0].Str
		i, ok := at[t]
		if !ok {
			i = len(out)
			at[t] = i
			out = append(out, qeval.TableDefinition{Name: t})
		}
		out[i].Columns = append(out[i].Columns, qeval.ColumnState{Name: r[1].Str, Type: strings.ToUpper(r[2].Str), NotNull: r[3].Int != 0})
	}
	views, err := s.Query(ctx, "SELECT view_name FROM duckdb_views() WHERE NOT internal AND schema_name = 'main'")
	if err != nil {
		return nil, err
	}
	for _, r := range views.Rows {
		if i, ok := at[r[0].Str]; ok {
			out[i].Name = "" // a view, not a table
		}
	}
	cons, err := s.Query(ctx, `SELECT table_name, constraint_type, array_to_string(constraint_column_names, ', '),
coalesce(referenced_table, ''), coalesce(array_to_string(referenced_column_names, ', '), '')
FROM duckdb_constraints() WHERE schema_name = 'main' AND database_name = current_database()`)
	if err != nil {
		return nil, err
	}
	for _, r := range cons.Rows {
		i, ok := at[r[0].Str]
		if !ok {
			continue
		}
		switch r[1].Str {
		case "PRIMARY KEY":
			out[i].PrimaryKey = strings.Split(r[2].Str, ", ")
		case "UNIQUE":
			out[i].Indexes = append(out[i].Indexes, "unique ("+r[2].Str+")")
		case "FOREIGN KEY":
			out[i].ForeignKeys = append(out[i].ForeignKeys, "("+r[2].Str+") references "+r[3].Str+" ("+r[4].Str+")")
		}
	}
	idx, err := s.Query(ctx, "SELECT table_name, is_unique, expressions FROM duckdb_indexes() WHERE schema_name = 'main' AND database_name = current_database()")
	if err != nil {
		return nil, err
	}
	for _, r := range idx.Rows {
		if i, ok := at[r[0].Str]; ok {
			desc := "(" + strings.Trim(r[2].String(), "[]'\"") + ")"
			if r[1].Int != 0 {
				desc = "unique " + desc
			}
			out[i].Indexes = append(out[i].Indexes, desc)
		}
	}
	tables := out[:0]
	for _, t := range out {
		if t.Name != "" {
			sort.Strings(t.Indexes)
			sort.Strings(t.ForeignKeys)
			tables = append(tables, t)
		}
	}
	return tables, nil
}

// Rows returns a table's rows, in rowid order when ordered.
func (s *Sandbox) Rows(ctx context.Context, table string, ordered bool) (*qeval.ResultSet, error) {
	q := `SELECT * FROM "` + strings.ReplaceAll(table, `"`, `""`) + `"`
	if ordered {
		q += " ORDER BY rowid"
	}
	return s.Query(ctx, q)
}

// CostUnit names Cost's unit.
func (s *Sandbox) CostUnit() string { return "estimated_rows" }

// Cost is the sum of the estimated cardinalities of the statement's plan nodes
// (EXPLAIN (FORMAT json)); a statement DuckDB does not plan (DDL) costs nothing.
func (s *Sandbox) Cost(ctx context.Context, stmt string) (float64, error) {
	rs, err := s.Query(ctx, "EXPLAIN (FORMAT json) "+stmt)
	if err != nil {
		if qeval.ErrorCode(err) == qeval.CodeTimeout || qeval.ErrorCode(err) == qeval.CodeCanceled {
			return 0, err
		}
		return 0, nil
	}
	total := 0.0
	for _, r := range rs.Rows {
		for _, v := range r {
			var plan any
			if v.Kind == qeval.KindText && json.Unmarshal([]byte(v.Str), &plan) == nil {
				total += cardinalities(plan)
			}
		}
	}
	return total, nil
}

// cardinalities adds up every "Estimated Cardinality" in a JSON plan.
func cardinalities(x any) float64 {
	total := 0.0
	switch t := x.(type) {
	case map[string]any:
		for k, v := range t {
			if k == "Estimated Cardinality" {
				if s, ok := v.(string); ok {
					n, _ := strconv.ParseFloat(strings.TrimPrefix(s, "~"), 64)
					total += n
				} else if f, ok := v.(float64); ok {
					total += f
				}
				continue
			}
			total += cardinalities(v)
		}
	case []any:
		for _, v := range t {
			total += cardinalities(v)
		}
	}
	return total
}
