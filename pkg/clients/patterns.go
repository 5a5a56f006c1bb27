package clients

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/watchrv/kubectl-watchrv/internal/rv"
	"github.com/watchrv/kubectl-watchrv/internal/text"
)

// Thresholds of the patterns: what makes a behaviour a pattern rather than
// an incident. They are deliberately plain so that the evidence can show
// them.
const (
	// pollingMinLists lists at a steady period (the spread of the gaps
	// at most pollingMaxSpread of their mean) with no watch.
	pollingMinLists  = 5
	pollingMaxSpread = 0.5
	// relistWindow: a list that starts within this long after one of the
	// same client's watches on the same resource ended is a relist.
	// 30 s is client-go's longest backoff between two tries.
	relistWindow = 30 * time.Second
	// relistLoopMin relists on one resource make a loop.
	relistLoopMin = 3
	// herdWindow: relists of herdMinClients clients or more within this
	// long of each other are a herd.
	herdWindow     = 10 * time.Second
	herdMinClients = 3
	// consistentMin consistent lists by one client on one resource.
	consistentMin = 10
)

// resourceState is one client's resource: its counts and the state of the
// pattern detectors (constant size, whatever the log's length).
type resourceState struct {
	totals Totals
	// noPatterns: otherResources, many resources together.
	noPatterns bool

	// polling: the gaps between list starts (Welford's running mean and
	// variance).
	lastList, firstList time.Time
	gaps                int64
	gapMean, gapM2      float64

	// relist: the last watch end not yet followed by a list.
	watchEnd     time.Time
	watchEndKind string
	watchEndCode int
	// watchEndRV is the RV an exact-RV watch started from ("" otherwise),
	// watchStart when it came.
	watchEndRV string
	watchStart time.Time
	relists    int64
	// stateRelists of them were legacy watches (watchState).
	stateRelists int64
	relistCauses map[string]int64
	relistFirst  time.Time
	relistLast   time.Time

	// stale reconnect: exact-RV watches answered 410 (stale), or ended
	// within a second with a 200 and were followed by a relist (inStream:
	// the 410 of a watch served by etcd comes as an ERROR event inside the
	// stream, which the audit log does not record).
	stale      int64
	inStream   int64
	staleFirst time.Time
	staleLast  time.Time
	staleRV    string
	// staleNewest is the newest RV the server had answered at before the
	// first stale watch came (staleKnown: one is known).
	staleNewest       uint64
	staleKnown        bool
	consistent        int64
	consistentFirst   time.Time
	consistentLast    time.Time
	consistentFrom    string
	consistentFromWhy string
	// consistentCacheOff: the resource has no watch cache (--watch-cache
	// off): resourceVersion=0 reads storage too, so it is no fix there.
	consistentCacheOff bool
}

// patternList follows one list: each is one poll (the client's
// behaviour, whatever the answer); one that reached the read (read) may
// be a relist or a consistent read, one the server refused read nothing.
func (a *Analyzer) patternList(c *clientState, r *request, rs *resourceState, mode string, read bool) {
	t := r.at
	if !rs.lastList.IsZero() {
		gap := math.Abs(t.Sub(rs.lastList).Seconds())
		rs.gaps++
		d := gap - rs.gapMean
		rs.gapMean += d / float64(rs.gaps)
		rs.gapM2 += d * (gap - rs.gapMean)
	} else {
		rs.firstList = t
	}
	rs.lastList = t
	if !read {
		return
	}
	a.relist(c, rs, t, "")
	if mode == modeUnset {
		rs.consistent++
		if rs.consistentFirst.IsZero() {
			rs.consistentFirst = t
		}
		rs.consistentLast = t
		rs.consistentFrom, rs.consistentFromWhy, _ = readFrom(a.v, a.cache, r.resource, modeUnset, false)
		state, _ := a.cache.state(r.resource)
		rs.consistentCacheOff = state == CacheOff
	}
}

