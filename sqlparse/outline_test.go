package sqlparse_test

import (
	"strings"
	"testing"

	"github.com/qeval/qeval/sqlparse"
)

func TestParseOutline_Joins(t *testing.T) {
	for _, d := range sqlparse.Dialects {
		t.Run(d, func(t *testing.T) {
			o, err := sqlparse.ParseOutline(d, "SELECT a.x FROM a LEFT JOIN b ON a.id = b.aid JOIN c ON c.id = b.cid WHERE a.y > 1 AND NOT (b.z = 'k') OR c.w IN (1, 2)", nil)
			if err != nil {
				t.Fatal(err)
			}
			var joins []string
			for _, s := range o.From {
				joins = append(joins, s.Join+"|"+s.Table+"|"+s.On)
			}
			want := "|a| left join|b|a.id = b.aid join|c|c.id = b.cid"
			if got := strings.Join(joins, " "); got != want {
				t.Errorf("From=%q, want %q", got, want)
			}
			var conds []string
			for _, c := range o.Where {
				conds = append(conds, c.Left+" "+c.Op+" "+c.Right)
			}
			if got, want := strings.Join(conds, "; "), "a.y > 1; b.z not = 'k'; c.w in (1, 2)"; got != want {
				t.Errorf("Where=%q, want %q", got, want)
			}
			if got := strings.Join(o.WhereOps, " "); got != "and or" {
				t.Errorf("WhereOps=%q, want \"and or\"", got)
			}
		})
	}
}

func TestParseOutline_Parts(t *testing.T) {
	o, err := sqlparse.ParseOutline("", "SELECT DISTINCT T1.name, count(*) FROM singer AS T1 GROUP BY T1.name HAVING count(*) > 1 ORDER BY count(*) DESC LIMIT 3 OFFSET 1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !o.Distinct || len(o.Select) != 2 || o.Select[0].Text != "singer.name" || o.Select[1].Aggs[0] != "count" {
		t.Errorf("Select=%+v, Distinct=%v", o.Select, o.Distinct)
	}
	if len(o.Having) != 1 || o.Having[0].LeftAggs[0] != "count" || o.Having[0].Right != "1" || !o.Having[0].Literal {
		t.Errorf("Having=%+v", o.Having)
	}
	if len(o.OrderBy) != 1 || !o.OrderBy[0].Desc || o.Limit != "3" || o.Offset != "1" || o.GroupBy[0] != "singer.name" {
		t.Errorf("OrderBy=%+v Limit=%q Offset=%q GroupBy=%v", o.OrderBy, o.Limit, o.Offset, o.GroupBy)
	}
	if _, err := sqlparse.ParseOutline("", "SELECT 1; SELECT 2", nil); err == nil {
		t.Error("two statements: no error")
	}
}
