package probe

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/metrics"
)

// A silent watch is not yet a started one (fresh user try 19 #1: "nothing
// has expired, oldest RV 1" for a compacted resource whose storage
// answered later than --probe-wait). Who could still refuse it decides
// what its silence is worth:
//
//   - the watch cache decides a watch from below its window before the
//     answer starts (Cacher.Watch returns an error watcher, whose one
//     ERROR event follows the headers at once): its silence is its answer;
//   - storage (the watch cache off for the resource, etcd or kine) answers
//     a watch from a compacted RV on its next sync of unsynced watchers
//     (etcd: every 100 ms, later when loaded): its 410 can come after any
//     wait.
//
// Once the resource has answered a 410, the wait follows the slowest seen
// (adaptiveProbe) and the search moves on evidence. Before that, a silent
// start rests on silence alone, so it is confirmed before it is claimed:
//
//  1. an exact list at RV+1 (one request, answered at once): a watch from
//     N reads the revisions from N+1 on, so where storage serves the
//     watch, storage answering that list proves the watch starts; where
//     the watch cache serves it, the silence already did;
//  2. when that list does not answer (410: storage no longer holds RV+1),
//     the two can disagree: a watch cache whose window reaches below
//     storage's compaction starts the watch (a server started on a fresh
//     etcd, a quiet resource), and exact lists are storage's there (the
//     watch cache drops its snapshots below storage's compaction). The
//     server's /metrics, read once (a watch_cache_capacity series for the
//     resource), says whether a watch cache serves the watch: then its
//     silence is its answer;
//  3. otherwise (no such series, or /metrics not readable) one more watch
//     from RV, read for expectedEventWait, decides: storage's 410 comes
//     within it, a watch cache's watch stays silent.
//
// The list costs one request where a watch from RV 1 is silent (an empty
// collection whose window reaches RV 1), none where the watch cache
// answered with a 410 or replayed an event; /metrics at most one per run.

// confirmStarts wraps watch so that a silent start, before any 410 of the
// resource went through it, is confirmed by list (an exact list at rv+1:
// the one it tries), by cached (whether a watch cache serves the
// resource, and how that is known; false when not known: asked first
// when it is cheap for this run, w.first), and else decided by long (a
// watch read for expectedEventWait). current is the newest RV known: a
// watch from it always starts, and nothing above it is listed. The
// requests sent to confirm an answer are in its Confirmation.
func confirmStarts(watch, list, long TryFunc, w cacheAnswer, current uint64) TryFunc {
	refused := false
	return func(ctx context.Context, rv uint64) Try {
		r := watch(ctx, rv)
		if r.Outcome == OutcomeExpired {
			refused = true
		}
		if refused || r.Outcome != OutcomeOK || !r.Silent || rv >= current {
			return r
		}
		if w.first {
			if yes, how := w.cached(ctx); yes {
				r.Evidence = fmt.Sprintf("%s; %s: a watch cache serves this watch and would have refused it at once, so its window reaches RV %d", r.Evidence, how, rv)
				return r
			}
		}
		l := list(ctx, rv)
		if l.notSent != nil {
			return l // no request left: no claim
		}
		if l.Outcome == OutcomeFatal && NotOneServers(l.failed) {
			// The server broke the List contract: that is the answer to
			// the watch from rv, said as the list it was.
			l.ResourceVersion = rv
			l.Evidence = fmt.Sprintf("%s (the exact list at RV %d that would have confirmed a silent watch from RV %d)", l.Evidence, rv+1, rv)
			return l
		}
		if l.Outcome == OutcomeOK {
			r.Confirmation = []Try{l}
			r.Evidence = fmt.Sprintf("%s; confirmed by an exact list at RV %d (answered in %s): RV %d is still held, so storage would not refuse this watch, and a watch cache refuses at once", r.Evidence, rv+1, l.Latency.Round(100*time.Microsecond), rv+1)
			return r
		}
		unconfirmed := fmt.Sprintf("the exact list at RV %d that would have confirmed it %s", rv+1, listWords(l))
		if yes, how := w.cached(ctx); yes {
			r.Confirmation = []Try{l}
			r.Evidence = fmt.Sprintf("%s; %s, but %s: a watch cache serves this watch and would have refused it at once, so its window reaches RV %d", r.Evidence, unconfirmed, how, rv)
			return r
		}
		d := long(ctx, rv)
		if d.notSent != nil {
			return d
		}
		d.Confirmation = []Try{r, l}
		first := fmt.Sprintf("a first watch from RV %d stayed silent for %s, and %s", rv, r.Latency.Round(time.Millisecond), unconfirmed)
		switch {
		case d.Outcome == OutcomeExpired:
			refused = true
			d.Evidence = fmt.Sprintf("%s (%s: this 410 came later than that wait)", d.Evidence, first)
		case d.Outcome == OutcomeOK && d.Silent && l.Outcome == OutcomeExpired:
			d.Evidence = fmt.Sprintf("accepted, and no error within %s, though %s: a watch storage served would have been refused by now, so a watch cache serves it and its window reaches RV %d", d.Latency.Round(time.Millisecond), first, rv)
		case d.Outcome == OutcomeOK && d.Silent:
			d.Evidence = fmt.Sprintf("accepted, and no error within %s (%s): a 410, from storage or a watch cache, would have come by now", d.Latency.Round(time.Millisecond), first)
		default:
			d.Evidence = fmt.Sprintf("%s (%s)", d.Evidence, first)
		}
		return d
	}
}