// relist counts a full re-read that starts within relistWindow after one
// of the same client's watches on the same resource ended: a list, or a
// watch whose start mode sends the whole collection (sendsState): a
// streaming list (sendInitialEvents=true, which client-go >= 1.35
// informers use instead of a list), or a legacy watch from
// resourceVersion unset or 0 (mode, "" for a list).
func (a *Analyzer) relist(c *clientState, rs *resourceState, t time.Time, mode string) {
	if rs.watchEnd.IsZero() || !t.After(rs.watchEnd.Add(-time.Second)) || !t.Before(rs.watchEnd.Add(relistWindow)) {
		return
	}
	rs.relists++
	if mode == watchState {
		rs.stateRelists++
	}
	if rs.relistCauses == nil {
		rs.relistCauses = map[string]int64{}
	}
	cause := rs.watchEndKind
	if rs.watchEndCode >= 400 {
		cause = fmt.Sprint(rs.watchEndCode)
	}
	rs.relistCauses[cause]++
	if rs.watchEndKind == endAtOnce && rs.watchEndRV != "" {
		rs.inStream++
		if rs.staleFirst.IsZero() {
			rs.staleFirst = rs.watchEnd
			rs.staleRV = rs.watchEndRV
			rs.staleNewest, rs.staleKnown = a.rvs.before(rs.watchStart)
		}
		if rs.watchEnd.After(rs.staleLast) {
			rs.staleLast = rs.watchEnd
		}
	}
	if rs.relistFirst.IsZero() {
		rs.relistFirst = t
	}
	rs.relistLast = t
	rs.watchEnd = time.Time{}
	a.herd.add(t, c.key)
}

// patternWatch follows one watch: one that the server answered and whose
// start mode sends the whole collection is a relist (one refused with an
// error code sent nothing); its end may be followed by one; a 410 from an
// exact RV is a stale reconnect.
func (a *Analyzer) patternWatch(c *clientState, r *request, rs *resourceState, code int, how string, end time.Time) {
	mode := watchStart(r.query)
	if sendsState(mode) && reachedRead(r.verb, code) {
		a.relist(c, rs, r.at, mode)
	}
	if how != endOpen {
		rs.watchEnd, rs.watchEndKind, rs.watchEndCode, rs.watchStart = end, how, code, r.at
		rs.watchEndRV = ""
		if mode == modeExact {
			rs.watchEndRV = r.query.ResourceVersion
		}
	}
	if code == 410 && mode == modeExact {
		rs.stale++
		if rs.staleFirst.IsZero() {
			rs.staleFirst = r.at
			rs.staleRV = r.query.ResourceVersion
			rs.staleNewest, rs.staleKnown = a.rvs.before(r.at)
		}
		rs.staleLast = r.at
	}
}

