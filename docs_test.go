package qeval_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// goTestCommand is a `go test ./PKG …` line of a document: the -run, -bench and -fuzz
// names it asks for must exist in that package's tests.
var goTestCommand = regexp.MustCompile(`go test (\./[\w/]+)((?: +\S+)*)`)

// TestContributing_Commands checks every go test command CONTRIBUTING.md gives names
// tests, benchmarks and fuzz targets that exist, so the file cannot go stale.
func TestContributing_Commands(t *testing.T) {
	b, err := os.ReadFile("CONTRIBUTING.md")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range goTestCommand.FindAllStringSubmatch(string(b), -1) {
		pkg, args := m[1], strings.Fields(m[2])
		for i := 0; i+1 < len(args); i++ {
			kind := map[string]string{"-run": "Test", "-bench": "Benchmark", "-fuzz": "Fuzz"}[args[i]]
			if kind == "" {
				continue
			}
			src := testSources(t, pkg)
			for _, name := range strings.Split(strings.Trim(args[i+1], `'"`), "|") {
				name = strings.TrimPrefix(strings.TrimSuffix(name, "$"), "^")
				if name == "" || name == "X" { // -run X: no test, only the benchmarks
					continue
				}
				n++
				if !strings.HasPrefix(name, kind) {
					name = kind + name
				}
				if !regexp.MustCompile(`func ` + regexp.QuoteMeta(name) + `\w*\(`).MatchString(src) {
					t.Errorf("CONTRIBUTING.md: go test %s %s %s: no %s in %s", pkg, args[i], args[i+1], name, pkg)
				}
			}
		}
	}
	if n < 5 {
		t.Fatalf("found %d test, benchmark and fuzz names in CONTRIBUTING.md's commands: is the pattern wrong?", n)
	}
}

// testSources is the text of a package's test files.
func testSources(t *testing.T, pkg string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(pkg, "*_test.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no test files in %s (%v)", pkg, err)
	}
	var b strings.Builder
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(src)
	}
	return b.String()
}
