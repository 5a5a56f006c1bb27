package diagnose

import (
	"context"
	"io"
	"time"
)

// SummarizeContext is Summarize on a reader that gives up when ctx ends:
// a log read from stdin or a FIFO may never end, and Ctrl-C must still stop
// the scan. The Summary then holds what was read up to that moment, and the
// error is ctx's.
func SummarizeContext(ctx context.Context, r io.Reader, maxLinesPerGroup int) (Summary, error) {
	return Summarize(NewContextReader(ctx, r), maxLinesPerGroup)
}

// NewContextReader returns a reader whose Read returns ctx's error as soon
// as ctx ends, even while a Read of r is blocked (a terminal, a pipe whose
// writer stays open, a FIFO): r is read by one goroutine, into its own
// buffer, one Read at a time and only when asked, so no byte is lost or
// read twice. A Read blocked when ctx ends is left behind: its goroutine
// ends with that Read (the process is about to exit anyway).
func NewContextReader(ctx context.Context, r io.Reader) io.Reader {
	if ctx.Done() == nil {
		return r // never cancelled: no goroutine needed
	}
	return &contextReader{ctx: ctx, r: r}
}

type contextReader struct {
	ctx     context.Context
	r       io.Reader
	started bool
	ask     chan struct{}  // one more Read of r, please
	got     chan readChunk // its answer
	buf     []byte         // written only by the goroutine, between ask and got
	pending []byte         // read from r, not yet returned
	err     error          // r's error, returned once pending is empty
}

// readHandoverGrace is how long an interrupted Read waits for bytes its
// goroutine has read but not handed over: far longer than the handover
// takes, short beside a person's wait after Ctrl-C.
const readHandoverGrace = 250 * time.Millisecond

type readChunk struct {
	n   int
	err error
}

func (c *contextReader) Read(p []byte) (int, error) {
	if len(c.pending) == 0 && c.err == nil {
		if err := c.ctx.Err(); err != nil {
			return 0, err
		}
		if !c.started {
			c.start()
		}
		c.ask <- struct{}{}
		select {
		case ch := <-c.got:
			c.pending, c.err = c.buf[:ch.n], ch.err
		case <-c.ctx.Done():
			close(c.ask) // the goroutine ends after the Read it is in
			// Bytes already read from r when ctx ended are still
			// returned: "the lines read before the signal" counts them.
			// The goroutine may have them and not have handed them over
			// yet (select picks at random when both are ready, and a busy
			// machine may not have run it since its Read returned): it
			// gets a moment to. A Read still waiting for input gives
			// nothing in it, and the run ends.
			grace := time.NewTimer(readHandoverGrace)
			defer grace.Stop()
			select {
			case ch := <-c.got:
				c.pending, c.err = c.buf[:ch.n], c.ctx.Err()
			case <-grace.C:
				c.err = c.ctx.Err()
				return 0, c.err
			}
		}
	}
	n := copy(p, c.pending)
	c.pending = c.pending[n:]
	if len(c.pending) == 0 && c.err != nil {
		return n, c.err
	}
	return n, nil
}

func (c *contextReader) start() {
	c.started = true
	c.ask = make(chan struct{}, 1)
	c.got = make(chan readChunk, 1)
	c.buf = make([]byte, MaxLineBytes)
	go func() {
		for range c.ask {
			n, err := c.r.Read(c.buf)
			c.got <- readChunk{n, err}
			if err != nil {
				return
			}
		}
	}()
}
