package kql_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/kql"
)

// parseErrors parses src and returns its ErrorList, failing when there is none.
func parseErrors(t *testing.T, src string) kql.ErrorList {
	t.Helper()
	s, err := kql.Parse(src)
	if s == nil {
		t.Fatalf("Parse(%q) returned a nil script", src)
	}
	var list kql.ErrorList
	if !errors.As(err, &list) || len(list) == 0 {
		t.Fatalf("Parse(%q) error = %v, want an ErrorList", src, err)
	}
	return list
}

func TestErrors_Position(t *testing.T) {
	tests := []struct {
		src       string
		line, col int
		msg       string
	}{
		{"T | where x ==", 1, 15, "expected an expression, found end of query"},
		{"T\n| where a == 'abc\n| take 5", 2, 14, "unterminated string literal"},
		{"T | frobnicate x", 1, 5, "unknown tabular operator 'frobnicate'"},
		{"T | where x in 1, 2", 1, 16, "expected '(', found '1'"},
		{"T\n| where a == 1 == 2", 2, 16, "unexpected '==' after operator"},
		{"T | project a b", 1, 15, "unexpected 'b' after operator"},
		{"T | where x > 1 |", 1, 18, "expected a tabular operator, found end of query"},
		{"T | take 1 ) | count", 1, 12, "expected ';' or '|' between statements, found ')'"},
		{"T | join (U on a", 1, 13, "expected ')', found 'on'"},
		{"let x = ; T", 1, 9, "expected an expression, found ';'"},
		{"print 'é' + ü§", 1, 14, "unexpected character '§'"},
		{"print datetime(2020-01-01", 1, 7, "unterminated datetime literal"},
		{".show tables", 1, 1, "management commands (.show) are not queries"},
	}
	for _, tt := range tests {
		e := parseErrors(t, tt.src)[0]
		if e.Line != tt.line || e.Col != tt.col || e.Message != tt.msg {
			t.Errorf("Parse(%q) first error = %d:%d: %s, want %d:%d: %s", tt.src, e.Line, e.Col, e.Message, tt.line, tt.col, tt.msg)
		}
	}
}

func TestErrors_Caret(t *testing.T) {
	list := parseErrors(t, "T\n\t| where x == )\n| take 1")
	want := "2:15: expected an expression, found ')'\n    \t| where x == )\n    \t             ^"
	if got := list[0].Error(); got != want {
		t.Errorf("Error() =\n%s\nwant\n%s", got, want)
	}
}

// TestErrors_Recovery checks that the parser resynchronises at pipes and semicolons
// and reports later errors too.
func TestErrors_Recovery(t *testing.T) {
	list := parseErrors(t, "T | where a == | project b,, c | take\n;\nU | frobnicate; V | summarize count( by x")
	var lines []int
	for _, e := range list {
		lines = append(lines, e.Line)
	}
	if len(list) < 4 {
		t.Fatalf("got %d errors (%v), want at least 4:\n%v", len(list), lines, list)
	}
	for i := 1; i < len(list); i++ {
		if list[i].Pos < list[i-1].Pos {
			t.Errorf("errors out of order: %v", list)
		}
	}
	if !strings.Contains(list.Error(), "unknown tabular operator 'frobnicate'") {
		t.Errorf("errors do not mention the operator on line 3:\n%v", list)
	}
}

func TestErrors_Limit(t *testing.T) {
	src := strings.Repeat("T | where ==;\n", 50)
	list := parseErrors(t, src)
	if len(list) != 10 {
		t.Errorf("got %d errors, want the cap of 10", len(list))
	}
}

func TestErrors_LongLine(t *testing.T) {
	src := "print x = " + strings.Repeat("1 + ", 500) + ")"
	e := parseErrors(t, src)[0]
	if e.Col != 2011 {
		t.Errorf("Col = %d, want 2011", e.Col)
	}
	if len(e.LineText) > 200 || !strings.HasSuffix(strings.TrimSpace(strings.Split(e.Error(), "\n")[2]), "^") {
		t.Errorf("long line not clipped around the caret:\n%s", e.Error())
	}
	lines := strings.Split(e.Error(), "\n")
	caret := strings.Index(lines[2], "^")
	if lines[1][caret] != ')' {
		t.Errorf("caret under %q, want ')':\n%s", lines[1][caret], e.Error())
	}
}

func TestErrors_QevalError(t *testing.T) {
	list := parseErrors(t, "T | where\n| take ==")
	qe := list.QevalError()
	if qe.Code != qeval.CodeQuery || qe.Line != 2 || qe.Col != 1 {
		t.Errorf("QevalError() = %+v, want code query at 2:1", qe)
	}
	if !strings.Contains(qe.Message, "more error") {
		t.Errorf("Message = %q, want it to count the other errors", qe.Message)
	}
	var back kql.ErrorList
	if !errors.As(qe, &back) || len(back) != len(list) {
		t.Errorf("errors.As(QevalError, ErrorList) lost the list")
	}
	if qeval.ErrorCode(qe) != qeval.CodeQuery {
		t.Errorf("ErrorCode = %v", qeval.ErrorCode(qe))
	}
	one := list[0].QevalError()
	if one.Code != qeval.CodeQuery || one.Line != list[0].Line || one.Message != list[0].Message {
		t.Errorf("Error.QevalError() = %+v", one)
	}
}

func TestParseShape_Error(t *testing.T) {
	sh, err := kql.ParseShape("T | where x > 1 | summarize count( by y")
	var qe *qeval.Error
	if !errors.As(err, &qe) || qe.Code != qeval.CodeQuery || qe.Line != 1 {
		t.Fatalf("ParseShape error = %#v, want a *qeval.Error with code query", err)
	}
	if sh == nil || len(sh.Tables) != 1 || sh.Tables[0] != "T" || len(sh.Filters) != 1 {
		t.Errorf("partial shape = %+v, want table T and one filter", sh)
	}
}
