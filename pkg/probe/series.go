package probe

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"
)

// Round is one probe of a resource in an --interval series.
//
// Its RVs are measured or unknown, by the one rule of every probe row
// (render's saidAsKnown): none of them is a field a renderer can print,
// only CurrentRV and Window, which say whether the value was read; and
// its JSON (MarshalJSON) leaves out what was not: currentResourceVersion
// where no current RV was read, oldestResourceVersion and width unless
// windowKnown (adversary: a round whose current-RV read hung, failed, or
// was answered at RV "abc" or "0" printed CURRENT RV 0 and, in JSON,
// "currentResourceVersion": 0, "oldestResourceVersion": 0, "width": 0).
type Round struct {
	At time.Time
	// current is the round's current RV, 0 where none was read (no
	// storage gives RV 0: StorageRV); oldest and width the window,
	// known exactly when Found.
	current, oldest, width uint64
	Found                  bool
	Source                 string
	Requests               int
	Millis                 float64
	Error                  string
	// Cut: the round was still running when the series ended.
	Cut bool
}

// CurrentRV is the round's current RV, and whether one was read.
func (r Round) CurrentRV() (uint64, bool) { return r.current, r.current > 0 }

// Window is the round's oldest RV and width, and whether they are known
// (the bound was found).
func (r Round) Window() (oldest, width uint64, known bool) {
	if !r.Found {
		return 0, 0, false
	}
	return r.oldest, r.width, true
}

// roundJSON is a round's schema in -o json|yaml: an RV not read is
// absent, never 0.
type roundJSON struct {
	At          time.Time `json:"at"`
	Current     *uint64   `json:"currentResourceVersion,omitempty,string"`
	Oldest      *uint64   `json:"oldestResourceVersion,omitempty,string"`
	Width       *uint64   `json:"width,omitempty"`
	WindowKnown bool      `json:"windowKnown"`
	Found       bool      `json:"found"`
	Source      string    `json:"source"`
	Requests    int       `json:"requests"`
	Millis      float64   `json:"ms"`
	Error       string    `json:"error,omitempty"`
	Cut         bool      `json:"cut,omitempty"`
}

// MarshalJSON writes r as roundJSON: what CurrentRV and Window say was
// read, and nothing else.
func (r Round) MarshalJSON() ([]byte, error) {
	j := roundJSON{At: r.At, Found: r.Found, Source: r.Source, Requests: r.Requests, Millis: r.Millis, Error: r.Error, Cut: r.Cut}
	if cur, ok := r.CurrentRV(); ok {
		j.Current = &cur
	}
	if oldest, width, ok := r.Window(); ok {
		j.Oldest, j.Width, j.WindowKnown = &oldest, &width, true
	}
	return json.Marshal(j)
}

// RoundOf reduces a probed window to a round. A current RV comes only
// from a read that gave one (w.Err is not the read's) and from answers
// that can be one API server's (NotOneServers: the one-shot row drops it
// too, untrusted).
func RoundOf(w *Result) Round {
	r := Round{At: w.Started, Requests: w.Requests, Millis: float64(w.Duration.Microseconds()) / 1000, Source: SourceUnknown}
	if s := w.Search; s != nil {
		r.current, r.Found, r.Source = s.Current, s.Found, s.Source
		if s.Found {
			r.oldest, r.width = s.Oldest, s.Width()
		}
	} else if w.Err == nil {
		r.current = w.Current
	}
	if w.Err != nil {
		r.Error = w.Err.Error()
		if NotOneServers(w.Err) {
			r.current, r.Found, r.oldest, r.width, r.Source = 0, false, 0, 0, SourceUnknown
		}
	}
	return r
}

// CutRound is r as a round cut at the series' bound (its duration d and
// one interval): it found nothing, and its error says why it was cut, as
// it happened: still running at the bound, or, after took, stopped
// because its next request, paced by the rate limit, could go only past
// the bound (fresh user try 51 F1: "still running one interval (1s)
// after the series' 2s ran out" of a round stopped at 2.05 s).
func CutRound(r Round, d, interval, took time.Duration, running bool) Round {
	r.Found, r.oldest, r.width, r.Cut = false, 0, 0, true
	r.Error = fmt.Sprintf("cut: still running one interval (%s) after the series' %s ran out", interval, d)
	if !running {
		r.Error = fmt.Sprintf("cut after %.2fs: its next request, paced by the rate limit, could go only past the series' %s and one interval (%s)", took.Seconds(), d, interval)
	}
	return r
}

