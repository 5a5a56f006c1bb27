package clients

import (
	"sort"
	"time"
)

// maxBuckets is the widest timeline: a longer log gets buckets of 2, 4,
// 8, ... minutes, chosen as the log goes, so that each client holds at most
// maxBuckets+1 buckets whatever the log's length.
const maxBuckets = 60

// timelineScale is the width of the buckets (minutes, a power of two) and
// the first and last minute of the log.
type timelineScale struct {
	width       int64
	first, last int64
	set         bool
}

// see takes the time of an event; the width doubles when the log's span no
// longer fits in maxBuckets.
func (s *timelineScale) see(t time.Time) {
	m := t.Unix() / 60
	if !s.set {
		s.width, s.first, s.last, s.set = 1, m, m, true
	}
	s.first, s.last = min(s.first, m), max(s.last, m)
	for s.last/s.width-s.first/s.width+1 > maxBuckets {
		s.width *= 2
	}
}

// bucket is one client's lists, watches and 410s in one bucket.
type bucket struct {
	idx int64 // minute / width
	n   [3]int64
}

// buckets are one client's, at its own width (brought to the scale's when
// it is touched: a doubling merges pairs).
type buckets struct {
	width int64
	b     []bucket
}

func (bs *buckets) rescale(width int64) {
	if bs.width == 0 {
		bs.width = width
	}
	for bs.width < width {
		bs.width *= 2
		out := bs.b[:0]
		for _, b := range bs.b {
			b.idx /= 2
			if n := len(out); n > 0 && out[n-1].idx == b.idx {
				for k := range b.n {
					out[n-1].n[k] += b.n[k]
				}
				continue
			}
			out = append(out, b)
		}
		bs.b = out
	}
}

// add counts n of kind (0 lists, 1 watches, 2 410s) at t; a time before
// the log's first minute (a watch that began earlier) counts in the first
// bucket.
func (bs *buckets) add(s *timelineScale, t time.Time, kind int, n int64) {
	bs.rescale(s.width)
	idx := max(t.Unix()/60, s.first) / s.width
	i := sort.Search(len(bs.b), func(i int) bool { return bs.b[i].idx >= idx })
	if i == len(bs.b) || bs.b[i].idx != idx {
		bs.b = append(bs.b, bucket{})
		copy(bs.b[i+1:], bs.b[i:])
		bs.b[i] = bucket{idx: idx}
	}
	bs.b[i].n[kind] += n
}

// merge adds o's buckets to bs (a folded client's).
func (bs *buckets) merge(s *timelineScale, o *buckets) {
	o.rescale(s.width)
	for _, b := range o.b {
		for k, n := range b.n {
			if n > 0 {
				bs.add(s, time.Unix(b.idx*s.width*60, 0), k, n)
			}
		}
	}
}

func (a *Analyzer) timeline(clients []Client, states []*clientState) Timeline {
	s := a.scale
	if !s.set {
		return Timeline{Clients: []TimelineClient{}}
	}
	first, last := s.first/s.width, s.last/s.width
	n := last - first + 1
	tl := Timeline{Start: time.Unix(first*s.width*60, 0).UTC(), BucketSeconds: s.width * 60, Clients: []TimelineClient{}}
	for i, c := range clients {
		if i >= a.o.Top {
			break
		}
		row := TimelineClient{Client: c.Name(), User: c.User, UserAgent: c.UserAgent, SourceIP: c.SourceIP,
			Lists: make([]int64, n), Watches: make([]int64, n), Expired: make([]int64, n)}
		bs := &states[i].buckets
		bs.rescale(s.width)
		for _, b := range bs.b {
			k := min(max(b.idx-first, 0), n-1)
			row.Lists[k] += b.n[0]
			row.Watches[k] += b.n[1]
			row.Expired[k] += b.n[2]
		}
		tl.Clients = append(tl.Clients, row)
	}
	return tl
}
