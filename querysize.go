package qeval

import "fmt"

// Bounds on a query's text before any recursive parser or walker sees it: a query of
// 4,000,000 nested parentheses drove a recursive parser into a fatal stack overflow,
// which no recover catches (issue 21). Callers may pass their own; zero means these.
const (
	DefaultMaxQueryBytes = 1 << 20 // 1 MiB
	DefaultMaxQueryDepth = 1000    // nested parentheses, brackets and braces
)

// CheckQuerySize reports a query longer than maxBytes or nested deeper than maxDepth
// as a CodeTooLarge error that says which bound it passed. It scans the text once,
// counting every bracket (those inside string literals too: a false alarm there costs
// less than a dialect-specific scan that could be fooled).
func CheckQuerySize(q string, maxBytes, maxDepth int) error {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxQueryBytes
	}
	if maxDepth <= 0 {
		maxDepth = DefaultMaxQueryDepth
	}
	if len(q) > maxBytes {
		return &Error{Code: CodeTooLarge, Message: fmt.Sprintf("query too large (%d bytes, limit %d)", len(q), maxBytes)}
	}
	depth, deepest := 0, 0
	for i := 0; i < len(q); i++ {
		switch q[i] {
		case '(', '[', '{':
			depth++
			if depth > deepest {
				deepest = depth
			}
		case ')', ']', '}':
			if depth > 0 {
				depth--
			}
		}
	}
	if deepest > maxDepth {
		return &Error{Code: CodeTooLarge, Message: fmt.Sprintf("query too deeply nested (depth %d, limit %d)", deepest, maxDepth)}
	}
	return nil
}
