// Package countio counts the bytes read through a reader: the size of a
// response body (probe) or of a scanned log (diagnose).
package countio

import "io"

// Reader counts the bytes read from R into N.
type Reader struct {
	R io.Reader
	N int64
}

func (c *Reader) Read(p []byte) (int, error) {
	n, err := c.R.Read(p)
	c.N += int64(n)
	return n, err
}
