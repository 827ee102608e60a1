package qeval

import "fmt"

// Bounds on a query's text before any recursive parser or walker sees it: a query of
// 4,000,000 nested parentheses drove a recursive parser into a fatal stack overflow,
// which no recover catches, and a 200 KB chain of 100,000 `+` crashes PostgreSQL's
// parser library (a C stack overflow while it serialises the tree) and costs the others
// hundreds of megabytes of stack.
const (
	DefaultMaxQueryBytes     = 1 << 20 // 1 MiB
	DefaultMaxQueryDepth     = 1000    // nested parentheses, brackets and braces
	DefaultMaxQueryOperators = 10_000  // operators: each may add a level to a parse tree
)

// QueryBounds bound a query's text; a zero field is its default (DefaultMaxQueryBytes,
// DefaultMaxQueryDepth, DefaultMaxQueryOperators), and a negative MaxOperators counts
// none (KQL: its parser bounds its own depth, and its literals are full of dashes).
type QueryBounds struct {
	MaxBytes, MaxDepth, MaxOperators int
}

// Check reports a query longer than MaxBytes, nested deeper than MaxDepth, or with more
// than MaxOperators operators, as a CodeTooLarge error that says which bound it passed.
// It scans the text once, counting every bracket and operator, those inside string
// literals too: a false alarm there costs less than a dialect-specific scan that could be
// fooled. An operator is a run of operator characters (`<=` and `||` count once) or one
// of the words AND, OR and NOT; a long chain of them nests as deeply as brackets do in
// the parsers' trees, however flat it reads.
func (b QueryBounds) Check(q string) error {
	maxBytes, maxDepth, maxOps := b.MaxBytes, b.MaxDepth, b.MaxOperators
	if maxBytes <= 0 {
		maxBytes = DefaultMaxQueryBytes
	}
	if maxDepth <= 0 {
		maxDepth = DefaultMaxQueryDepth
	}
	if maxOps == 0 {
		maxOps = DefaultMaxQueryOperators
	}
	if len(q) > maxBytes {
		return &Error{Code: CodeTooLarge, Message: fmt.Sprintf("query too large (%d bytes, limit %d)", len(q), maxBytes)}
	}
	depth, deepest, ops := 0, 0, 0
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case c == '(' || c == '[' || c == '{':
			depth++
			if depth > deepest {
				deepest = depth
			}
		case c == ')' || c == ']' || c == '}':
			if depth > 0 {
				depth--
			}
		case maxOps > 0 && isOperatorByte(c):
			ops++
			for i+1 < len(q) && isOperatorByte(q[i+1]) {
				i++
			}
		case maxOps > 0 && isWordByte(c):
			j := i
			for j < len(q) && isWordByte(q[j]) {
				j++
			}
			if w := q[i:j]; len(w) <= 3 && (equalFoldASCII(w, "and") || equalFoldASCII(w, "or") || equalFoldASCII(w, "not")) {
				ops++
			}
			i = j - 1
		}
	}
	if deepest > maxDepth {
		return &Error{Code: CodeTooLarge, Message: fmt.Sprintf("query too deeply nested (depth %d, limit %d)", deepest, maxDepth)}
	}
	if maxOps > 0 && ops > maxOps {
		return &Error{Code: CodeTooLarge, Message: fmt.Sprintf("query too complex (%d operators, limit %d)", ops, maxOps)}
	}
	return nil
}

// CheckQuerySize is QueryBounds{MaxBytes: maxBytes, MaxDepth: maxDepth}.Check(q).
func CheckQuerySize(q string, maxBytes, maxDepth int) error {
	return QueryBounds{MaxBytes: maxBytes, MaxDepth: maxDepth}.Check(q)
}

func isOperatorByte(c byte) bool {
	switch c {
	case '+', '-', '*', '/', '%', '<', '>', '=', '!', '|', '&', '^', '~':
		return true
	}
	return false
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func equalFoldASCII(w, lower string) bool {
	if len(w) != len(lower) {
		return false
	}
	for i := 0; i < len(w); i++ {
		if w[i]|0x20 != lower[i] {
			return false
		}
	}
	return true
}
