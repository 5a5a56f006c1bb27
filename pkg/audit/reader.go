package audit

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
)

// Source is one input: a file (plain or gzip, told apart by its first
// bytes, not its name) or stdin.
type Source struct {
	Name string
	R    io.Reader
}

// Options tune a read; the zero value is the default.
type Options struct {
	// MaxLineBytes is the longest line read (default 256 MiB: a
	// RequestResponse event holds a whole list response); a longer one is
	// skipped and counted.
	MaxLineBytes int
	// Workers decode lines in parallel (default GOMAXPROCS). Events still
	// reach the callback one at a time, in order.
	Workers int
}

// Stats is what a read saw.
type Stats struct {
	Lines   int64 `json:"lines"`
	Events  int64 `json:"events"`
	Wrapped int64 `json:"wrapped"`
	// Unreadable counts the lines not read as events, by reason.
	Unreadable map[string]int64 `json:"unreadable,omitempty"`
	// Examples are the first few unreadable lines, by position.
	Examples []BadLine `json:"examples,omitempty"`
}

// BadLine is the position of one unreadable line and why.
type BadLine struct {
	Source string `json:"source"`
	Line   int64  `json:"line"`
	Reason string `json:"reason"`
}

// UnreadableTotal is the number of unreadable lines.
func (s Stats) UnreadableTotal() int64 {
	var n int64
	for _, c := range s.Unreadable {
		n += c
	}
	return n
}

const maxExamples = 5

func (s *Stats) bad(src string, line int64, reason string) {
	if s.Unreadable == nil {
		s.Unreadable = map[string]int64{}
	}
	s.Unreadable[reason]++
	if len(s.Examples) < maxExamples {
		s.Examples = append(s.Examples, BadLine{Source: src, Line: line, Reason: reason})
	}
}

// Read streams every event of sources to fn, merged in time order
// (stageTimestamp: the order the log backend writes) across sources. A
// read error of a source (not a bad line: those are counted) ends the read
// with an error naming the source. fn's *Event is valid only during the call.
func Read(ctx context.Context, sources []Source, o Options, fn func(*Event) error) (Stats, error) {
	if o.MaxLineBytes <= 0 {
		o.MaxLineBytes = 256 << 20
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	work := make(chan *batch, o.Workers*2)
	var wg sync.WaitGroup
	for i := 0; i < o.Workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range work {
				b.decode()
				close(b.done)
			}
		}()
	}
	streams := make([]*stream, len(sources))
	var feeders sync.WaitGroup
	for i, src := range sources {
		streams[i] = &stream{name: src.Name, out: make(chan *batch, o.Workers+1)}
		feeders.Add(1)
		go func(s *stream, r io.Reader) {
			defer feeders.Done()
			s.feed(ctx, r, o.MaxLineBytes, work)
		}(streams[i], src.R)
	}
	go func() {
		feeders.Wait()
		close(work)
	}()
	var st Stats
	err := merge(streams, &st, fn)
	cancel()
	// Drain so that every feeder and worker ends.
	for _, s := range streams {
		for b := range s.out {
			<-b.done
		}
	}
	wg.Wait()
	if err == nil {
		for _, s := range streams {
			if s.err != nil {
				return st, fmt.Errorf("reading %s: %w", s.name, s.err)
			}
		}
	}
	return st, err
}

// batch is a run of lines of one source, decoded by a worker.
type batch struct {
	buf    []byte
	ends   []int // line i is buf[ends[i-1]:ends[i]]
	first  int64 // the number of the first line
	events []Event
	lineOf []int64 // the line number of events[i]
	bad    []BadLine
	wraps  int64
	lines  int64
	done   chan struct{}
}

const batchBytes = 1 << 20

// batches are reused: a read holds a few per source at a time, whatever
// the log's size, and allocating one per megabyte would be most of the
// garbage of a read.
var batches = sync.Pool{New: func() any { return &batch{buf: make([]byte, 0, batchBytes+4096)} }}

func newBatch(first int64) *batch {
	b := batches.Get().(*batch)
	b.buf, b.ends, b.events, b.lineOf, b.bad = b.buf[:0], b.ends[:0], b.events[:0], b.lineOf[:0], b.bad[:0]
	b.first, b.wraps, b.lines, b.done = first, 0, 0, make(chan struct{})
	return b
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
		b.lines++
		if line[0] == 0 { // a placeholder for a skipped over-long line
			b.bad = append(b.bad, BadLine{Line: b.first + int64(i), Reason: ReasonTooLong})
			continue
		}
		wrapped, reason := Decode(line, &e)
		if reason != "" {
			b.bad = append(b.bad, BadLine{Line: b.first + int64(i), Reason: reason})
			continue
		}
		if wrapped {
			b.wraps++
		}
		b.events = append(b.events, e)
		b.lineOf = append(b.lineOf, b.first+int64(i))
	}
}

// stream is one source cut into batches, in order.
type stream struct {
	name string
	out  chan *batch
	err  error

	cur *batch
	pos int
}

func (s *stream) feed(ctx context.Context, r io.Reader, maxLine int, work chan<- *batch) {
	defer close(s.out)
	br := bufio.NewReaderSize(r, 1<<20)
	if magic, err := br.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			s.err = err
			return
		}
		defer gz.Close()
		br = bufio.NewReaderSize(gz, 1<<20)
	}
	var line int64 = 1
	b := newBatch(line)
	send := func() bool {
		select {
		case s.out <- b:
		case <-ctx.Done():
			close(b.done)
			return false
		}
		select {
		case work <- b:
		case <-ctx.Done():
			// The batch is in out: mark it done so the drain ends.
			close(b.done)
			return false
		}
		line += int64(len(b.ends))
		b = newBatch(line)
		return true
	}
	for {
		chunk, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the reader's buffer: gather it, up to
			// maxLine; a longer one leaves a placeholder to be counted.
			n, size, long := len(b.buf), 0, false
			for {
				size += len(chunk)
				long = long || size > maxLine
				if !long {
					b.buf = append(b.buf, chunk...)
				}
				if !errors.Is(err, bufio.ErrBufferFull) {
					break
				}
				chunk, err = br.ReadSlice('\n')
			}
			if long {
				b.buf = append(b.buf[:n], 0)
			}
			b.ends = append(b.ends, len(b.buf))
		} else if len(chunk) > maxLine {
			b.buf = append(b.buf, 0)
			b.ends = append(b.ends, len(b.buf))
		} else if len(chunk) > 0 {
			b.buf = append(b.buf, chunk...)
			b.ends = append(b.ends, len(b.buf))
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				s.err = err
			}
			if len(b.ends) > 0 {
				send()
			} else {
				close(b.done)
			}
			return
		}
		if len(b.buf) >= batchBytes || len(b.ends) >= 4096 {
			if !send() {
				return
			}
		}
	}
}

// next returns the stream's next event, or nil at its end; it waits for
// each batch's decode and adds the batch's counts to st.
func (s *stream) next(st *Stats) *Event {
	for s.cur == nil || s.pos >= len(s.cur.events) {
		b, ok := <-s.out
		if !ok {
			return nil
		}
		<-b.done
		st.Lines += b.lines
		st.Wrapped += b.wraps
		for _, bl := range b.bad {
			st.bad(s.name, bl.Line, bl.Reason)
		}
		st.Events += int64(len(b.events))
		if s.cur != nil {
			// No event of the previous batch is in use any more: fn's
			// *Event is valid only during the call, and the merge holds
			// one event per source, now in b.
			batches.Put(s.cur)
		}
		s.cur, s.pos = b, 0
	}
	e := &s.cur.events[s.pos]
	s.pos++
	return e
}
