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
	r       *bufio.Reader
	line    []byte
	err     error
	max     int  // NewMax's bound; 0: none
	tooLong bool // the current line was longer than max
}

// New returns a Scanner reading r.
func New(r io.Reader) *Scanner { return &Scanner{r: bufio.NewReaderSize(r, 64<<10)} }

// NewMax returns a Scanner whose lines are kept up to max bytes: the rest of a longer
// line is read past, not held (a 200 MB line cost 1 GB of memory before its case was
// refused), and TooLong says so.
func NewMax(r io.Reader, max int) *Scanner {
	s := New(r)
	s.max = max
	return s
}

// TooLong reports whether the current line was longer than NewMax's bound: Bytes then
// holds its first bytes only.
func (s *Scanner) TooLong() bool { return s.tooLong }

// Scan advances to the next line and reports whether there is one.
func (s *Scanner) Scan() bool {
	if s.err != nil {
		return false
	}
	if s.max > 0 {
		return s.scanMax()
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

func (s *Scanner) scanMax() bool {
	s.tooLong = false
	b := s.line[:0]
	read := false
	for {
		chunk, err := s.r.ReadSlice('\n')
		read = read || len(chunk) > 0
		switch {
		case s.tooLong:
		case len(b)+len(chunk) > s.max+len("\r\n"):
			s.tooLong = true
			b = append(b, chunk[:max(0, min(len(chunk), s.max-len(b)))]...)
		default:
			if len(b)+len(chunk) > cap(b) { // twice as large: append grows a large slice by a quarter
				b = append(make([]byte, 0, max(2*cap(b), len(b)+len(chunk))), b...)
			}
			b = append(b, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			s.err = err
			return false
		}
		if err != nil {
			s.err = io.EOF
			if !read {
				return false
			}
		}
		break
	}
	b = bytes.TrimSuffix(b, []byte{'\n'})
	s.line = bytes.TrimSuffix(b, []byte{'\r'})
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
