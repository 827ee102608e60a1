package qeval_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// goTestCommand is a `go test … ./PKG …` command of a document, up to the end of its line.
var goTestCommand = regexp.MustCompile("go test((?: +[^\\s`]+)+)")

// TestDocs_TestCommands checks every go test command that CONTRIBUTING.md, README.md
// and the pages of docs/ give names tests, benchmarks and fuzz targets that exist in
// that package, so the documents cannot go stale when a test is renamed.
func TestDocs_TestCommands(t *testing.T) {
	n := 0
	for _, doc := range documents(t) {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range goTestCommand.FindAllStringSubmatch(string(b), -1) {
			args := strings.Fields(m[1])
			pkg := ""
			for _, a := range args {
				if strings.HasPrefix(a, "./") && !strings.Contains(a, "...") {
					pkg = strings.TrimSuffix(a, "/")
				}
			}
			for i := 0; i+1 < len(args) && pkg != ""; i++ {
				kind := map[string]string{"-run": "Test", "-bench": "Benchmark", "-fuzz": "Fuzz"}[args[i]]
				if kind == "" {
					continue
				}
				src := testSources(t, pkg)
				for _, name := range strings.Split(strings.Trim(args[i+1], `'"`), "|") {
					name = strings.TrimPrefix(strings.TrimSuffix(name, "$"), "^")
					if name == "" || name == "X" { // -run X or '^$': no test, only the benchmarks
						continue
					}
					n++
					if !strings.HasPrefix(name, kind) {
						name = kind + name
					}
					if !regexp.MustCompile(`func ` + regexp.QuoteMeta(name) + `\w*\(`).MatchString(src) {
						t.Errorf("%s: go test%s: no %s in %s", doc, m[1], name, pkg)
					}
				}
			}
		}
	}
	if n < 10 {
		t.Fatalf("found %d test, benchmark and fuzz names in the documents' commands: is the pattern wrong?", n)
	}
}

// documents are the Markdown files of the repository's front door and reference.
func documents(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join("docs", "*.md"))
	if err != nil || len(docs) < 10 {
		t.Fatalf("docs/*.md: %d pages (%v)", len(docs), err)
	}
	return append([]string{"README.md", "CONTRIBUTING.md"}, docs...)
}

// TestREADME_FrontDoor checks README.md stays a front door: short, with the two
// commands a newcomer runs first, and the reference in docs/.
func TestREADME_FrontDoor(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	if n := strings.Count(readme, "\n"); n > 250 {
		t.Errorf("README.md has %d lines; keep it at most 250 and move reference to docs/", n)
	}
	for _, want := range []string{"\ngo run ./cmd/qeval run examples/chinook/suite.yaml -o out/\ngo test ./...\n",
		"--target-command", "--target-url", "docs/README.md", "docs/performance.md"} {
		if !strings.Contains(readme, want) {
			t.Errorf("README.md lacks %q", want)
		}
	}
}

// TestDocs_Links checks every relative link of the documents names a file of the
// repository and, with #anchor, a heading of that file.
func TestDocs_Links(t *testing.T) {
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	n := 0
	for _, doc := range documents(t) {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			n++
			file, anchor, _ := strings.Cut(target, "#")
			path := doc
			if file != "" {
				path = filepath.Join(filepath.Dir(doc), file)
			}
			page, err := os.ReadFile(path)
			if err != nil {
				t.Errorf("%s: link %s: %v", doc, target, err)
				continue
			}
			if anchor != "" && !slices.Contains(headingAnchors(string(page)), anchor) {
				t.Errorf("%s: link %s: %s has no heading with that anchor (it has %v)", doc, target, path, headingAnchors(string(page)))
			}
		}
	}
	if n < 30 {
		t.Fatalf("found %d relative links in the documents: is the pattern wrong?", n)
	}
}

// headingAnchors are the anchors GitHub gives the Markdown headings of a page: lower
// case, spaces as hyphens, punctuation other than hyphens and underscores dropped.
func headingAnchors(page string) []string {
	var out []string
	fence := false
	for _, line := range strings.Split(page, "\n") {
		if strings.HasPrefix(line, "```") {
			fence = !fence
		}
		if fence || !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(title) {
			switch {
			case r == ' ':
				b.WriteByte('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		out = append(out, b.String())
	}
	return out
}

// TestDocs_PerformanceDated checks every section of docs/performance.md dates its
// figures, so none is quoted without knowing when it was measured.
func TestDocs_PerformanceDated(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("docs", "performance.md"))
	if err != nil {
		t.Fatal(err)
	}
	date := regexp.MustCompile(`\b20\d\d-\d\d-\d\d\b`)
	sections := strings.Split(string(b), "\n## ")[1:]
	if len(sections) < 5 {
		t.Fatalf("docs/performance.md has %d sections", len(sections))
	}
	for _, sec := range sections {
		if !date.MatchString(sec) {
			t.Errorf("docs/performance.md, %q: no date (YYYY-MM-DD) of measurement", strings.SplitN(sec, "\n", 2)[0])
		}
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