// patterns turns one resource's detectors into named patterns.
func (rs *resourceState) patterns(client, resource string) []Pattern {
	var out []Pattern
	if rs.noPatterns {
		return nil
	}
	t := rs.totals
	if t.Watches.Total == 0 && t.Lists.Total >= pollingMinLists && rs.gaps >= pollingMinLists-1 && rs.gapMean > 0 {
		spread := math.Sqrt(rs.gapM2 / float64(rs.gaps))
		if spread <= pollingMaxSpread*rs.gapMean {
			out = append(out, Pattern{
				Name: PatternPolling, Client: client, Resource: resource, Count: t.Lists.Total,
				First: rs.firstList, Last: rs.lastList, PeriodSeconds: round(rs.gapMean),
				Evidence: fmt.Sprintf("%d lists of %s from %s, one every %s (spread %s), and no watch: not an informer",
					t.Lists.Total, resource, Span(rs.firstList, rs.lastList), secs(rs.gapMean), secs(spread)),
				Fix: "Use an informer (list once, then watch from the list's resourceVersion); if a periodic read is really wanted, list with resourceVersion=0 (served from the watch cache, where it is on) at a longer period.",
			})
		}
	}
	if rs.relists >= relistLoopMin {
		period := 0.0
		if rs.relists > 1 {
			period = rs.relistLast.Sub(rs.relistFirst).Seconds() / float64(rs.relists-1)
		}
		what := "lists or streaming lists"
		fix := "Each relist re-reads the whole collection: find what ends its watches. After 410s: it resumes from an RV the server no longer holds; watch with allowWatchBookmarks=true so the RV it resumes from stays fresh, and keep its event handlers fast. Watches closed early: look for a proxy or load balancer idle timeout shorter than the watch's timeoutSeconds."
		if rs.stateRelists > 0 {
			what = fmt.Sprintf("lists, streaming lists, or legacy watches from RV unset or 0, which get the whole collection as ADDED events: %d of them", rs.stateRelists)
			fix += " A watch from resourceVersion unset or 0 without sendInitialEvents gets the whole collection again each time: resume from the last RV received; where only changes are wanted, ask for sendInitialEvents=false (with resourceVersionMatch=NotOlderThan, where the WatchList gate is on: v1.32, v1.34 and later by default)."
		}
		out = append(out, Pattern{
			Name: PatternRelistLoop, Client: client, Resource: resource, Count: rs.relists,
			First: rs.relistFirst, Last: rs.relistLast, PeriodSeconds: round(period),
			Evidence: fmt.Sprintf("%s (%s) of %s, each within %s after one of its watches ended (%s), from %s, one every %s",
				text.Count(rs.relists, "relist"), what, resource, relistWindow, causes(rs.relistCauses), Span(rs.relistFirst, rs.relistLast), secs(period)),
			Fix: fix,
		})
	}
	if rs.stale+rs.inStream > 0 {
		var parts []string
		if rs.stale > 0 {
			parts = append(parts, fmt.Sprintf("%d answered 410 Expired", rs.stale))
		}
		if rs.inStream > 0 {
			parts = append(parts, fmt.Sprintf("%d ended within a second with a 200 and a relist followed (what a 410 sent as an ERROR event inside the watch stream looks like, as v1.37 sends it from the watch cache and from etcd; a client that closes its watch at once and lists looks the same: the audit log records the HTTP status, not the stream's events)", rs.inStream))
		}
		// Only a 410 answer is known to have failed: a watch that ended at
		// once with a 200 may have been closed by its client.
		how := "failed at once"
		if rs.stale == 0 {
			how = "ended at once"
		}
		ev := fmt.Sprintf("%d watch(es) of %s from an exact RV %s, from %s: %s; the earliest of them asked for RV %s",
			rs.stale+rs.inStream, resource, how, Span(rs.staleFirst, rs.staleLast), strings.Join(parts, "; "), rs.staleRV)
		// Compared only with an RV the server answered at before the watch
		// came, and only when that is newer: an equal or older one says
		// nothing of whether the RV was still held.
		if asked, ok := rv.Parse(rs.staleRV); ok && rs.staleKnown && rs.staleNewest > asked {
			ev += fmt.Sprintf(" when the server had already answered at RV %d", rs.staleNewest)
		}
		out = append(out, Pattern{
			Name: PatternStaleReconnect, Client: client, Resource: resource, Count: rs.stale + rs.inStream,
			First: rs.staleFirst, Last: rs.staleLast, Evidence: ev,
			Fix: "Resume a watch from the last RV it received (bookmarks keep it fresh while nothing changes), never from an RV saved for minutes or read from another cluster; after a 410, relist and watch from the list's resourceVersion.",
		})
	}
	if rs.consistent >= consistentMin && rs.consistentFrom != fromCache {
		ev := fmt.Sprintf("%d consistent lists (no resourceVersion) of %s from %s: %s", rs.consistent, resource, Span(rs.consistentFirst, rs.consistentLast), rs.consistentFromWhy)
		fix := "Where the newest state is not needed, list with resourceVersion=0 (from the watch cache, where it is on), or use an informer; on v1.31 and later consistent lists are served from the watch cache where it is on."
		if rs.consistentCacheOff {
			// Storage has no index on labels or fields: a selector narrows
			// what comes back, not what storage reads (fresh user try 19:
			// the fix named a selector the client already used; top says
			// the same of the storage-list ratio).
			fix = "Without a watch cache every list reads storage, whatever its resourceVersion (resourceVersion=0 too), and storage reads every object under the list's prefix whatever its label or field selector (but a field selector on metadata.name, which reads one key): list less often, list one namespace rather than all, or use an informer (one list, then a watch)."
		}
		if rs.consistentFrom == fromUnknown {
			ev = fmt.Sprintf("%d consistent lists (no resourceVersion) of %s from %s; whether they reach storage is not known: %s", rs.consistent, resource, Span(rs.consistentFirst, rs.consistentLast), rs.consistentFromWhy)
		}
		out = append(out, Pattern{
			Name: PatternConsistentReads, Client: client, Resource: resource, Count: rs.consistent,
			First: rs.consistentFirst, Last: rs.consistentLast, Evidence: ev, Fix: fix,
		})
	}
	return out
}

// herdState keeps the relists (a time and a client) of the last herdLate:
// a streaming relist counts when its watch ends, which can be minutes after
// it started, so the windows are judged once no relist can still come into
// them, herdLate behind the log (and all at its end). A relist that comes
// later than that is judged with the ones after it. At most herdMax are
// held: beyond, the older half is judged at once.
type herdState struct {
	relists   []herdRelist
	herds     []Pattern
	watermark time.Time
	nextFlush int
	// folded counts the herds not kept: at most MaxHerds are, the largest
	// (by clients, then the earliest), so that a long log of many herds
	// holds (and prints) the ones that matter.
	folded int64
}

// MaxHerds is how many herds a report keeps.
const MaxHerds = 50

// keep adds a herd, folding the smallest away beyond MaxHerds (sorted
// and cut once twice as many are held).
func (h *herdState) keep(p Pattern) {
	h.herds = append(h.herds, p)
	if len(h.herds) >= 2*MaxHerds {
		h.fold()
	}
}