// cacheAnswer is whether a watch cache serves the resource (cached: and
// how that is known; false when not known), and whether to ask it before
// the exact list (first).
type cacheAnswer struct {
	cached func(context.Context) (bool, string)
	first  bool
}

// cacheWitness is one server's /metrics, read at most once (an --all
// run's, or one probe's) and only when a silent start needs it: a
// resource with a watch_cache_capacity series there has a watch cache.
type cacheWitness struct {
	reading *metrics.Reading
	// first: ask it before the exact list. An --all run does: one read
	// answers for every resource, where the list would cost one each.
	first bool
	// reads counts the reads of /metrics it sent (0 or 1).
	reads int
}

// caches reports whether /metrics shows a watch cache for gr, and says so
// in words; the first call reads /metrics under b (one request).
func (w *cacheWitness) caches(ctx context.Context, c *apiclient.Client, b *apiclient.Budget, group, resource string) (bool, string) {
	if w.reading == nil {
		used := b.Used()
		w.reading = metrics.ReadUnder(ctx, c, b)
		w.reads += b.Used() - used
	}
	s := w.reading.Snapshot
	if s == nil || s.Families.Pick(group, resource).Capacity == nil {
		return false, ""
	}
	name := resource
	if group != "" {
		name += "." + group
	}
	return true, fmt.Sprintf("this server's /metrics has a %s series for %s", metrics.FamilyCapacity, name)
}

// confirmedWatch is watch with its silent starts confirmed
// (confirmStarts): the exact list, the read of /metrics (through
// o.witness) and the longer watch are requests to c for t under
// o.Try.Budget, the longer one waiting as adaptiveProbe does.
func confirmedWatch(watch TryFunc, c *apiclient.Client, t apiclient.Target, o Options, current uint64) TryFunc {
	long := o.Try
	long.Wait = expectedEventWait
	decide := adaptiveProbe(func(ctx context.Context, rv uint64, po TryOptions) Try {
		return TryWatch(ctx, c, t, rv, po)
	}, long, 0, o.slowest)
	list := func(ctx context.Context, rv uint64) Try { return TryExactList(ctx, c, t, rv+1, o.Try.Budget) }
	w := o.witness
	if w == nil {
		w = &cacheWitness{}
	}
	gvr := t.Resource.GVR
	cached := func(ctx context.Context) (bool, string) {
		return w.caches(ctx, c, o.Try.Budget, gvr.Group, gvr.Resource)
	}
	return confirmStarts(watch, list, decide, cacheAnswer{cached: cached, first: w.first}, current)
}

// listWords is what became of a confirming exact list: its answer ("got
// 410 Expired ..."), or its failure in its own words, such as an answer at
// another RV that broke the List contract (fresh user try 32 F2: "got
// request failed").
func listWords(l Try) string {
	if (strings.HasSuffix(l.Evidence, requestFailed) || strings.HasSuffix(l.Evidence, breachEvidence)) && l.Message != "" {
		return "failed: " + text.Shorten(text.OneLine(l.Message), 300)
	}
	return "got " + strings.TrimPrefix(l.Evidence, "exact list: ")
}
