package audit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"time"
)

// Source is one input: a file (plain or gzip, told apart by its first
// bytes, not its name) or stdin.
type Source struct {
	Name string
	R    io.Reader
	// Open reads the source again from its start: a file; nil for one
	// that cannot be read twice (stdin). A file not in time order is read
	// again to be put in order (see Read).
	Open func() (io.ReadCloser, error)
}

// Options tune a read; the zero value is the default.
type Options struct {
	// MaxLineBytes is the longest line read (default 256 MiB: a
	// RequestResponse event holds a whole list response); a longer one is
	// skipped and counted. Memory does not grow with it: a line longer
	// than a few MiB is read in one pass, not held.
	MaxLineBytes int
	// Workers decode lines in parallel (default GOMAXPROCS). Events still
	// reach the callback one at a time, in order.
	Workers int
	// Window is how many events of each source are held to put them in
	// time order (default 32768): a log written out of order by less
	// comes out in order.
	Window int
	// Restart, when set, is called before the read starts again because a
	// file was found out of time order beyond the window (newest first, or
	// two logs one after the other): the callback must forget every event
	// it was given. Without it, or for stdin, such events are given where
	// they come and counted (Stats.Late).
	Restart func()
}

func (o *Options) defaults() {
	if o.MaxLineBytes <= 0 {
		o.MaxLineBytes = 256 << 20
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.Window <= 0 {
		o.Window = 32768
	}
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
	// Duplicates are events given once though the input held them more
	// than once (every field the same: a file given twice, overlapping
	// exports, a shipper's retries).
	Duplicates int64 `json:"duplicates,omitempty"`
	// Reordered are events that came before earlier ones and were put
	// back in time order within the window.
	Reordered int64 `json:"reordered,omitempty"`
	// Late are events that came after later ones, beyond the window, and
	// were given where they came (stdin, which cannot be read twice).
	Late int64 `json:"late,omitempty"`
	// Sorted are the files read twice to be put in time order.
	Sorted []SortedSource `json:"sorted,omitempty"`
	// Cut are the sources that ended early (a gzip stream cut short, a
	// read error): what was read before counts.
	Cut []CutSource `json:"cut,omitempty"`
	// Interrupted: the context ended the read; the events read before
	// were given.
	Interrupted bool `json:"interrupted,omitempty"`
}

// SortedSource is a file that was not in time order.
type SortedSource struct {
	Source string `json:"source"`
	// Order is how it was written: "newest first" or "not in time order".
	Order string `json:"order"`
}

// CutSource is a source that ended early.
type CutSource struct {
	Source string `json:"source"`
	// Lines were read before the end.
	Lines int64 `json:"lines"`
	// Bytes of the source (decompressed) were read before the end.
	Bytes int64 `json:"bytes"`
	// End says how it ends.
	End string `json:"end"`
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

// Read streams every event of sources to fn in time order (stageTimestamp:
// the order the log backend writes), merged across sources, each event once
// (Stats.Duplicates). Each source is put in order within a window of
// events; a file out of order beyond it (newest first, two logs one after
// the other) is read again in chunks merged in time order, after
// o.Restart. A bad line, and a source that ends early (a cut gzip stream,
// a read error), are counted, never fatal. fn's *Event is valid only
// during the call; an error from fn ends the read with it. When ctx ends,
// the events already read are given and Read returns ctx's error with the
// stats so far.
func Read(ctx context.Context, sources []Source, o Options, fn func(*Event) error) (Stats, error) {
	o.defaults()
	// A read starts again only when every source can be read again: stdin
	// beside a file out of order is read once, the file's late events
	// counted.
	restartable := o.Restart != nil
	for _, src := range sources {
		restartable = restartable && src.Open != nil
	}
	sorted := map[int]bool{}
	for attempt := 0; ; attempt++ {
		st, late, err := readOnce(ctx, sources, &o, restartable, attempt, sorted, fn)
		var l *lateError
		if !errors.As(err, &l) {
			return st, err
		}
		sorted[late] = true
		o.Restart()
	}
}

// lateError: source i is a file out of time order, to be read sorted.
type lateError struct{ i int }

func (*lateError) Error() string { return "a file out of time order" }

func readOnce(ctx context.Context, sources []Source, o *Options, restartable bool, attempt int, sorted map[int]bool, fn func(*Event) error) (st Stats, late int, err error) {
	p := newPipeline(ctx, o)
	defer p.stop()
	its := make([]iterator, len(sources))
	for i, src := range sources {
		if sorted[i] {
			its[i] = &sortedFile{p: p, src: src, st: &st}
			continue
		}
		r := src.R
		if attempt > 0 {
			// The first read consumed src.R: from the start again.
			rc, err := src.Open()
			if err != nil {
				return st, -1, fmt.Errorf("reading %s again: %w", src.Name, err)
			}
			defer rc.Close()
			r = rc
		}
		s := p.start(src.Name, r, true, src.Open == nil, 1, 0)
		its[i] = &window{s: s, p: p, st: &st, restartable: restartable, src: i}
	}
	d := newDedupe(o.Window)
	err = merge(its, func(e *Event) error {
		if d.seen(e) {
			st.Duplicates++
			return nil
		}
		return fn(e)
	})
	var l *lateError
	if errors.As(err, &l) {
		return st, l.i, err
	}
	for i, it := range its {
		if c := it.cut(); c != nil {
			c.Source = sources[i].Name
			st.Cut = append(st.Cut, *c)
		}
	}
	if ctx.Err() != nil {
		st.Interrupted = true
		if err == nil {
			err = ctx.Err()
		}
	}
	return st, -1, err
}

// pipeline is the decoding workers and the gather slots of one read.
type pipeline struct {
	// ctx ends the feeders: when the read's context ends, or at stop.
	ctx    context.Context
	cancel context.CancelFunc
	// quit ends the workers, at stop only: until then every batch a feeder
	// queued is decoded, so that an interrupted read gives what it read.
	quit   chan struct{}
	o      *Options
	work   chan *batch
	gather chan struct{}
}

func newPipeline(ctx context.Context, o *Options) *pipeline {
	fctx, cancel := context.WithCancel(ctx)
	p := &pipeline{ctx: fctx, cancel: cancel, quit: make(chan struct{}), o: o, work: make(chan *batch, o.Workers*2), gather: make(chan struct{}, gathers)}
	for i := 0; i < o.Workers; i++ {
		go func() {
			for {
				select {
				case b := <-p.work:
					b.decode()
					close(b.done)
				case <-p.quit:
					return
				}
			}
		}()
	}
	return p
}

// stop ends the feeders (one blocked on a pipe's read stays so until the
// process ends: a read cannot be cancelled) and the workers.
func (p *pipeline) stop() {
	p.cancel()
	close(p.quit)
}

// start feeds r into a new stream.
func (p *pipeline) start(name string, r io.Reader, detect, live bool, firstLine, offset int64) *stream {
	s := newStream(name, detect, firstLine, offset)
	s.live = live
	go s.feed(p.ctx, r, p.o, p)
	return s
}

// next returns the stream's next event, or nil at its end; it waits for
// each batch's decode and adds the batch's counts to st.
func (s *stream) next(ctx context.Context, st *Stats) *Event {
	for s.cur == nil || s.pos >= len(s.cur.events) {
		b := s.nextBatch(ctx, st)
		if b == nil {
			return nil
		}
		if s.cur != nil {
			// No event of the previous batch is in use any more: the
			// window copies each.
			release(s.cur)
		}
		s.cur, s.pos = b, 0
	}
	e := &s.cur.events[s.pos]
	s.pos++
	return e
}

// nextBatch is the stream's next decoded batch, its counts added to st;
// nil at the end. Once ctx has ended it gives only what is already read.
func (s *stream) nextBatch(ctx context.Context, st *Stats) *batch {
	var b *batch
	var ok bool
	if !s.stop {
		select {
		case b, ok = <-s.out:
		case <-ctx.Done():
			s.stop = true
		}
	}
	// Stopped: what the feeder has read, until it ends or waits in a read
	// of a live source (a pipe that stays open).
	for s.stop {
		select {
		case b, ok = <-s.out:
		default:
			if s.reading.Load() {
				return nil
			}
			time.Sleep(time.Millisecond)
			continue
		}
		break
	}
	if !ok {
		s.ended = true
		return nil
	}
	<-b.done
	s.lines += b.lines
	st.Lines += b.lines
	st.Wrapped += b.wraps
	for _, bl := range b.bad {
		st.bad(s.name, bl.Line, bl.Reason)
	}
	st.Events += int64(len(b.events))
	return b
}
