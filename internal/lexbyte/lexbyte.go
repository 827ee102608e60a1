// Package lexbyte holds the byte classes the hand-written SQL and KQL scanners share: what
// may continue a word (a keyword or a bare name). Each scanner adds the bytes its
// dialect allows beyond them ($ in MySQL, @ and # in T-SQL names).
//
// Two scanners keep their own classes on purpose, because they reproduce Python code
// character for character: compare's sqlparse lexer (Python's \w, any Unicode letter or
// digit) and execmatch's --plug_value literal finder (the official evaluator's rules).
package lexbyte

// IsASCIIWord reports whether c is an ASCII letter, digit or underscore.
func IsASCIIWord(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// IsWord reports whether c is an ASCII letter, digit or underscore, or a byte of a
// multi-byte UTF-8 character (0x80 and up): engines accept non-ASCII letters in bare
// names, and a scanner must not end a word inside one.
func IsWord(c byte) bool { return c >= 0x80 || IsASCIIWord(c) }
