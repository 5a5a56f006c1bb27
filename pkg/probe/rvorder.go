package probe

import (
	"context"
	"fmt"
	"strings"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/listing"
)

// The order of the RVs a run saw. On one API server (one etcd) an RV
// never goes back: a current RV read later is at or above every RV the
// server showed before it (a current RV read earlier, the oldest RV its
// watch cache named in a 410, an event it replayed, a change a watch
// lost), and the oldest RV its watch cache names only moves forward.
// RVs out of that order are no numbers to report, nor to compute a window
// or a rate from: they are the sign that different API servers answered
// behind one address (a list from one, a watch from another, one behind
// the other), or that etcd was restored from a backup (adversary try 19:
// a current RV going back 700 a round read as "-699.8 RV/s" and "nothing
// was written"; a 410 naming RV 5000 above the listed current RV 1000
// made CURRENT RV 5000, a number no request returned). rvOrder is the one
// place that orders them: for one probe (settleCurrent: Run, --all's one
// watch), for the rounds of a series (MeasureMotion), and for the signs
// of mixed servers a probe shows (WindowSigns, pkg/servers).

// rvOrder puts the RVs of one run in order, as they came.
type rvOrder struct {
	highest     uint64 // the highest RV seen so far, and what showed it
	highestWhat string
	oldest      uint64 // the highest oldest RV a watch cache named
	// back: the first current RV read below an RV seen before it (no
	// number to report), and how many were; windowBack: an oldest RV
	// named below one named before (a sign of mixed servers, the probe
	// still answers).
	back       []string
	backs      int
	windowBack []string
}

// saw notes rv, which what ("RV 5001, of the event ...") showed exists:
// every current RV read after it is at or above it.
func (o *rvOrder) saw(rv uint64, what string) {
	if rv > o.highest {
		o.highest, o.highestWhat = rv, what
	}
}

// current notes rv, a current RV that who read (a consistent list):
// false, and the sign noted, when an RV seen before it is higher.
func (o *rvOrder) current(rv uint64, who string) bool {
	if rv < o.highest {
		if o.backs++; len(o.back) == 0 {
			o.back = append(o.back, fmt.Sprintf("%s read the current RV %d, below %s", who, rv, o.highestWhat))
		}
		return false
	}
	o.saw(rv, fmt.Sprintf("the current RV %d %s read", rv, who))
	return true
}

// signs are the RVs out of order, said: the first, and how many more.
func (o *rvOrder) signs() []string {
	if o.backs > len(o.back) {
		more := o.backs - len(o.back)
		them := "them"
		if more == 1 {
			them = "it"
		}
		return append(o.back, fmt.Sprintf("and %s below an RV read before %s", text.Count(more, "more current RV"), them))
	}
	return o.back
}

// try notes the RVs a watch of the search showed: the oldest RV a watch
// cache named, the event it replayed, the newest RV a drained watch read,
// the change it lost, and the RV above one refused with 410 (the window
// had moved past it, so the server holds a newer RV: fresh user try 22
// #1, storage compacted above the current RV a list read before).
func (o *rvOrder) try(t Try) {
	from := t.ResourceVersion
	if t.Outcome == OutcomeExpired && from > 0 {
		o.saw(from+1, fmt.Sprintf("RV %d at least, as a probe found RV %d expired (the window had moved past it)", from+1, from))
	}
	if y := t.OldestNamed; y > 0 {
		if y < o.oldest {
			o.windowBack = append(o.windowBack, fmt.Sprintf("one watch cache named RV %d as its oldest, a later one RV %d: the window went backwards", o.oldest, y))
		}
		o.oldest = max(o.oldest, y)
		o.saw(y, fmt.Sprintf("RV %d, the oldest the watch cache named to a watch from RV %d", y, from))
	}
	if r := t.EventRV; r > 0 {
		o.saw(r, fmt.Sprintf("RV %d, of the event a watch from RV %d replayed", r, from))
	}
	if r := t.ReadTo; r > 0 {
		o.saw(r, fmt.Sprintf("RV %d, the newest a watch from RV %d read", r, from))
	}
	if r := t.LostAt; r > 0 {
		o.saw(r, fmt.Sprintf("RV %d, of the change a watch from RV %d lost", r, from))
	}
}

// OutOfOrderError: the RVs a run read go back, as no one API server's
// do: no window, current RV or rate is given from them.
type OutOfOrderError struct {
	// Signs say each RV out of order, and what read it.
	Signs []string
}

// ContractBreach: RVs that go back break the List and Watch contract
// (diagnose.BrokeContract), whoever behind the address answered.
func (e *OutOfOrderError) ContractBreach() bool { return true }

func (e *OutOfOrderError) Error() string {
	return "the RVs the answers gave go back (" + strings.Join(e.Signs, "; ") + "), which one API server never does: different API servers answered behind this address (a list from one, a watch from another), or etcd was restored from a backup; no window or rate is given from them"
}

// probes are every watch of the result, in the order they were sent: the
// search's, then the verification's.
func (w *Result) probes() []Try {
	var out []Try
	if w.Search != nil {
		out = append(out, w.Search.Probes...)
	}
	if v := w.Verify; v != nil {
		out = append(out, v.rows("")...)
	}
	return out
}

// settleCurrent makes the current RV w reports one a list answered at or
// above every RV its watches showed. When a watch showed a higher RV (the
// oldest a 410 named, an event replayed: the window moved past the RV
// first read, or another server answered), the current RV is read once
// more (one request of the budget): at or above them, it is the current
// RV, and the window's width is to it; below them, the RVs went back, and
// w is an *OutOfOrderError, its bound not found (a width to a current RV
// no request returned is no width).
// reread says whether the current RV was read again.
func settleCurrent(ctx context.Context, c *apiclient.Client, t apiclient.Target, w *Result, o SearchOptions) (reread bool, err error) {
	var order rvOrder
	order.current(w.Current, "the list")
	for _, p := range w.probes() {
		order.try(p)
	}
	if order.highest <= w.Current {
		return false, nil
	}
	cur, raw, _, err := ReadCurrent(ctx, c, t, listing.CurrentOptions{Budget: o.Budget, Retry: o.Retry})
	if err != nil {
		return true, err
	}
	if !order.current(cur, "a second list") {
		w.Search.Found, w.Search.BoundBy = false, ""
		return true, &OutOfOrderError{Signs: order.signs()}
	}
	w.Current, w.CurrentRaw, w.Search.Current = cur, raw, cur
	return true, nil
}

// WindowSigns are the signs in w's watches that different API servers
// answered, though each answer was in order with the current RV: a watch
// cache's oldest RV that went backwards from one watch to a later one.
func WindowSigns(w *Result) []string {
	var order rvOrder
	for _, p := range w.probes() {
		order.try(p)
	}
	return order.windowBack
}
