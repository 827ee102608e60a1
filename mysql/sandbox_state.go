package mysql

import (
	"context"
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"github.com/qeval/qeval"
)

// Tables describes the copy's base tables from information_schema: column types as
// the server prints them (COLUMN_TYPE), the primary key, unique and other indexes by
// their columns, foreign keys.
func (s *Sandbox) Tables(ctx context.Context) ([]qeval.TableDefinition, error) {
	cols, err := s.run(ctx, `SELECT c.table_name, c.column_name, UPPER(c.column_type), c.is_nullable = 'NO'
FROM information_schema.columns c JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
WHERE c.table_schema = DATABASE() AND t.table_type = 'BASE TABLE' ORDER BY c.table_name, c.ordinal_position`)
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
		out[i].Columns = append(out[i].Columns, qeval.ColumnState{Name: r[1].Str, Type: r[2].Str, NotNull: r[3].Int != 0})
	}
	idx, err := s.run(ctx, `SELECT table_name, index_name, MIN(non_unique), GROUP_CONCAT(column_name ORDER BY seq_in_index SEPARATOR ', ')
FROM information_schema.statistics WHERE table_schema = DATABASE() GROUP BY table_name, index_name`)
	if err != nil {
		return nil, err
	}
	for _, r := range idx.Rows {
		i, ok := at[r[0].Str]
		switch {
		case !ok:
		case r[1].Str == "PRIMARY":
			out[i].PrimaryKey = strings.Split(r[3].Str, ", ")
		case r[2].Int == 0:
			out[i].Indexes = append(out[i].Indexes, "unique ("+r[3].Str+")")
		default:
			out[i].Indexes = append(out[i].Indexes, "("+r[3].Str+")")
		}
	}
	fks, err := s.run(ctx, `SELECT table_name, GROUP_CONCAT(column_name ORDER BY ordinal_position SEPARATOR ', '), MIN(referenced_table_name),
  GROUP_CONCAT(referenced_column_name ORDER BY ordinal_position SEPARATOR ', ')
FROM information_schema.key_column_usage WHERE table_schema = DATABASE() AND referenced_table_name IS NOT NULL GROUP BY table_name, constraint_name`)
	if err != nil {
		return nil, err
	}
	for _, r := range fks.Rows {
		if i, ok := at[r[0].Str]; ok {
			out[i].ForeignKeys = append(out[i].ForeignKeys, "("+r[1].Str+") references "+r[2].Str+" ("+r[3].Str+")")
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
	q := "SELECT * FROM " + quote(table)
	if !ordered {
		return s.run(ctx, q)
	}
	key, err := s.run(ctx, "SELECT GROUP_CONCAT(CONCAT('`', REPLACE(column_name, '`', '``'), '`') ORDER BY seq_in_index), "+
		"(SELECT COUNT(*) FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = "+quoteString(table)+") "+
		"FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name = "+quoteString(table)+" AND index_name = 'PRIMARY'")
	if err != nil {
		return nil, err
	}
	order := ""
	if len(key.Rows) == 1 && key.Rows[0][0].Kind == qeval.KindText && key.Rows[0][0].Str != "" {
		order = key.Rows[0][0].Str
	} else if len(key.Rows) == 1 {
		n := key.Rows[0][1].Int
		parts := make([]string, n)
		for i := range parts {
			parts[i] = strconv.Itoa(i + 1)
		}
		order = strings.Join(parts, ", ")
	}
	if order != "" {
		q += " ORDER BY " + order
	}
	return s.run(ctx, q)
}

// CostUnit names Cost's unit: MySQL's planner cost, or on MariaDB (whose EXPLAIN has
// none before 11.0) the rows its plan examines.
func (s *Sandbox) CostUnit() string {
	if s.ex.mariadb {
		return "estimated_rows"
	}
	return "planner_cost"
}

// Cost is MySQL's query_cost (EXPLAIN FORMAT=JSON), or on MariaDB the sum of the rows
// each step of its plan examines (EXPLAIN); neither runs the statement. A statement
// without a plan (DDL) costs nothing.
func (s *Sandbox) Cost(ctx context.Context, stmt string) (float64, error) {
	end, err := sandboxCheck(stmt, s.name)
	if err != nil {
		return 0, err
	}
	stmt = stmt[:end]
	if !s.ex.mariadb {
		rs, err := s.run(ctx, "EXPLAIN FORMAT=JSON "+stmt)
		if err != nil || len(rs.Rows) != 1 {
			return 0, costError(err)
		}
		var plan struct {
			QueryBlock struct {
				CostInfo struct {
					QueryCost string `json:"query_cost"`
				} `json:"cost_info"`
			} `json:"query_block"`
		}
		json.Unmarshal([]byte(rs.Rows[0][0].Str), &plan)
		c, _ := strconv.ParseFloat(plan.QueryBlock.CostInfo.QueryCost, 64)
		return c, nil
	}
	rs, err := s.run(ctx, "EXPLAIN "+stmt)
	if err != nil {
		return 0, costError(err)
	}
	total := 0.0
	for i, c := range rs.Columns {
		if strings.EqualFold(c.Name, "rows") {
			for _, r := range rs.Rows {
				switch v := r[i]; v.Kind {
				case qeval.KindInt:
					total += float64(v.Int)
				case qeval.KindFloat:
					total += v.Float
				case qeval.KindText:
					f, _ := strconv.ParseFloat(v.Str, 64)
					total += f
				}
			}
		}
	}
	return total, nil
}

// costError keeps the errors that end a side (a deadline, a lost connection); a
// statement the server does not explain costs nothing.
func costError(err error) error {
	switch qeval.ErrorCode(err) {
	case qeval.CodeTimeout, qeval.CodeCanceled, qeval.CodeUnavailable:
		return err
	}
	return nil
}
