package clients

import "container/heap"

// Anyone can mint clients (a user agent is a header) and resources (a
// path is logged even when refused), so both are bounded: at most
// MaxClients clients are kept apart; when one more comes, the lightest
// (least load as the table ranks it, the longest untouched among equals)
// is folded into one entry that keeps its counts but not its patterns.
// A client gets to keep its place by being heavier than the others, not
// by coming first. Each client keeps at most maxResources resources apart,
// and all of them together maxAllResources; the rest count together as
// the client's otherResources.
const (
	DefaultMaxClients = 20_000
	maxResources      = 1000
	maxAllResources   = 100_000
)

// load is what the ranking compares (heavier), kept as a client goes.
type load struct {
	storage, objects, lists, requests int64
}

func (l load) less(o load) bool {
	switch {
	case l.storage != o.storage:
		return l.storage < o.storage
	case l.objects != o.objects:
		return l.objects < o.objects
	case l.lists != o.lists:
		return l.lists < o.lists
	}
	return l.requests < o.requests
}

// byLoad is a min-heap of the clients: the lightest on top.
type byLoad []*clientState

func (h byLoad) Len() int { return len(h) }
func (h byLoad) Less(i, j int) bool {
	a, b := h[i], h[j]
	if a.load != b.load {
		return a.load.less(b.load)
	}
	return a.touched < b.touched
}
func (h byLoad) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].idx, h[j].idx = i, j
}
func (h *byLoad) Push(x any) {
	c := x.(*clientState)
	c.idx = len(*h)
	*h = append(*h, c)
}
func (h *byLoad) Pop() any {
	old := *h
	c := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return c
}

// client is the state of client k, made (folding the lightest if the
// table is full) when it is new.
func (a *Analyzer) client(k clientKey) *clientState {
	c := a.clients[k]
	if c != nil {
		return c
	}
	if len(a.clients) >= a.o.MaxClients {
		a.foldLightest()
	}
	c = &clientState{key: k, resources: map[string]*resourceState{}}
	a.clients[k] = c
	heap.Push(&a.byLoad, c)
	return c
}

// touched re-ranks c after a request of it counted.
func (a *Analyzer) touched(c *clientState) {
	a.seq++
	c.touched = a.seq
	heap.Fix(&a.byLoad, c.idx)
}

func (a *Analyzer) foldLightest() {
	c := heap.Pop(&a.byLoad).(*clientState)
	delete(a.clients, c.key)
	if a.fold == nil {
		a.fold = &clientState{resources: map[string]*resourceState{}}
	}
	a.resources -= len(c.resources)
	for name, rs := range c.resources {
		a.resource(a.fold, name).totals.add(rs.totals)
	}
	a.fold.buckets.merge(&a.scale, &c.buckets)
	a.folded.add(c.key)
}

// resource is c's state of one resource; past maxResources (or
// maxAllResources in all), the one of every other resource together
// (whose patterns are not judged).
func (a *Analyzer) resource(c *clientState, name string) *resourceState {
	rs := c.resources[name]
	if rs != nil {
		return rs
	}
	if len(c.resources) >= maxResources || a.resources >= maxAllResources {
		name = otherResources
		if rs = c.resources[name]; rs != nil {
			return rs
		}
	}
	rs = &resourceState{noPatterns: name == otherResources}
	c.resources[name] = rs
	a.resources++
	return rs
}
