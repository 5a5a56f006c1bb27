package metrics

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/watchrv/kubectl-watchrv/internal/text"
)

// explainWindow says what the counters tell about the window the probe
// measured, and which counters say it. The rules (k8s.io/apiserver
// v0.37.2 storage/cacher watch_cache_history.go, the same on v1.30-v1.37):
// the cache keeps, since its last initialization, the resource's events in
// a ring of `capacity`; on an event that finds it full it doubles the
// capacity if its oldest event is younger than 75 s, else (when a quarter
// of it is older) halves it, dropping the oldest, and otherwise drops the
// oldest event. So:
//
//   - no eviction since the server started is proven only when the
//     capacity never changed and the events received fit in it: then the
//     window starts where the cache was last initialized;
//   - an eviction is proven by a halving, or, with one initialization, by
//     more events received than the capacity can hold now;
//   - a capacity that grew proves nothing either way: a full cache whose
//     oldest event is older than 75 s evicts before it grows (seen on
//     v1.37.2 and v1.30.14: 301 events received, capacity 400, and the
//     window began after the first).
//
// Every explanation is checked against the measurement: counters that
// contradict it (a window from RV 1 after an eviction, more events since
// one initialization than the window has RVs, a watch cache where storage
// answered) are said to, and explain nothing. No text states a window
// size: the probe measured it.
func explainWindow(r Report, before *WatchCache, p ProbeFacts) (string, string, []string) {
	ev := r.evidence()
	switch {
	case r.Restarted:
		return LimitRestarted, "the API server restarted between the two reads of /metrics (process_start_time_seconds moved): its counters started again, so they say nothing about the window the probe measured; probe again", ev
	case len(r.Unmeasured) > 0 || (before != nil && len(before.Unmeasured) > 0):
		// A counter not measured is not 0 (no sample): no explanation
		// rests on what could not be read.
		return LimitUnknown, "not measured: " + strings.Join(unmeasuredOf(r.WatchCache, before), "; ") + ": the counters cannot explain the window", ev
	case !r.Found():
		switch p.Source {
		case "storage":
			return LimitNoWatchCache, "no watch-cache series for this resource, and storage answered the probe's 410s: the watch cache is off for it on this server; the window is storage's (see Bound)", ev
		case "watch-cache", "mixed":
			return LimitInconsistent, "this /metrics has no watch-cache series for the resource, yet a watch cache answered the probe's 410s: /metrics and the probe reached different API servers (a balancer?), so the counters explain nothing", ev
		}
		return LimitNoWatchCache, "this server exposes no watch-cache series for this resource (the watch cache is off for it, or it is served by another server, such as an aggregated API)", ev
	case p.Source == "storage":
		return LimitInconsistent, "these counters show a watch cache for the resource, yet storage answered the probe's 410s (its watches did not reach a watch cache): /metrics and the probe reached different API servers (a balancer?), so the counters explain nothing", ev
	case r.InitializationsDuringProbe > 0:
		return LimitReinitialized, fmt.Sprintf("the watch cache was initialized again %s while the probe ran: its window restarted at the new initialization, and the window measured may be from before or after it; probe again", countOf(r.InitializationsDuringProbe, "time")), ev
	case r.Capacity == nil || r.EventsReceived == nil:
		// A family exposed with no series for the resource is 0 by now
		// (countersNoSampleIsZero): only one absent altogether is here.
		var missing []string
		if r.Capacity == nil {
			missing = append(missing, FamilyCapacity)
		}
		if r.EventsReceived == nil {
			missing = append(missing, FamilyEventsReceived)
		}
		return LimitUnknown, "this server does not expose " + strings.Join(missing, " or ") + " (no series at all): the counters cannot explain the window", ev
	case !p.Found || (p.Source != "watch-cache" && p.Source != "none"):
		return LimitUnknown, "the probe measured no window of a watch cache to explain (see Answered by)", ev
	}
	capacity, inits := *r.Capacity, orZero(r.Initializations)
	events := *r.EventsReceived
	if before != nil && before.EventsReceived != nil && !p.AtEnd {
		events = *before.EventsReceived // read before the probe found its bound
	}
	grew, shrank := orZero(r.CapacityIncreases), orZero(r.CapacityDecreases)
	// The capacity's changes not exposed (NotExposed) are not known to be
	// none: no claim of no eviction rests on them.
	changesKnown := r.CapacityIncreases != nil && r.CapacityDecreases != nil
	noEviction := changesKnown && grew == 0 && shrank == 0 && events <= capacity
	evicted := shrank > 0 || (inits <= 1 && events > capacity)
	since := r.sinceStart()
	measured := fmt.Sprintf("the window starts at RV %d (measured by the probe)", p.Oldest)
	if p.Source == "none" {
		if evicted {
			return LimitInconsistent, fmt.Sprintf("a watch from RV 1 starts (measured), yet the counters show an eviction (%s): /metrics and the probe reached different API servers (a balancer?), so the counters explain nothing", evictionWhy(events, capacity, shrank)), ev
		}
		how := "the counters agree: no eviction"
		if !noEviction {
			how = "the counters allow it"
		}
		return LimitNothingExpired, "nothing has expired: a watch from RV 1 starts (measured); " + how, ev
	}
	switch {
	case noEviction && inits <= 1 && p.Current >= p.Oldest && events > float64(p.Current-p.Oldest):
		return LimitInconsistent, fmt.Sprintf("the counters show no eviction since one initialization, yet %s received and the measured window has only %s: /metrics and the probe reached different API servers (a balancer?), so the counters explain nothing", countOf(events, "event"), text.Count(p.Current-p.Oldest, "RV")), ev
	case noEviction:
		where := "where the cache was initialized"
		if inits > 1 {
			where = fmt.Sprintf("where the cache was last initialized (%s initializations)", num(inits))
		}
		return LimitInitialization, fmt.Sprintf("%s, %s: no event was evicted %s (%s received, within a capacity of %s that never changed), so everything below it was lost at that initialization, not by eviction", measured, where, since, num(events), num(capacity)), ev
	case evicted:
		return LimitEviction, fmt.Sprintf("%s, after the oldest event the cache still holds: it has evicted events (%s)", measured, evictionWhy(events, capacity, shrank)), ev
	case inits > 1:
		return LimitUndetermined, fmt.Sprintf("%s; the counters cannot tell whether it is the cache's last initialization (of %s) or an eviction: they span every initialization", measured, num(inits)), ev
	case !changesKnown:
		return LimitUndetermined, fmt.Sprintf("%s; the counters cannot tell whether events were evicted: this server does not expose %s or %s, so whether the capacity changed is not known", measured, FamilyCapacityIncreases, FamilyCapacityDecreases), ev
	}
	return LimitUndetermined, fmt.Sprintf("%s; the counters cannot tell whether events were evicted: %s received fit in today's capacity %s, but the capacity grew (%s) and a full cache whose oldest event is older than 75s evicts before it grows", measured, num(events), num(capacity), countOf(grew, "time")), ev
}

