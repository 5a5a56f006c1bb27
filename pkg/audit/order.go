package audit

import (
	"container/heap"
	"hash/maphash"
	"strconv"
	"time"
)

// iterator gives one source's events in time order.
type iterator interface {
	// next is the next event (valid until the following call), nil at the
	// end; an error ends the read (a lateError: read the file sorted).
	next() (*Event, error)
	// cut says how the source ended when it ended early, nil otherwise.
	cut() *CutSource
}

// held is an event copied out of its batch, with its place in the input.
type held struct {
	e   Event
	seq int64
}

// eventHeap orders held events by stageTimestamp, then input order.
type eventHeap []*held

func (h eventHeap) Len() int { return len(h) }
func (h eventHeap) Less(i, j int) bool {
	a, b := h[i], h[j]
	if !a.e.StageTimestamp.Equal(b.e.StageTimestamp) {
		return a.e.StageTimestamp.Before(b.e.StageTimestamp)
	}
	return a.seq < b.seq
}
func (h eventHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *eventHeap) Push(x any)   { *h = append(*h, x.(*held)) }
func (h *eventHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return x
}

// pool recycles held events: a window holds a fixed number at a time.
type pool struct{ free []*held }

func (p *pool) get() *held {
	if n := len(p.free); n > 0 {
		h := p.free[n-1]
		p.free = p.free[:n-1]
		return h
	}
	return &held{}
}

func (p *pool) put(h *held) {
	h.e = Event{}
	p.free = append(p.free, h)
}

// window puts one stream in time order: it holds up to Options.Window
// events and gives the earliest. An event earlier than one already given
// came too late: a restartable file then asks to be read sorted
// (lateError); stdin's is given where it came and counted.
type window struct {
	s           *stream
	p           *pipeline
	st          *Stats
	src         int
	restartable bool

	h       eventHeap
	pool    pool
	bytes   int // of the held events' strings (heldBytes)
	last    time.Time
	maxSeq  int64
	seq     int64
	ended   bool
	emitted *held
}

// maxWindowBytes bounds what a window holds besides its count: fields are
// bounded (MaxField), but 32,768 events of long ones would still be a lot.
const maxWindowBytes = 32 << 20

// heldBytes is about what an event's strings take.
func heldBytes(e *Event) int {
	n := 400 + len(e.Level) + len(e.AuditID) + len(e.Stage) + len(e.RequestURI) + len(e.Verb) + len(e.User.Username) + len(e.UserAgent) + len(e.ResponseRV) + len(e.Query.Path) + len(e.Query.ResourceVersion)
	for _, ip := range e.SourceIPs {
		n += len(ip)
	}
	if o := e.ObjectRef; o != nil {
		n += len(o.Resource) + len(o.Namespace) + len(o.Name) + len(o.APIGroup) + len(o.APIVersion) + len(o.Subresource)
	}
	return n
}

func (w *window) next() (*Event, error) {
	if w.emitted != nil {
		w.bytes -= heldBytes(&w.emitted.e)
		w.pool.put(w.emitted)
		w.emitted = nil
	}
	for !w.ended && len(w.h) < w.p.o.Window && w.bytes < maxWindowBytes {
		e := w.s.next(w.p.ctx, w.st)
		if e == nil {
			w.ended = true
			break
		}
		x := w.pool.get()
		x.e, x.seq = *e, w.seq
		w.seq++
		w.bytes += heldBytes(e)
		heap.Push(&w.h, x)
	}
	if len(w.h) == 0 {
		return nil, nil
	}
	x := heap.Pop(&w.h).(*held)
	if x.e.StageTimestamp.Before(w.last) {
		if w.restartable {
			return nil, &lateError{i: w.src}
		}
		w.st.Late++
	} else {
		w.last = x.e.StageTimestamp
	}
	if x.seq < w.maxSeq {
		w.st.Reordered++
	} else {
		w.maxSeq = x.seq
	}
	w.emitted = x
	return &x.e, nil
}

func (w *window) cut() *CutSource { return w.s.cutSource() }

func (s *stream) cutSource() *CutSource {
	if !s.ended || s.err == nil {
		return nil
	}
	return &CutSource{Source: s.name, Lines: s.lines, Bytes: s.endOffset, End: DescribeEnd(s.err)}
}

// dedupe recognizes an event seen among the last n (by a hash of every
// field an Event has): the same event twice is one event.
type dedupe struct {
	seed maphash.Seed
	ring []uint64 // grows to max, then turns
	max  int
	pos  int
	set  map[uint64]int32
}

func newDedupe(n int) *dedupe {
	return &dedupe{seed: maphash.MakeSeed(), max: n, set: map[uint64]int32{}}
}

func (d *dedupe) seen(e *Event) bool {
	var h maphash.Hash
	h.SetSeed(d.seed)
	for _, s := range []string{e.Level, e.AuditID, e.Stage, e.RequestURI, e.Verb, e.User.Username, e.UserAgent, e.ResponseRV} {
		h.WriteString(s)
		h.WriteByte(0)
	}
	for _, ip := range e.SourceIPs {
		h.WriteString(ip)
		h.WriteByte(1)
	}
	if o := e.ObjectRef; o != nil {
		for _, s := range []string{o.Resource, o.Namespace, o.Name, o.APIGroup, o.APIVersion, o.Subresource} {
			h.WriteString(s)
			h.WriteByte(2)
		}
	}
	h.WriteString(strconv.Itoa(e.Code()))
	h.WriteString(strconv.Itoa(e.Items))
	b, _ := e.StageTimestamp.MarshalBinary()
	h.Write(b)
	b, _ = e.RequestReceivedTimestamp.MarshalBinary()
	h.Write(b)
	sum := h.Sum64()
	if d.set[sum] > 0 {
		return true
	}
	if len(d.ring) < d.max {
		d.ring = append(d.ring, sum)
	} else {
		old := d.ring[d.pos]
		if d.set[old]--; d.set[old] <= 0 {
			delete(d.set, old)
		}
		d.ring[d.pos] = sum
		d.pos = (d.pos + 1) % len(d.ring)
	}
	d.set[sum]++
	return false
}
