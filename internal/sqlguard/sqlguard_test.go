package sqlguard_test

import (
	"context"
	"strings"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/internal/sqlguard"
)

var kw = sqlguard.Keywords{
	Read:  map[string]bool{"SELECT": true, "WITH": true, "EXPLAIN": true},
	Other: map[string]bool{"DELETE": true, "DROP": true},
	Main:  map[string]bool{"SELECT": true, "DELETE": true},
}

func words(depths []int, texts ...string) []sqlguard.Token {
	var out []sqlguard.Token
	for i, t := range texts {
		k := sqlguard.Word
		if t == "(" || t == ")" {
			k = sqlguard.Punct
		}
		out = append(out, sqlguard.Token{Kind: k, Text: t, Depth: depths[i]})
	}
	return out
}

func TestCheckKeywords(t *testing.T) {
	for _, c := range []struct {
		name string
		toks []sqlguard.Token
		want string // "" for allowed
	}{
		{"Select", words([]int{0, 0}, "SELECT", "A"), ""},
		{"Delete", words([]int{0, 0}, "DELETE", "T"), "forbidden: DELETE is not allowed"},
		{"ParenSelect", words([]int{0, 1}, "(", "SELECT"), ""},
		{"WithSelect", words([]int{0, 0, 1, 1, 0}, "WITH", "X", "(", "SELECT", "SELECT"), ""},
		{"WithDelete", words([]int{0, 0, 1, 1, 0}, "WITH", "X", "(", "SELECT", "DELETE"), "forbidden: DELETE is not allowed"},
		{"WithDeleteQuery", words([]int{0, 0, 0, 1, 1, 1, 0}, "WITH", "X", "AS", "(", "DELETE", ")", "SELECT"),
			"forbidden: DELETE in a WITH query is not allowed: data-changing statements are refused"},
		{"WithMaterializedDelete", words([]int{0, 0, 0, 0, 0, 1, 1, 1, 0}, "WITH", "X", "AS", "NOT", "MATERIALIZED", "(", "DELETE", ")", "SELECT"),
			"data-changing statements are refused"},
		{"WithColumnsSelect", words([]int{0, 0, 1, 1, 0, 0, 1, 1, 0}, "WITH", "X", "(", "DELETE", ")", "AS", "(", "SELECT", "SELECT"), ""},
		{"Unknown", words([]int{0}, "FROBNICATE"), ""},
	} {
		err := sqlguard.CheckKeywords(c.toks, kw)
		if (c.want == "") != (err == nil) || err != nil && (!strings.Contains(err.Error(), c.want) || qeval.ErrorCode(err) != qeval.CodeForbidden) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

func TestStopped(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if qeval.ErrorCode(sqlguard.Stopped(ctx)) != qeval.CodeCanceled {
		t.Error("a canceled context is not canceled")
	}
	ctx, cancel = context.WithTimeout(context.Background(), 0)
	defer cancel()
	<-ctx.Done()
	if qeval.ErrorCode(sqlguard.Stopped(ctx)) != qeval.CodeTimeout {
		t.Error("a deadline is not a timeout")
	}
}

func TestDeniedTable(t *testing.T) {
	for _, c := range []struct {
		dialect, table string
		want           bool
	}{
		{"mysql", "mysql.user", true},
		{"mysql", "MYSQL.User", true},
		{"mysql", "performance_schema.threads", true},
		{"mysql", "information_schema.PROCESSLIST", true},
		{"mysql", "information_schema.tables", false},
		{"mysql", "user", false},
		{"mysql", "shop.mysql", false},
		{"postgres", "pg_stat_activity", true},
		{"postgres", "pg_catalog.pg_authid", true},
		{"postgres", "mysql.user", false},
		{"sqlite", "mysql.user", false},
	} {
		if got := sqlguard.DeniedTable(c.dialect, c.table); got != c.want {
			t.Errorf("DeniedTable(%s, %s) = %v, want %v", c.dialect, c.table, got, c.want)
		}
	}
}