// Motion is how a window moved over a series of rounds.
type Motion struct {
	// CurrentRate is how fast the current RV advanced (RVs per second). RVs
	// are etcd revisions, shared by every resource: this is the write rate
	// of the whole cluster, which is what ages an etcd window. Nil: not
	// measured (fewer than two rounds found the bound, or OutOfOrder).
	CurrentRate *float64 `json:"currentRVPerSecond,omitempty"`
	// OldestRate is how fast the oldest RV advanced: the rate at which the
	// window forgets (watch-cache evictions, or etcd compactions); nil as
	// CurrentRate.
	OldestRate *float64 `json:"oldestRVPerSecond,omitempty"`
	// OutOfOrder says how the current RVs of the rounds went back, as no
	// one API server's do (rvOrder): different API servers answered, or
	// etcd was restored. No rate and no depth are given then.
	OutOfOrder []string `json:"rvsOutOfOrder,omitempty"`
	// DepthSeconds is how long ago the oldest RV of the last round was the
	// current RV: the longest disconnect a watcher survives without a relist.
	// DepthBound says what kind of number it is: with object timestamps it
	// is a bound, not the depth (see DateDepth).
	DepthSeconds float64 `json:"depthSeconds"`
	// DepthKnown is false when nothing was written during the series (the
	// window does not age then); DepthObserved is true when the oldest RV
	// was seen as current during the series, false when the depth is
	// extrapolated back from the write rate.
	DepthKnown    bool `json:"depthKnown"`
	DepthObserved bool `json:"depthObserved"`
	// DepthMethod says how DepthSeconds was obtained, best first:
	// observed, object-timestamp, event-rate-estimate, rv-rate-extrapolation.
	DepthMethod string `json:"depthMethod,omitempty"`
	// DepthBound is the kind of DepthSeconds: measured (observed),
	// estimate (extrapolated), atLeast, atMost or between (object
	// timestamps: DepthSeconds is then the lower bound when there is one).
	DepthBound string `json:"depthBound,omitempty"`
	// DepthAtLeast and DepthAtMost are the bounds object timestamps give.
	DepthAtLeast *float64 `json:"depthAtLeastSeconds,omitempty"`
	DepthAtMost  *float64 `json:"depthAtMostSeconds,omitempty"`
	// DepthEvidence names what dated the depth (the objects and their
	// fields, or the capacity and the event rate).
	DepthEvidence string `json:"depthEvidence,omitempty"`
	// DepthUnknownReason is why no depth is known, drawn from what
	// happened (RefineDepth): the current RV did not move, and the list
	// that dates the oldest RV by its objects' times was not made (the
	// run was interrupted), failed, or dated nothing (fresh user try 51
	// F6: "nothing was written during the series, so the window did not
	// age" when that list was never made).
	DepthUnknownReason string `json:"depthUnknownReason,omitempty"`
	Rounds             int    `json:"rounds"`
}

// How a depth was obtained.
const (
	DepthMethodObserved        = "observed"
	DepthMethodObjectTimestamp = "object-timestamp"
	DepthMethodEventRate       = "event-rate-estimate"
	DepthMethodRVRate          = "rv-rate-extrapolation"
)

// What kind of number DepthSeconds is.
const (
	DepthBoundMeasured = "measured"
	DepthBoundEstimate = "estimate"
	DepthBoundAtLeast  = "atLeast"
	DepthBoundAtMost   = "atMost"
	DepthBoundBetween  = "between"
)

