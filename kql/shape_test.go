package kql_test

import (
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/qeval/qeval/kql"
)

var update = flag.Bool("update", false, "rewrite the shape and errors sections of testdata/shape/*.txt")

// TestShapeGolden runs the cases in testdata/shape: each file holds a comment, the
// query, the wanted shape as JSON and, for a query with syntax errors, the wanted
// errors. go test ./kql -update rewrites the wanted sections; review the diff.
func TestShapeGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/shape/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files in testdata/shape: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txt"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			query := section(ar, "query")
			if query == "" {
				t.Fatalf("%s: no query section", file)
			}
			sh, err := kql.ParseShape(strings.TrimSuffix(query, "\n"))
			var buf strings.Builder
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", "  ")
			if err := enc.Encode(sh); err != nil {
				t.Fatal(err)
			}
			gotShape := buf.String()
			gotErrors := ""
			if err != nil {
				var list kql.ErrorList
				if !errors.As(err, &list) {
					t.Fatalf("ParseShape error %T does not wrap an ErrorList", err)
				}
				gotErrors = list.Error() + "\n"
			}
			if *update {
				out := &txtar.Archive{Comment: ar.Comment, Files: []txtar.File{{Name: "query", Data: []byte(query)}, {Name: "shape", Data: []byte(gotShape)}}}
				if gotErrors != "" {
					out.Files = append(out.Files, txtar.File{Name: "errors", Data: []byte(gotErrors)})
				}
				if err := os.WriteFile(file, txtar.Format(out), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if want := section(ar, "shape"); gotShape != want {
				t.Errorf("%s: shape differs\n--- got ---\n%s--- want ---\n%s", file, gotShape, want)
			}
			if want := section(ar, "errors"); gotErrors != want {
				t.Errorf("%s: errors differ\n--- got ---\n%s--- want ---\n%s", file, gotErrors, want)
			}
		})
	}
}

func section(ar *txtar.Archive, name string) string {
	for _, f := range ar.Files {
		if f.Name == name {
			return string(f.Data)
		}
	}
	return ""
}

// TestShape_EquivalentTimespans checks the seed's rule that equal time spans compare
// equal: the filter values of these spellings are identical.
func TestShape_EquivalentTimespans(t *testing.T) {
	spellings := []string{"ago(1h)", "ago(60m)", "ago(3600s)", "ago(1.0h)", "ago(time(1:00:00))", "ago(timespan(60min))",
		"ago(onehour)", "ago(2 * 30m)", "ago(1d / 24)", "ago(90m - 30m)", "ago((60 * 1m))"}
	var first string
	for i, sp := range spellings {
		src := "T | where ts > " + sp
		if sp == "ago(onehour)" {
			src = "let onehour = 60m;\n" + src
		}
		sh, err := kql.ParseShape(src)
		if err != nil {
			t.Fatal(err)
		}
		if len(sh.Filters) != 1 {
			t.Fatalf("%s: %d filters, want 1", src, len(sh.Filters))
		}
		v := sh.Filters[0].Value
		if i == 0 {
			first = v
			if v != "ago(1h)" {
				t.Errorf("Filter.Value = %q, want ago(1h)", v)
			}
		} else if v != first {
			t.Errorf("%s: Filter.Value = %q, want %q as for %s", src, v, first, spellings[0])
		}
	}
	a, _ := kql.ParseShape("T | summarize count() by bin(ts, 60m)")
	b, _ := kql.ParseShape("T | summarize count() by bin(ts, 1h)")
	if a.GroupBy[0] != b.GroupBy[0] || a.GroupBy[0] != "bin(ts, 1h)" {
		t.Errorf("GroupBy = %q and %q, want both bin(ts, 1h)", a.GroupBy[0], b.GroupBy[0])
	}
}

func TestShapeOf_Nil(t *testing.T) {
	sh := kql.ShapeOf(nil)
	if sh.Dialect != "kql" || sh.Kind != "query" || sh.Tables == nil {
		t.Errorf("ShapeOf(nil) = %+v, want an empty kql shape", sh)
	}
}
