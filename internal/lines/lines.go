// Package lines reads a text stream line by line with no cap on a line's length.
//
// bufio.Scanner stops at its buffer size and reports bufio.ErrTooLong only through
// Err: a loader that forgot to check it dropped every line after a long one in
// silence (after a 16 MB JSONL line). Every line-oriented reader of qeval uses this
// Scanner instead, with the same Scan/Text/Bytes/Err shape.
package lines

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// Scanner reads lines; a line's end is "\n", with a "\r" before it dropped.
type Scanner struct {
	r    *bufio.Reader
	line []byte
	err  error
}

// New returns a Scanner reading r.
func New(r io.Reader) *Scanner { return &Scanner{r: bufio.NewReaderSize(r, 64<<10)} }

// Scan advances to the next line and reports whether there is one.
func (s *Scanner) Scan() bool {
	if s.err != nil {
		return false
	}
	b, err := s.r.ReadBytes('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		s.err = err
		return false
	}
	if len(b) == 0 && err != nil {
		s.err = io.EOF
		return false
	}
	b = bytes.TrimSuffix(b, []byte{'\n'})
	s.line = bytes.TrimSuffix(b, []byte{'\r'})
	if err != nil {
		s.err = io.EOF
	}
	return true
}

// Bytes returns the current line, without its end; it is valid until the next Scan.
func (s *Scanner) Bytes() []byte { return s.line }

// Text returns the current line as a string.
func (s *Scanner) Text() string { return string(s.line) }

// Err returns the first read error, or nil at the end of the stream.
func (s *Scanner) Err() error {
	if errors.Is(s.err, io.EOF) {
		return nil
	}
	return s.err
}