// DateDepth replaces an extrapolated (or unknown) depth with bounds from
// the objects' own times. The depth is how long ago revision O (the last
// round's oldest RV) was written; RVs grow with time, so:
//   - an object whose RV is below O was written before O: its newest
//     timestamp (never later than its write) gives "at most";
//   - an object whose RV is at or above O was written after O: if its
//     newest timestamp is its last write's time (true of every change a
//     client makes, which managedFields stamps; not of the API server's own
//     deletionTimestamp, nor of an object without managedFields, so those
//     are skipped), that time plus the one-second resolution gives "at
//     least".
//
// An object newer than O dates a bound, never the depth: the window can be
// far older than it. dated must be sorted by RV. An observed depth is kept:
// it is measured, these are one-second timestamps.
func (m *Motion) DateDepth(last Round, dated []DatedRV) {
	if m.DepthObserved || !last.Found {
		return
	}
	i := sort.Search(len(dated), func(i int) bool { return dated[i].ResourceVersion >= last.oldest })
	var above, below *DatedRV
	for j := i; j < len(dated); j++ {
		if dated[j].LastWriteDated() {
			above = &dated[j]
			break
		}
	}
	switch {
	case i < len(dated) && dated[i].ResourceVersion == last.oldest:
		below = &dated[i] // written at O itself: its timestamp is no later than O's
	case i > 0:
		below = &dated[i-1]
	}
	if above == nil && below == nil {
		return
	}
	var evidence []string
	m.DepthAtLeast, m.DepthAtMost = nil, nil
	if above != nil {
		least := last.At.Sub(above.At.Add(time.Second)).Seconds()
		if least < 0 {
			least = 0
		}
		m.DepthAtLeast = &least
		where := fmt.Sprintf("%d after the oldest RV %d", above.ResourceVersion-last.oldest, last.oldest)
		if above.ResourceVersion == last.oldest {
			where = "the oldest RV"
		}
		evidence = append(evidence, fmt.Sprintf("at least: %s (RV %d, %s) was written at %s (%s, 1s resolution), not before it", above.Object, above.ResourceVersion, where, above.At.UTC().Format(time.RFC3339), above.Field))
	}
	if below != nil {
		most := last.At.Sub(below.At).Seconds()
		m.DepthAtMost = &most
		where := fmt.Sprintf("%d before the oldest RV %d", last.oldest-below.ResourceVersion, last.oldest)
		if below.ResourceVersion == last.oldest {
			where = "the oldest RV"
		}
		evidence = append(evidence, fmt.Sprintf("at most: %s (RV %d, %s) was written at %s (%s), not after it", below.Object, below.ResourceVersion, where, below.At.UTC().Format(time.RFC3339), below.Field))
	}
	m.DepthKnown, m.DepthMethod = true, DepthMethodObjectTimestamp
	switch {
	case m.DepthAtLeast != nil && m.DepthAtMost != nil:
		m.DepthBound, m.DepthSeconds = DepthBoundBetween, *m.DepthAtLeast
	case m.DepthAtLeast != nil:
		m.DepthBound, m.DepthSeconds = DepthBoundAtLeast, *m.DepthAtLeast
	default:
		// Only an upper bound: DepthSeconds is the lower bound, and there
		// is none but 0 (fresh user try 51 F12: depthSeconds held the
		// upper bound, read by a script as the depth).
		m.DepthBound, m.DepthSeconds = DepthBoundAtMost, 0
	}
	m.DepthEvidence = strings.Join(evidence, "; ")
}

// EstimateDepthFromEvents sets, when nothing better is known, the depth of
// a full watch cache: it holds the resource's last capacity events, which
// at eventsPerSecond span capacity/eventsPerSecond seconds.
func (m *Motion) EstimateDepthFromEvents(capacity, eventsPerSecond float64) {
	if m.DepthMethod == DepthMethodObserved || m.DepthMethod == DepthMethodObjectTimestamp || eventsPerSecond <= 0 || capacity <= 0 {
		return
	}
	m.DepthSeconds, m.DepthKnown, m.DepthMethod, m.DepthBound = capacity/eventsPerSecond, true, DepthMethodEventRate, DepthBoundEstimate
	m.DepthEvidence = fmt.Sprintf("assumes the cache, which has evicted, is full: its capacity %.0f events at %.2f events/s of this resource", capacity, eventsPerSecond)
}

// MeasureMotion computes rates and depth from the rounds that found a
// bound, once the current RVs of every round are in order (rvOrder): a
// current RV below one read before it is no rate (adversary try 19: "-699.8
// RV/s" and "nothing was written" while the RV moved by 2,800).
func MeasureMotion(rounds []Round) Motion {
	var ok []Round
	var order rvOrder
	for _, r := range rounds {
		if r.Found {
			ok = append(ok, r)
		}
		if r.current > 0 {
			order.current(r.current, "the round at "+r.At.UTC().Format("15:04:05.000"))
		}
	}
	m := Motion{Rounds: len(ok), OutOfOrder: order.signs()}
	if len(ok) < 2 || len(m.OutOfOrder) > 0 {
		return m
	}
	first, last := ok[0], ok[len(ok)-1]
	span := last.At.Sub(first.At).Seconds()
	if span <= 0 {
		return m
	}
	currentRate := (float64(last.current) - float64(first.current)) / span
	m.CurrentRate = &currentRate
	m.OldestRate = ptr((float64(last.oldest) - float64(first.oldest)) / span)
	target := float64(last.oldest)
	for j, r := range ok {
		if float64(r.current) < target {
			continue
		}
		if j == 0 {
			if currentRate > 0 {
				m.DepthSeconds = span + (float64(r.current)-target)/currentRate
				m.DepthKnown, m.DepthMethod, m.DepthBound = true, DepthMethodRVRate, DepthBoundEstimate
			}
			return m
		}
		prev := ok[j-1]
		frac := (target - float64(prev.current)) / (float64(r.current) - float64(prev.current))
		crossed := prev.At.Add(time.Duration(frac * float64(r.At.Sub(prev.At))))
		m.DepthSeconds, m.DepthKnown, m.DepthObserved = last.At.Sub(crossed).Seconds(), true, true
		m.DepthMethod, m.DepthBound = DepthMethodObserved, DepthBoundMeasured
		return m
	}
	return m
}

func ptr(f float64) *float64 { return &f }
