package metrics

import (
	"fmt"
	"math"
	"strconv"

	"github.com/watchrv/kubectl-watchrv/internal/text"
)

// What limits a watch-cache window now.
const (
	LimitCapacity       = "capacity"
	LimitInitialization = "initialization"
	LimitReinitialized  = "reinitialized-during-probe"
	LimitNoWatchCache   = "no-watch-cache"
	LimitUnknown        = "unknown"
)

// Report is the stable schema of the "metrics" block of "probe --metrics":
// one resource's watch-cache series, read before and after the probe, and
// what they say about the window the probe found.
type Report struct {
	WatchCache `json:",inline"`
	// EventsDuringProbe and EventRate are the resource's events received
	// by the cache between the two reads of /metrics, Seconds apart.
	EventsDuringProbe *float64 `json:"eventsDuringProbe,omitempty"`
	EventRate         *float64 `json:"eventsPerSecond,omitempty"`
	Seconds           float64  `json:"seconds"`
	// InitializationsDuringProbe > 0: the cache was re-initialized (the
	// API server restarted it) while the probe ran.
	InitializationsDuringProbe float64 `json:"initializationsDuringProbe"`
	// CacheLag is the probe's current RV minus the cache's RV (the cache
	// RV is the newest event it has seen, and RVs are shared by every
	// resource, so a lag is normal on a busy cluster).
	CacheLag *int64 `json:"cacheLag,omitempty"`
	// Limit is what bounds the window now (capacity, initialization,
	// reinitialized-during-probe, no-watch-cache, unknown), in words in
	// LimitText.
	Limit     string `json:"limit"`
	LimitText string `json:"limitText"`
	// Note is a one-line reason when /metrics could not be read (403: the
	// user lacks the non-resource "get" grant on /metrics).
	Note string `json:"note,omitempty"`
	// Requests is the GETs of /metrics sent for this report (2: before
	// and after the probe; with --all, the same two serve every row).
	Requests int `json:"requests"`
}

// ProbeFacts is what the probe found, for the cross-check.
type ProbeFacts struct {
	Found   bool
	Oldest  uint64
	Current uint64
	// Source is the probe's answer to "who answers 410": watch-cache,
	// etcd or unknown (nothing expired).
	Source string
}

// Explain builds the report of one resource from two snapshots (start may
// be nil: then no rate) and the probe's findings.
func Explain(start, end *Snapshot, group, resource string, p ProbeFacts) Report {
	r := Report{WatchCache: end.Families.Pick(group, resource)}
	if start != nil {
		s := start.Families.Pick(group, resource)
		r.Seconds = end.At.Sub(start.At).Seconds()
		if s.EventsReceived != nil && r.EventsReceived != nil {
			d := *r.EventsReceived - *s.EventsReceived
			r.EventsDuringProbe = &d
			if r.Seconds > 0 {
				rate := d / r.Seconds
				r.EventRate = &rate
			}
		}
		if s.Initializations != nil && r.Initializations != nil {
			r.InitializationsDuringProbe = *r.Initializations - *s.Initializations
		}
	}
	if r.ResourceVersion != nil && p.Current > 0 {
		// The gauge keeps only the 15 least significant digits.
		lag := int64(p.Current%1e15) - int64(*r.ResourceVersion)
		r.CacheLag = &lag
	}
	r.Limit, r.LimitText = limit(r, p)
	return r
}

// limit decides what bounds the window. The watch cache keeps, since its
// last initialization, the resource's last `capacity` events; the capacity
// doubles (up to 102400) while its oldest event is younger than 75s and
// halves when a quarter of it is older (k8s.io/apiserver v0.37.2,
// watch_cache_history.go). So: fewer events received than the capacity
// since a single initialization = nothing evicted, the window starts at
// the initialization; more = the cache is full and evicts, the capacity
// limits.
func limit(r Report, p ProbeFacts) (string, string) {
	switch {
	case !r.Found():
		if p.Source == "etcd" {
			return LimitNoWatchCache, "no watch-cache series for this resource, and etcd answers 410: the watch cache is off for it; the window starts at etcd's compaction point"
		}
		return LimitNoWatchCache, "this server exposes no watch-cache series for this resource (the watch cache is off for it, or it is served by another server, such as an aggregated API)"
	case r.InitializationsDuringProbe > 0:
		return LimitReinitialized, fmt.Sprintf("the watch cache was re-initialized %s time(s) during the probe: its window restarted at the new initialization's RV", num(r.InitializationsDuringProbe))
	case r.Capacity == nil || r.EventsReceived == nil:
		return LimitUnknown, "the server exposes the capacity or the events received, not both: cannot tell what limits the window"
	}
	capacity, events := *r.Capacity, *r.EventsReceived
	inits := 1.0
	if r.Initializations != nil {
		inits = *r.Initializations
	}
	window := ""
	if p.Found && p.Current > p.Oldest {
		window = fmt.Sprintf(" (the probe's window: %s, shared by every resource)", text.Count(p.Current-p.Oldest, "RV"))
	}
	switch {
	case events >= capacity && inits <= 1:
		return LimitCapacity, fmt.Sprintf("capacity: %s events received since the cache started, more than its capacity %s: it holds the last %s events of this resource and evicts older ones%s; the capacity doubles (up to 102400) while its oldest event is younger than 75s", num(events), num(capacity), num(capacity), window)
	case events >= capacity:
		return LimitCapacity, fmt.Sprintf("capacity, or the last of %s initializations: %s events received in all, capacity %s (the counter spans the initializations, so which one limits cannot be told apart)%s", num(inits), num(events), num(capacity), window)
	case inits > 1:
		return LimitInitialization, fmt.Sprintf("initialization: only %s received, under the capacity %s, and the cache was initialized %s times: the window starts at its last initialization%s", text.Count(int64(events), "event"), num(capacity), num(inits), window)
	}
	return LimitInitialization, fmt.Sprintf("initialization: only %s received since the cache started, under its capacity %s: nothing was evicted, the window starts where the cache was initialized%s", text.Count(int64(events), "event"), num(capacity), window)
}

func num(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'f', 2, 64)
}
