package malloy

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/internal/lazyregexp"
)

// notDefined is how the compiler says a name is unknown.
var notDefined = lazyregexp.New(`^'([^']*)' is not defined$`)

// what names the kind of a problem from the compiler's code, so an unknown field,
// source or join is called that.
func what(p problem) string {
	name := ""
	if m := notDefined.FindStringSubmatch(p.Message); m != nil {
		name = m[1]
	}
	switch {
	case p.Code == "syntax-error":
		return "syntax error: " + p.Message
	case p.Code == "source-or-query-not-found":
		if m := regexp.MustCompile(`undefined object '([^']*)'`).FindStringSubmatch(p.Message); m != nil {
			return fmt.Sprintf("unknown source or query '%s'", m[1])
		}
		return "unknown source or query: " + p.Message
	case p.Code == "field-not-found" && name != "":
		return fmt.Sprintf("unknown field or join '%s' (%s)", name, p.Message)
	case strings.HasSuffix(p.Code, "-not-found"):
		return strings.ReplaceAll(strings.TrimSuffix(p.Code, "-not-found"), "-", " ") + " not found: " + p.Message
	}
	if p.Code != "" && p.Code != "error" {
		return p.Message + " (" + p.Code + ")"
	}
	return p.Message
}

// where says where a problem points: file:line:col in a model file, line and column
// in the query.
func where(p problem, md *model) string {
	if p.File != "" {
		f := p.File
		if md != nil && md.paths[f] != "" {
			f = filepath.Base(md.paths[f])
		}
		if p.Line > 0 {
			return fmt.Sprintf("%s:%d:%d: ", f, p.Line, p.Col)
		}
		return f + ": "
	}
	if p.Line > 0 {
		return fmt.Sprintf("line %d, col %d: ", p.Line, p.Col)
	}
	return ""
}

// problemsText lists up to three problems, where each points and what it is.
func problemsText(ps []problem, md *model) string {
	var parts []string
	for i, p := range ps {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("and %d more", len(ps)-3))
			break
		}
		parts = append(parts, where(p, md)+what(p))
	}
	return strings.Join(parts, "; ")
}

// compileError is a query the compiler rejected: CodeCompile, its problems, and the
// position of the first in the query in Line and Col (not repeated in the message).
func compileError(ps []problem, md *model) error {
	e := &qeval.Error{Code: qeval.CodeCompile, Message: problemsText(ps, md)}
	if len(ps) > 0 && ps[0].File == "" && ps[0].Line > 0 {
		e.Line, e.Col = ps[0].Line, ps[0].Col
		first := ps[0]
		first.Line = 0
		e.Message = problemsText(append([]problem{first}, ps[1:]...), md)
	}
	return e
}
