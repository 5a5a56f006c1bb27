package audit

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"
)

// Memory of a read: a source holds one batch being filled, a few decoded
// ones in flight and a read buffer; a line longer than the read buffer is
// decoded by its source's feeder at once, whole up to gatherBytes (with
// encoding/json's fallback, at most two such lines at a time across every
// source), beyond that in one pass through a window of the fields it reads.
// So no line, however long, is held whole past gatherBytes, and no buffer
// that grew for one keeps its size (only batch-sized ones are pooled).
const (
	batchBytes  = 1 << 20
	batchLines  = 4096
	readBuf     = 256 << 10
	gatherBytes = 4 << 20
	gathers     = 2
)

// batch is a run of lines of one source, decoded by a worker (or, for one
// long line, by the feeder: pre).
type batch struct {
	buf    []byte
	ends   []int // line i is buf[ends[i-1]:ends[i]]
	first  int64 // the number of the first line
	offset int64 // where the batch starts in the source (uncompressed bytes)
	size   int64 // how many bytes of the source it covers
	events []Event
	lineOf []int64 // the line number of events[i]
	bad    []BadLine
	wraps  int64
	lines  int64
	pre    bool
	done   chan struct{}
}

// batches are reused: a read holds a few per source at a time, whatever
// the log's size, and allocating one per megabyte would be most of the
// garbage of a read. Only batch-sized ones come back (see release).
var batches = sync.Pool{New: func() any { return &batch{buf: make([]byte, 0, batchBytes+readBuf)} }}

func newBatch(first, offset int64) *batch {
	b := batches.Get().(*batch)
	b.buf, b.ends, b.events, b.lineOf, b.bad = b.buf[:0], b.ends[:0], b.events[:0], b.lineOf[:0], b.bad[:0]
	b.first, b.offset, b.size, b.wraps, b.lines, b.pre, b.done = first, offset, 0, 0, 0, false, make(chan struct{})
	return b
}

func release(b *batch) {
	if b.pre || cap(b.buf) > batchBytes+readBuf || cap(b.events) > 2*batchLines {
		return // one that grew, or a long line's: left to the GC
	}
	batches.Put(b)
}

func (b *batch) decode() {
	start := 0
	var e Event
	for i, end := range b.ends {
		line := bytes.TrimSpace(b.buf[start:end])
		start = end
		if len(line) == 0 {
			continue
		}
		b.add(&e, b.first+int64(i), line)
	}
}

// add decodes one line into the batch's events or bad lines.
func (b *batch) add(e *Event, n int64, line []byte) {
	b.lines++
	wrapped, reason := Decode(line, e)
	b.result(e, n, wrapped, reason)
}

func (b *batch) result(e *Event, n int64, wrapped bool, reason string) {
	if reason != "" {
		b.bad = append(b.bad, BadLine{Line: n, Reason: reason})
		return
	}
	if wrapped {
		b.wraps++
	}
	b.events = append(b.events, *e)
	b.lineOf = append(b.lineOf, n)
}

// stream is one source cut into batches, in order.
type stream struct {
	name string
	out  chan *batch
	// detect: look for gzip's magic (false for a part of a source already
	// decompressed: see sortedFile).
	detect bool
	// live: a pipe (stdin), whose lines may come slowly: a batch goes as
	// soon as nothing more is there to read, not when it is full.
	live      bool
	firstLine int64
	offset    int64

	// err is a read error: the source ends there, endOffset bytes in (see
	// Stats.Cut); read them only once ended (out closed).
	err       error
	endOffset int64
	ended     bool
	lines     int64 // lines consumed by next
	// reading: a live source's feeder waits in a read, every line before
	// it given (see nextBatch).
	reading atomic.Bool
	cur     *batch
	pos     int
	stop    bool
}

func newStream(name string, detect bool, firstLine, offset int64) *stream {
	return &stream{name: name, out: make(chan *batch, 2), detect: detect, firstLine: firstLine, offset: offset}
}

var closed = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// watchedReader tells when its stream's feeder waits in a read.
type watchedReader struct {
	r io.Reader
	s *stream
}

func (w *watchedReader) Read(p []byte) (int, error) {
	w.s.reading.Store(true)
	defer w.s.reading.Store(false)
	return w.r.Read(p)
}

func (s *stream) feed(ctx context.Context, r io.Reader, o *Options, p *pipeline) {
	defer close(s.out)
	if s.live {
		r = &watchedReader{r: r, s: s}
	}
	br := bufio.NewReaderSize(r, readBuf)
	if s.detect {
		r, gz, err := Decompressed(br)
		if err != nil {
			s.err = err
			return
		}
		if gz {
			br = bufio.NewReaderSize(r, readBuf)
		}
	}
	line, off := s.firstLine, s.offset
	b := newBatch(line, off)
	// send gives a batch to the merge (and to the workers). Once ctx has
	// ended, what was read is still given, decoded here, and the feed
	// stops after it: an interrupted read reports every line it read.
	send := func(b *batch) bool {
		b.size = off - b.offset
		if ctx.Err() != nil && !b.pre {
			b.decode()
			close(b.done)
			b.pre = true
		}
		select {
		case s.out <- b:
		case <-p.quit:
			if !b.pre {
				close(b.done)
			}
			return false
		}
		if b.pre {
			return ctx.Err() == nil
		}
		select {
		case p.work <- b:
		case <-ctx.Done():
			// In out already: decoded here, as the merge waits for it.
			b.decode()
			close(b.done)
			return false
		}
		return true
	}
	flush := func() bool {
		if len(b.ends) == 0 {
			return true
		}
		if !send(b) {
			return false
		}
		line += int64(len(b.ends))
		b = newBatch(line, off)
		return true
	}
	for {
		chunk, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) || len(chunk) > o.MaxLineBytes {
			// A long line: decoded here, alone in its batch.
			if !flush() {
				return
			}
			pb, eof := s.longLine(br, chunk, err, line, off, o, p)
			off += pb.size
			line++
			s.endOffset = off
			if !send(pb) || eof || s.err != nil {
				return
			}
			b = newBatch(line, off)
			continue
		}
		if len(chunk) > 0 {
			b.buf = append(b.buf, chunk...)
			b.ends = append(b.ends, len(b.buf))
			off += int64(len(chunk))
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				s.err, s.endOffset = err, off
			}
			if len(b.ends) > 0 {
				send(b)
			} else {
				close(b.done)
			}
			return
		}
		if len(b.buf) >= batchBytes || len(b.ends) >= batchLines || s.live && br.Buffered() == 0 {
			if !flush() {
				return
			}
		}
	}
}