// fold keeps the MaxHerds largest herds, in the order they happened.
func (h *herdState) fold() {
	if len(h.herds) <= MaxHerds {
		return
	}
	hs := h.herds
	sort.SliceStable(hs, func(i, j int) bool {
		if hs[i].Count != hs[j].Count {
			return hs[i].Count > hs[j].Count
		}
		return hs[i].First.Before(hs[j].First)
	})
	h.folded += int64(len(hs) - MaxHerds)
	hs = append(hs[:0:0], hs[:MaxHerds]...)
	sort.SliceStable(hs, func(i, j int) bool { return hs[i].First.Before(hs[j].First) })
	h.herds = hs
}

const (
	herdLate  = time.Hour
	herdFlush = 4096
	herdMax   = 1 << 18
)

type herdRelist struct {
	at time.Time
	k  clientKey
}

func (h *herdState) add(t time.Time, k clientKey) {
	h.relists = append(h.relists, herdRelist{t, k})
}

// advance takes the time of the log's newest event.
func (h *herdState) advance(t time.Time) {
	if t.After(h.watermark) {
		h.watermark = t
	}
	if len(h.relists) < max(herdFlush, h.nextFlush) {
		return
	}
	cutoff := h.watermark.Add(-herdLate)
	if len(h.relists) >= herdMax {
		h.sort()
		cutoff = h.relists[len(h.relists)/2].at
	}
	h.flush(cutoff)
	h.nextFlush = 2 * len(h.relists)
}

func (h *herdState) sort() {
	rs := h.relists
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].at.Before(rs[j].at) })
}

// flush finds the herds among the relists before cutoff (all of them when
// it is zero): windows of herdWindow that start at a relist and hold
// relists of herdMinClients clients or more. A window that is no herd
// moves on by one relist, not by its width, so a herd is found wherever it
// falls on the clock (fixed 10 s buckets split one that crosses a bucket's
// edge); a herd's window is not searched again.
func (h *herdState) flush(cutoff time.Time) {
	h.sort()
	rs := h.relists
	i := 0
	for i < len(rs) && (cutoff.IsZero() || rs[i].at.Before(cutoff)) {
		end, set := i, map[clientKey]struct{}{}
		for ; end < len(rs) && rs[end].at.Sub(rs[i].at) < herdWindow; end++ {
			set[rs[end].k] = struct{}{}
		}
		if len(set) < herdMinClients {
			i++
			continue
		}
		h.keep(herdPattern(set, end-i, rs[i].at, rs[end-1].at))
		i = end
	}
	h.relists = append(rs[:0:0], rs[i:]...)
}

func herdPattern(set map[clientKey]struct{}, relists int, first, last time.Time) Pattern {
	var names []string
	for k := range set {
		names = append(names, k.name())
	}
	sort.Strings(names)
	if len(names) > 5 {
		names = append(names[:5], fmt.Sprintf("and %d more", len(set)-5))
	}
	return Pattern{
		Name: PatternHerd, Count: int64(len(set)), First: first, Last: last,
		Evidence: fmt.Sprintf("%d clients relisted %d times within %s, from %s: %s", len(set), relists, secs(last.Sub(first).Seconds()), Span(first, last), strings.Join(names, ", ")),
		Fix:      "Something ended many watches at once (an API server restart, a balancer moving connections); the API server's own log shows which. Relists with resourceVersion=0 or streaming lists (sendInitialEvents=true) are served from the watch cache (where it is on) instead of storage.",
	}
}

func causes(m map[string]int64) string {
	label := map[string]string{endAtOnce: "ended within a second", endEarly: "closed before its timeout", endTimedOut: "at its timeout", "410": "after a 410", "504": "after a 504", "429": "after a 429"}
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] || m[keys[i]] == m[keys[j]] && keys[i] < keys[j] })
	var parts []string
	for _, k := range keys {
		l := label[k]
		if l == "" {
			l = "after a " + k
		}
		parts = append(parts, fmt.Sprintf("%d %s", m[k], l))
	}
	return strings.Join(parts, ", ")
}

func secs(s float64) string {
	switch {
	case s < 10:
		return fmt.Sprintf("%.1fs", s)
	case s >= 1e9: // past what a time.Duration holds (292 years) with room
		return fmt.Sprintf("%.0fh", s/3600)
	}
	return time.Duration(s * float64(time.Second)).Round(time.Second).String()
}

func round(s float64) float64 { return math.Round(s*1000) / 1000 }
