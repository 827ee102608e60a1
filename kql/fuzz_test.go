package kql_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/qeval/qeval/kql"
)

// FuzzParse checks that Parse, Format and ShapeOf never panic, and that a query that
// parses formats to text that parses again. Crashers found by fuzzing go in
// testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	seeds := []string{
		"T | where x > ago(1h) | summarize count() by bin(ts, 5m)",
		"let f = (a:long) { a + 1 }; print f(1)",
		"datatable(a:long)[1,2] | mv-apply a on (top 1 by a)",
		"T | join kind=inner (U | where y) on $left.a == $right.b",
		"print dynamic({'a': [1, 2, {\"b\": null}]})",
		"T | parse s with * \"a=\" a:long \",\" *",
		"G | graph-match (a)-[e*1..3]->(b) where a.x > 1 project a.id",
		"```multi\nline``` | take 1",
		"T | where x in~ ('a', \"b\") and y !between (1 .. 2)",
		"T | where", "((((", "let x = ", "T | scan with (step s: true;)",
		"let n = 1; let n = n + 1; T | where x > n", // a let that refers to the previous binding
		"let f = (t:(a:(b:(c:long)))) { t }; f(T)",
	}
	files, _ := filepath.Glob("testdata/shape/*.txt")
	for _, file := range files {
		if ar, err := txtar.ParseFile(file); err == nil {
			seeds = append(seeds, section(ar, "query"))
		}
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		s, err := kql.Parse(src)
		if s == nil {
			t.Fatal("Parse returned a nil script")
		}
		kql.ShapeOf(s)
		out := kql.Format(s)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error text")
			}
			return
		}
		if _, err := kql.Parse(out); err != nil {
			t.Fatalf("Format output does not parse: %v\n--- input ---\n%s\n--- formatted ---\n%s", err, src, out)
		}
	})
}

// TestParse_Deadline feeds pathological input (deep nesting, huge and repetitive
// text, unterminated literals) and checks that Parse returns quickly with or
// without errors.
func TestParse_Deadline(t *testing.T) {
	big, err := os.ReadFile("testdata/shape/join_union.txt")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		src     string
		wantErr bool
	}{
		{"DeepParens", strings.Repeat("(", 100000) + "x" + strings.Repeat(")", 100000), true},
		{"DeepCalls", "print " + strings.Repeat("f(", 50000) + "1" + strings.Repeat(")", 50000), true},
		{"DeepUnary", "print " + strings.Repeat("-", 100000) + "1", true},
		{"DeepDynamic", "print dynamic(" + strings.Repeat("[", 50000) + strings.Repeat("]", 50000) + ")", true},
		{"DeepTypes", "let f = (t:" + strings.Repeat("(a:", 50000) + "long" + strings.Repeat(")", 50000) + ") { t }; f(T)", true},
		{"DeepBlocks", strings.Repeat("let f = () { ", 5000) + "1" + strings.Repeat(" }", 5000), true},
		{"LongChain", "print " + strings.Repeat("a + ", 4000) + "a", false},
		{"TooLongChain", "print " + strings.Repeat("a + ", 200000) + "a", true},
		{"LongAnd", "T | where " + strings.Repeat("a == 1 and ", 100000) + "b", true},
		{"ManyPipes", "T" + strings.Repeat(" | where x > 1", 50000), false},
		{"ManyStatements", strings.Repeat("let x = 1;\n", 50000) + "print x", false},
		{"EmptyPipes", "T" + strings.Repeat(" |", 100000), true},
		{"Unterminated", strings.Repeat("print 'abc\n", 50000), true},
		{"Garbage", strings.Repeat("§)(]|;,{", 50000), true},
		{"HugeQuery", strings.Repeat(string(big)+"\n;\n", 2000), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			done := make(chan error, 1)
			start := time.Now()
			go func() {
				_, err := kql.Parse(tt.src)
				done <- err
			}()
			select {
			case err := <-done:
				if (err != nil) != tt.wantErr {
					t.Errorf("Parse error = %v, want error: %v", firstLine(err), tt.wantErr)
				}
				if d := time.Since(start); d > 3*time.Second {
					t.Errorf("Parse took %v on %d bytes", d, len(tt.src))
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("Parse did not return within 10s on %d bytes", len(tt.src))
			}
		})
	}
}

func firstLine(err error) string {
	if err == nil {
		return "<nil>"
	}
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}