// unmeasuredOf is what either read could not measure, once each.
func unmeasuredOf(end WatchCache, start *WatchCache) []string {
	out := append([]string{}, end.Unmeasured...)
	if start != nil {
		for _, u := range start.Unmeasured {
			if !slices.Contains(out, u) {
				out = append(out, u)
			}
		}
	}
	return out
}

func evictionWhy(events, capacity, shrank float64) string {
	if shrank > 0 {
		return fmt.Sprintf("its capacity was halved %s, which drops the oldest events; capacity now %s", countOf(shrank, "time"), num(capacity))
	}
	return fmt.Sprintf("%s received since its one initialization, more than its capacity %s can hold", countOf(events, "event"), num(capacity))
}

// sinceStart is "since the server started (at T)" when it says when.
func (r Report) sinceStart() string {
	if r.ServerStarted == nil {
		return "since the server started"
	}
	return "since the server started at " + ClockTime(*r.ServerStarted)
}

// ClockTime is how every text of this package and its render shows a
// time the server reported: in UTC, to the second, one format for all.
func ClockTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") }

// evidence lists the counters read, as the server named them.
func (r Report) evidence() []string {
	var out []string
	add := func(name string, v *float64) {
		switch {
		case r.NotMeasured(name):
			out = append(out, name+" not measured")
		case r.ReadAsZero(name):
			out = append(out, name+" 0 (no sample)")
		case v != nil:
			out = append(out, name+" "+num(*v))
		case slices.Contains(r.NotExposed, name):
			out = append(out, name+" not exposed")
		}
	}
	if r.Found() {
		add(FamilyCapacity, r.Capacity)
		add(FamilyEventsReceived, r.EventsReceived)
		add(FamilyInitializations, r.Initializations)
		add(FamilyCapacityIncreases, r.CapacityIncreases)
		add(FamilyCapacityDecreases, r.CapacityDecreases)
	}
	if r.ServerStarted != nil {
		out = append(out, FamilyProcessStart+" "+ClockTime(*r.ServerStarted))
	}
	return out
}

// Text is the explanation with the counters it rests on, in one line.
func (r Report) Text() string {
	if len(r.Evidence) == 0 {
		return r.LimitText
	}
	return r.LimitText + " [" + strings.Join(r.Evidence, "; ") + "]"
}
