package audit

import "container/heap"

// merge calls fn with every event of its, the earliest stageTimestamp
// first. Each iterator is already in time order; ties keep the order of
// the sources.
func merge(its []iterator, fn func(*Event) error) error {
	if len(its) == 1 {
		for {
			e, err := its[0].next()
			if e == nil || err != nil {
				return err
			}
			if err := fn(e); err != nil {
				return err
			}
		}
	}
	h := &heads{}
	for i, it := range its {
		e, err := it.next()
		if err != nil {
			return err
		}
		if e != nil {
			h.items = append(h.items, head{e: e, src: i})
		}
	}
	heap.Init(h)
	for h.Len() > 0 {
		top := h.items[0]
		if err := fn(top.e); err != nil {
			return err
		}
		e, err := its[top.src].next()
		if err != nil {
			return err
		}
		if e != nil {
			h.items[0].e = e
			heap.Fix(h, 0)
		} else {
			heap.Pop(h)
		}
	}
	return nil
}

type head struct {
	e   *Event
	src int
}

type heads struct{ items []head }

func (h *heads) Len() int { return len(h.items) }
func (h *heads) Less(i, j int) bool {
	a, b := h.items[i], h.items[j]
	if !a.e.StageTimestamp.Equal(b.e.StageTimestamp) {
		return a.e.StageTimestamp.Before(b.e.StageTimestamp)
	}
	return a.src < b.src
}
func (h *heads) Swap(i, j int) { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *heads) Push(x any)    { h.items = append(h.items, x.(head)) }
func (h *heads) Pop() any {
	x := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return x
}
