package audit

import (
	"bufio"
	"container/heap"
	"fmt"
	"io"
	"sort"
	"time"
)

// A file out of time order is read twice. The first pass decodes it all
// and notes, for each chunk of about chunkEvents events, where it lies in
// the file and its earliest and latest stageTimestamp. The second reads
// the chunks back in the order of their earliest event, each sorted in
// memory, and gives the earliest event held while no chunk not yet read
// could hold an earlier one: newest-first logs and logs one after the
// other hold one or two chunks at a time. At most maxHeld events are held;
// a file whose chunks all overlap (shuffled lines) gives the rest late
// (Stats.Late). A gzip file is decompressed again up to each chunk.
var (
	chunkEvents = 8192
	// maxChunksHeld bounds what is held: maxChunksHeld*chunkEvents events.
	maxChunksHeld = 8
)

type chunk struct {
	off, end  int64
	firstLine int64
	min, max  time.Time
	n         int
}

type sortedFile struct {
	p   *pipeline
	src Source
	st  *Stats

	prepared bool
	gzip     bool
	chunks   []chunk
	next_    int
	cutEnd   *CutSource

	h       eventHeap
	pool    pool
	seq     int64
	last    time.Time
	emitted *held
}

func (f *sortedFile) cut() *CutSource { return f.cutEnd }

func (f *sortedFile) next() (*Event, error) {
	if !f.prepared {
		if err := f.prepare(); err != nil {
			return nil, err
		}
	}
	if f.emitted != nil {
		f.pool.put(f.emitted)
		f.emitted = nil
	}
	for f.next_ < len(f.chunks) {
		c := f.chunks[f.next_]
		if len(f.h) > 0 && (c.min.After(f.h[0].e.StageTimestamp) || len(f.h)+c.n > maxChunksHeld*chunkEvents) {
			break
		}
		if err := f.load(c); err != nil {
			return nil, err
		}
		f.next_++
	}
	if len(f.h) == 0 {
		return nil, nil
	}
	x := heap.Pop(&f.h).(*held)
	if x.e.StageTimestamp.Before(f.last) {
		f.st.Late++
	} else {
		f.last = x.e.StageTimestamp
	}
	f.emitted = x
	return &x.e, nil
}

// open opens the file again, decompressed, at off.
func (f *sortedFile) open(off int64) (io.Reader, io.Closer, error) {
	rc, err := f.src.Open()
	if err != nil {
		return nil, nil, fmt.Errorf("reading %s again to put it in time order: %w", f.src.Name, err)
	}
	br := bufio.NewReaderSize(rc, readBuf)
	r, gz, err := Decompressed(br)
	if err != nil {
		rc.Close()
		return nil, nil, fmt.Errorf("reading %s again: %w", f.src.Name, err)
	}
	f.gzip = gz
	if off > 0 {
		if _, err := io.CopyN(io.Discard, r, off); err != nil {
			rc.Close()
			return nil, nil, fmt.Errorf("reading %s again: %w", f.src.Name, err)
		}
	}
	return r, rc, nil
}

// prepare is the first pass: the chunks and how the file is ordered.
func (f *sortedFile) prepare() error {
	f.prepared = true
	r, c, err := f.open(0)
	if err != nil {
		return err
	}
	defer c.Close()
	s := f.p.start(f.src.Name, r, false, false, 1, 0)
	var scratch Stats
	var asc, desc int64
	var prev time.Time
	cur := chunk{firstLine: 1}
	for b := s.nextBatch(f.p.ctx, &scratch); b != nil; b = s.nextBatch(f.p.ctx, &scratch) {
		for i := range b.events {
			t := b.events[i].StageTimestamp
			if cur.n == 0 || t.Before(cur.min) {
				cur.min = t
			}
			if t.After(cur.max) {
				cur.max = t
			}
			cur.n++
			switch {
			case prev.IsZero():
			case t.After(prev):
				asc++
			case t.Before(prev):
				desc++
			}
			prev = t
		}
		cur.end = b.offset + b.size
		next := b.first + int64(len(b.ends))
		if b.pre {
			next = b.first + 1
		}
		release(b)
		if cur.n >= chunkEvents {
			f.chunks = append(f.chunks, cur)
			cur = chunk{off: cur.end, firstLine: next}
		}
	}
	if cur.end > cur.off {
		f.chunks = append(f.chunks, cur)
	}
	if f.p.ctx.Err() != nil {
		f.chunks = nil // interrupted in the first pass: nothing to give
		return nil
	}
	f.cutEnd = s.cutSource()
	sort.SliceStable(f.chunks, func(i, j int) bool { return f.chunks[i].min.Before(f.chunks[j].min) })
	order := "not in time order"
	if desc > 4*asc {
		order = "newest first"
	}
	f.st.Sorted = append(f.st.Sorted, SortedSource{Source: f.src.Name, Order: order})
	return nil
}

// load reads one chunk back, every event held.
func (f *sortedFile) load(c chunk) error {
	r, cl, err := f.open(c.off)
	if err != nil {
		return err
	}
	defer cl.Close()
	s := f.p.start(f.src.Name, io.LimitReader(r, c.end-c.off), false, false, c.firstLine, c.off)
	for e := s.next(f.p.ctx, f.st); e != nil; e = s.next(f.p.ctx, f.st) {
		x := f.pool.get()
		x.e, x.seq = *e, f.seq
		f.seq++
		heap.Push(&f.h, x)
	}
	return nil
}
