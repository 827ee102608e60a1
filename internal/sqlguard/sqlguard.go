// Package sqlguard holds what the server executors (postgres, mysql) share in their
// first line of defence against untrusted SQL: the token a dialect's lexer produces,
// the check that a statement is a read, and the errors they report. Each executor keeps
// its own lexer and keyword lists, since the dialects quote and comment differently.
package sqlguard

import (
	"context"
	"errors"

	"github.com/qeval/qeval"
)

// Kind is the kind of a lexical token.
type Kind uint8

// Token kinds.
const (
	Word   Kind = iota // keyword or unquoted identifier (or number)
	Quoted             // quoted identifier
	String             // string literal
	Punct              // one character of punctuation or operator
)

// Token is one lexical token of a query.
type Token struct {
	Kind  Kind
	Text  string // upper-cased for words, unquoted for quoted identifiers
	Pos   int    // byte offset in the query
	Depth int    // parenthesis depth at the token
}

// Keywords are a dialect's statement keywords.
type Keywords struct {
	// Read may start a statement the executor runs.
	Read map[string]bool
	// Other start statements that are not reads.
	Other map[string]bool
	// Main can be the statement that follows a WITH clause or an EXPLAIN.
	Main map[string]bool
}

// CheckKeywords refuses a statement whose first keyword, or whose main statement after
// WITH or EXPLAIN, or the body of one of its WITH queries (PostgreSQL's data-modifying
// WITH x AS (DELETE …)), is not a read. Words it does not know go to the server, which
// reports a syntax error in its own words.
func CheckKeywords(toks []Token, kw Keywords) error {
	i := 0
	for i < len(toks) && toks[i].Kind == Punct && toks[i].Text == "(" {
		i++
	}
	if i == len(toks) || toks[i].Kind != Word {
		return nil
	}
	first := toks[i].Text
	if kw.Other[first] {
		return Forbidden(first + " is not allowed (read-only executor)")
	}
	if first != "WITH" && first != "EXPLAIN" {
		return nil
	}
	if first == "WITH" {
		if w := writingCTE(toks[i+1:], kw); w != "" {
			// the read-only transaction would refuse it as "cannot execute SELECT in a
			// read-only transaction", naming the wrong statement (issue 39)
			return Forbidden(w + " in a WITH query is not allowed: data-changing statements are refused (read-only executor)")
		}
	}
	base := toks[i].Depth
	for _, tk := range toks[i+1:] {
		if tk.Kind == Word && tk.Depth == base && kw.Main[tk.Text] {
			if !kw.Read[tk.Text] {
				return Forbidden(tk.Text + " is not allowed (read-only executor)")
			}
			break
		}
	}
	return nil
}

// writingCTE returns the first keyword of a WITH query body that is not a read: the
// word after "AS (", "AS MATERIALIZED (" or "AS NOT MATERIALIZED (", or "".
func writingCTE(toks []Token, kw Keywords) string {
	for j := 1; j+1 < len(toks); j++ {
		if toks[j].Kind != Punct || toks[j].Text != "(" || toks[j+1].Kind != Word {
			continue
		}
		k := j - 1
		if toks[k].Kind == Word && toks[k].Text == "MATERIALIZED" && k > 0 {
			k--
			if toks[k].Kind == Word && toks[k].Text == "NOT" && k > 0 {
				k--
			}
		}
		if toks[k].Kind == Word && toks[k].Text == "AS" {
			if w := toks[j+1].Text; kw.Main[w] && !kw.Read[w] {
				return w
			}
		}
	}
	return ""
}

// Forbidden is the error for a statement the executor refuses to run.
func Forbidden(msg string) error {
	return &qeval.Error{Code: qeval.CodeForbidden, Message: "forbidden: " + msg}
}

// Stopped says why a query whose context ended did not finish: the caller canceled
// it, or a deadline (the caller's or the executor's) passed.
func Stopped(ctx context.Context) error {
	if errors.Is(ctx.Err(), context.Canceled) {
		return &qeval.Error{Code: qeval.CodeCanceled, Message: "query canceled", Err: ctx.Err()}
	}
	return &qeval.Error{Code: qeval.CodeTimeout, Message: "query timed out", Err: context.DeadlineExceeded}
}
