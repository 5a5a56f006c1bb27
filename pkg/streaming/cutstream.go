package streaming

import (
	"fmt"
	"time"

	"github.com/watchrv/kubectl-watchrv/internal/text"
)

// cutStream is what a streaming watch held open without the
// initial-events-end bookmark had sent when the deadline closed it.
type cutStream struct {
	// Objects is the informer's store; ListCount the consistent list's
	// count (nil when the list failed); Changes the MODIFIED and DELETED
	// events (ChangesBeforeEnd).
	Objects   int
	ListCount *int
	Changes   int
	// FirstObject and LastObject are the times of the first and last
	// object event (zero: none came); LastGrowth that of the last one
	// that added an object the store did not hold: the state growing.
	FirstObject, LastObject, LastGrowth time.Time
	// At is when the deadline closed the stream, Deadline its length.
	At       time.Time
	Deadline time.Duration
}

// silenceFraction: a stream's state is "still arriving" at the deadline
// when a new object came within the last 1/silenceFraction of it (2.5s
// of the default 10s).
const silenceFraction = 4

// cutShape is one shape a stream cut by the deadline can have, and what
// it means.
type cutShape struct {
	name string
	is   func(c cutStream) bool
	// arriving: the deadline cut a stream still sending its initial
	// state: the check could not be made (no answer, exit 4: a longer
	// deadline sees it end). Otherwise the stream sent what it had and
	// no bookmark: an informer waits for it for ever (hangs, exit 1),
	// whatever the deadline.
	arriving bool
	// says is the shape in the words of a verdict ("" for arriving: its
	// WatchDeadlineError says it).
	says func(c cutStream) string
}

// cutShapes are the shapes, first match wins. A stream is "arriving"
// while its store grew recently (a new object within the deadline's last
// quarter), whatever the list's count: a collection that grew between
// the check's list and its stream holds more than the list did before
// the bookmark, and a stream cut while it still adds new objects is a
// live one (judging "the whole state" first called it "will hang", exit
// 1, at a deadline a longer one passes: adversary try 23 F1). One that
// sent the whole state and then, for the deadline's last quarter, no new
// object (only changes, or nothing) is what a server that ignores
// sendInitialEvents sends (a legacy watch: the state as ADDED, then
// changes, never the bookmark), on which a client-go >= 1.35 informer
// hangs; judging by the last object event alone called it "still
// sending", exit 4, at any deadline (adversary try 22 F7).
var cutShapes = []cutShape{
	{name: "nothing sent", is: func(c cutStream) bool { return c.LastObject.IsZero() },
		says: func(cutStream) string { return "no initial-events-end bookmark within the deadline, and no object" }},
	{name: "the state still arriving", is: cutStream.growing, arriving: true},
	{name: "the whole state, then no bookmark", is: cutStream.wholeState,
		says: func(c cutStream) string {
			return fmt.Sprintf("no initial-events-end bookmark after the whole state (%s) and %s", c.ofList(), text.Count(c.Changes, "change"))
		}},
	{name: "part of the state, then no new object", is: func(cutStream) bool { return true },
		says: func(c cutStream) string {
			since := c.LastGrowth
			if since.IsZero() {
				since = c.FirstObject // it never grew: only deletions
			}
			return fmt.Sprintf("no initial-events-end bookmark: %s, then no new object in the last %s before the deadline, and %s", c.ofList(),
				c.At.Sub(since).Round(100*time.Millisecond), text.Count(c.Changes, "change"))
		}},
}

// wholeState: the store holds at least the list's count.
func (c cutStream) wholeState() bool { return c.ListCount != nil && c.Objects >= *c.ListCount }

// growing: a new object came within the last part of the deadline.
func (c cutStream) growing() bool {
	return !c.LastGrowth.IsZero() && c.At.Sub(c.LastGrowth) <= c.Deadline/silenceFraction
}

// ofList is the store's size against the list's: "2 of the list's 2",
// "11 objects, more than the list's 2", "3 objects" (no list).
func (c cutStream) ofList() string {
	switch {
	case c.ListCount == nil:
		return text.Count(c.Objects, "object")
	case c.Objects > *c.ListCount:
		return fmt.Sprintf("%s, more than the list's %d", text.Count(c.Objects, "object"), *c.ListCount)
	}
	return fmt.Sprintf("%d of the list's %d", c.Objects, *c.ListCount)
}

// shape is c's shape: the one judgement of a stream the deadline cut.
func (c cutStream) shape() cutShape {
	for _, s := range cutShapes {
		if s.is(c) {
			return s
		}
	}
	return cutShapes[len(cutShapes)-1]
}

// judgeCut records on r what the deadline found: a stream still sending
// its state (r.Err, no answer), or one that stalled without the bookmark
// (r.stall, the first words of Judge's "hangs").
func judgeCut(r *Result, c cutStream) {
	s := c.shape()
	if !s.arriving {
		r.stall = s.says(c)
		return
	}
	a := &Arrival{Objects: c.Objects, ListCount: c.ListCount, LastAgo: max(c.At.Sub(c.LastObject), 0)}
	if d := c.At.Sub(c.FirstObject); d > 0 {
		a.PerSecond = float64(c.Objects) / d.Seconds()
	}
	r.Err = &WatchDeadlineError{Resource: r.Resource, Deadline: c.Deadline, Arriving: a}
	r.Error = r.Err.Error()
}

// Stall is what a stream held open without the bookmark had sent when
// the deadline closed it ("" for any other stream): a row's note.
func (r Result) Stall() string { return r.stall }
