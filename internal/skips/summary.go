package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/qeval/qeval/internal/lazyregexp"
)

// event is one line of `go test -json` (cmd/test2json's TestEvent).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// logLine is a line t.Log, t.Skip and friends print: the file and line, then the message.
var logLine = lazyregexp.New(`^\s+[\w.\-]+\.go:\d+: (.*)$`)

// reason groups the tests skipped for one reason.
type reason struct {
	text     string
	tests    int
	packages map[string]bool
}

// summarize reads go test -json events from r and writes the skipped tests grouped by
// reason, then the failures, to w. It reports whether a test or package failed.
func summarize(r io.Reader, w io.Writer) (failed bool, err error) {
	last := map[string]string{}  // package/test → its last logged message
	logging := map[string]bool{} // package/test → its last output line was (part of) a message
	reasons := map[string]*reason{}
	var failures []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		if len(line) == 0 || line[0] != '{' {
			continue // go test's own lines (build errors) pass through test2json as text
		}
		var ev event
		if err := json.Unmarshal(line, &ev); err != nil {
			return false, fmt.Errorf("line %d: not a go test -json event: %v", n, err)
		}
		key := ev.Package + "\x00" + ev.Test
		switch ev.Action {
		case "output":
			text := strings.TrimRight(ev.Output, "\n")
			if m := logLine.FindStringSubmatch(text); m != nil && ev.Test != "" {
				last[key], logging[key] = m[1], true
			} else if logging[key] && strings.HasPrefix(text, "        ") && !strings.HasPrefix(strings.TrimSpace(text), "--- ") {
				last[key] += " " + strings.TrimSpace(text) // a message of several lines
			} else {
				logging[key] = false
			}
		case "skip":
			if ev.Test == "" {
				continue // a package without tests
			}
			text := last[key]
			if text == "" {
				text = "(no reason given)"
			}
			g := reasons[text]
			if g == nil {
				g = &reason{text: text, packages: map[string]bool{}}
				reasons[text] = g
			}
			g.tests++
			g.packages[ev.Package] = true
		case "fail":
			failed = true
			if ev.Test != "" {
				failures = append(failures, ev.Package+" "+ev.Test)
			} else {
				failures = append(failures, ev.Package)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return false, err
	}
	writeSkips(w, reasons)
	if len(failures) > 0 {
		fmt.Fprintf(w, "FAILED: %s\n", strings.Join(failures, ", "))
	}
	return failed, nil
}

// writeSkips prints the headline and one line per reason, most tests first.
func writeSkips(w io.Writer, reasons map[string]*reason) {
	groups := make([]*reason, 0, len(reasons))
	tests, pkgs := 0, map[string]bool{}
	for _, g := range reasons {
		groups = append(groups, g)
		tests += g.tests
		for p := range g.packages {
			pkgs[p] = true
		}
	}
	if tests == 0 {
		fmt.Fprintln(w, "no test was skipped")
		return
	}
	sort.Slice(groups, func(i, j int) bool {
		if groups[i].tests != groups[j].tests {
			return groups[i].tests > groups[j].tests
		}
		return groups[i].text < groups[j].text
	})
	fmt.Fprintf(w, "skipped %d %s in %d %s:\n", tests, plural(tests, "test", "tests"), len(pkgs), plural(len(pkgs), "package", "packages"))
	for _, g := range groups {
		names := make([]string, 0, len(g.packages))
		for p := range g.packages {
			names = append(names, shortName(p))
		}
		sort.Strings(names)
		fmt.Fprintf(w, "  %d in %s: %s\n", g.tests, strings.Join(names, ", "), g.text)
	}
}

// shortName drops the module path from a package's import path.
func shortName(pkg string) string {
	const module = "github.com/qeval/qeval"
	if pkg == module {
		return "qeval"
	}
	return strings.TrimPrefix(pkg, module+"/")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
