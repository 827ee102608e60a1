package qeval

import (
	"fmt"
	"io"
)

// MaxReplyBytes caps what qeval reads of one reply from an LLM provider or an HTTP
// target: a hostile or broken endpoint cannot make it hold more (a 200 MB reply once
// took 3.5 GB).
const MaxReplyBytes = 1 << 20

// CapReader returns r that fails with a CodeTooLarge error naming what once more than n
// bytes are read, rather than reading on or cutting the reply silently.
func CapReader(r io.ReadCloser, n int64, what string) io.ReadCloser {
	return &capReader{r: r, left: n, n: n, what: what}
}

type capReader struct {
	r    io.ReadCloser
	left int64
	n    int64
	what string
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left < 0 {
		return 0, c.err()
	}
	if int64(len(p)) > c.left+1 {
		p = p[:c.left+1]
	}
	k, err := c.r.Read(p)
	c.left -= int64(k)
	if c.left < 0 {
		return k, c.err()
	}
	return k, err
}

func (c *capReader) err() error {
	return &Error{Code: CodeTooLarge, Message: fmt.Sprintf("%s is larger than %d bytes: not read further", c.what, c.n)}
}

func (c *capReader) Close() error { return c.r.Close() }
