package resultcsv_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/qeval/qeval/resultcsv"
)

// FuzzRead: any text reads without a panic into rows as wide as the header, and what
// Write writes of it reads back with the same shape.
func FuzzRead(f *testing.F) {
	for _, s := range []string{"a,b\n1,x\n", "a\n\"\"\n", "a,a\n1\n", "a\n9586739058236606680\n", "\"a\nb\",c\n1,2\n", "a\nTrue\n\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		rs, err := resultcsv.Read(strings.NewReader(in), "f.csv")
		if err != nil {
			return
		}
		for i, r := range rs.Rows {
			if len(r) != len(rs.Columns) {
				t.Fatalf("row %d has %d values, header %d", i, len(r), len(rs.Columns))
			}
		}
		var buf bytes.Buffer
		if err := resultcsv.Write(&buf, rs); err != nil {
			t.Fatal(err)
		}
		back, err := resultcsv.Read(&buf, "back.csv")
		if err != nil {
			if len(rs.Columns) == 1 && rs.Columns[0].Name == "" {
				return // a lone empty header writes an empty first line, as pandas does
			}
			t.Fatalf("read back: %v\n%q", err, buf.String())
		}
		if len(back.Columns) != len(rs.Columns) {
			t.Fatalf("read back %d columns, want %d\n%q", len(back.Columns), len(rs.Columns), buf.String())
		}
	})
}
