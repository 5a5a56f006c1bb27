package watchstream

import (
	"fmt"
	"strconv"

	"github.com/watchrv/kubectl-watchrv/internal/rv"
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
)

// The Watch contract, as every API server keeps it:
//
//   - a watch sends only objects the request asked for (its namespace,
//     selectors and NAME);
//   - an initial state (a watch from RV unset or 0, or a streaming list)
//     comes in key order, not RV order; where the server ends it with an
//     initial-events-end bookmark (a streaming list always; a watch from
//     RV unset or 0 where the server sends one, docs/watch.md), the state
//     is the collection at that bookmark's RV, so no object of it is newer
//     than that RV;
//   - every change after the state (or of a watch from an exact RV) is
//     after that RV: the RV the watch started from, the initial-events-end
//     bookmark's, the change before it, and any bookmark before it (a
//     bookmark says every change up to its RV was sent).
//
// Contract judges one stream's events by it: the one judge for every
// reader of a stream (watch and --follow, streaming), as listing's
// contract.go is for every reader of a list (adversary try 20 #4: after a
// streaming list's "state complete at RV 100", changes at RV 50 and 60
// passed, the state held objects at RV 500 and 600, and a change after a
// bookmark at 200 went back to 150, all exit 0).
type Contract struct {
	excludes func(apiclient.ItemMeta) apiclient.Exclusion
	// inState: the stream is sending an initial state, in key order, so
	// there is no order to judge. The state ends at an initial-events-end
	// bookmark, whatever the request (a streaming list, or a watch from RV
	// unset or 0 on a server that sends one); a stream that sends none
	// (a watch from RV unset or 0 on a server that marks no end) is left
	// unordered to its end.
	inState bool
	floor   floor
	// newest is the newest RV of the state, and whose it is: its end
	// bookmark's RV must not be older.
	newest     uint64
	newestName string
	// belowBookmark is the RV of the bookmark the last event judged went
	// below ("" when it did not).
	belowBookmark string
}

// floor is the RV every next change must be after (ok false: none is
// known), and what set it, for the breach's words.
type floor struct {
	rv   uint64
	ok   bool
	what string
	// bookmark: a bookmark after the state set it.
	bookmark bool
}

// BelowBookmark is the RV of the bookmark the last event judged went below
// ("" when it did not): a breach that names a bookmark, which a reader
// that hides bookmarks must show with it.
func (c *Contract) BelowBookmark() string { return c.belowBookmark }

// DeliversState says whether a watch with these options starts with the
// collection's state as synthetic ADDED events (RV unset, "0", or a
// streaming list): sent in key order, not in RV order, so the highest RV
// seen in it says nothing about the objects not sent yet.
func (o Options) DeliversState() bool {
	return o.SendInitialEvents || !o.RVSet || o.ResourceVersion == "" || o.ResourceVersion == "0"
}

// NewContract is the contract of one stream of t opened with o.
func NewContract(t apiclient.Target, o Options) *Contract {
	c := &Contract{excludes: t.Matcher(), inState: o.DeliversState()}
	if n, ok := rv.Parse(o.ResourceVersion); ok && n > 0 && !c.inState {
		c.floor = floor{rv: n, ok: true, what: "the RV this watch started from"}
	}
	return c
}

// ResumableEnd reports whether at, the RV of an initial-events-end
// bookmark, is one a watch can resume from after the state: a storage's RV
// above 0 (a watch from "0" asks for a new state; none, or one not a
// decimal, no server starts from). The one rule for every reader of a
// state's end: watch --follow's resume point, streaming's informer.
func ResumableEnd(at string) bool {
	n, ok := rv.Parse(at)
	return ok && n > 0
}

// InState reports a stream still sending its initial state.
func (c *Contract) InState() bool { return c.inState }

// Judge says how ev breaks the contract ("" when it does not), and moves
// what the next events are held to. A streaming list's end bookmark ends
// the state even when it breaks the contract.
func (c *Contract) Judge(ev Event) string {
	switch ev.Type {
	case EventError:
		return ""
	case EventBookmark:
		return c.bookmark(ev)
	}
	c.belowBookmark = ""
	m := ev.Object
	if why := c.excludes(m).Why; why != "" {
		return "outside the request: " + why
	}
	n, ok := rv.Parse(m.ResourceVersion)
	switch {
	case !ok:
		return ""
	case c.inState:
		if n > c.newest {
			c.newest, c.newestName = n, apiclient.ObjectName(m)
		}
		return ""
	case c.floor.ok && n <= c.floor.rv:
		if c.floor.bookmark {
			c.belowBookmark = strconv.FormatUint(c.floor.rv, 10)
		}
		return fmt.Sprintf("out of order: RV %d is not after RV %d (%s)", n, c.floor.rv, c.floor.what)
	}
	c.floor = floor{rv: n, ok: true, what: "this stream's change before it"}
	return ""
}

// bookmark judges a bookmark: the end of an initial state (the
// initial-events-end bookmark, on any stream that sends a state), whose RV
// holds its objects and floors the changes after it, or a bookmark after
// the state, whose RV floors the changes after it (never lowering the
// floor). Another bookmark inside a state says nothing of it.
func (c *Contract) bookmark(ev Event) string {
	n, ok := rv.Parse(ev.Object.ResourceVersion)
	if c.inState {
		if !ev.IsInitialEventsEnd() {
			return ""
		}
		c.inState = false
		if !ok || c.newest > n {
			// An end whose RV is no storage's, or older than an object of
			// the state: the state is at least as new as its newest
			// object, so every change after it is after that (adversary
			// try 44 F1: after an end "abc", a change at 6 below the
			// state's 7 became the resume point).
			if c.newest > 0 {
				c.floor = floor{rv: c.newest, ok: true, what: "the newest object of the initial state, " + c.newestName}
			}
			if ok {
				return fmt.Sprintf("the initial state holds %s at RV %d, newer than its initial-events-end bookmark's RV %d", c.newestName, c.newest, n)
			}
			return ""
		}
		c.floor = floor{rv: n, ok: true, what: "the initial-events-end bookmark, the state's RV"}
		return ""
	}
	if !ok {
		return ""
	}
	if c.floor.ok && n < c.floor.rv {
		// A bookmark says every change up to its RV was sent: one below
		// a change or bookmark already sent goes back, and is no point
		// to resume from (adversary try 44 F1: a bookmark at 3 after a
		// state at 7 became the resume point).
		return fmt.Sprintf("out of order: the bookmark's RV %d is before RV %d (%s)", n, c.floor.rv, c.floor.what)
	}
	if c.floor.ok && n == c.floor.rv {
		return ""
	}
	c.floor = floor{rv: n, ok: true, what: "the bookmark before it", bookmark: true}
	return ""
}
