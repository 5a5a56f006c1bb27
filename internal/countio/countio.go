// Package countio counts the bytes read through a reader: the size of a
// response body (probe) or of a scanned log (diagnose).
package countio

import "io"

// Reader counts the bytes read from R into N. Ended is whether R ended
// cleanly (io.EOF): a decoder turns that into io.ErrUnexpectedEOF when it
// came mid-value, which then reads like a connection cut.
type Reader struct {
	R     io.Reader
	N     int64
	Ended bool
}

func (c *Reader) Read(p []byte) (int, error) {
	n, err := c.R.Read(p)
	c.N += int64(n)
	if err == io.EOF {
		c.Ended = true
	}
	return n, err
}
