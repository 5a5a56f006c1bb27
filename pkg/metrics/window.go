package metrics

import (
	"math"
	"strconv"
	"time"

	"github.com/watchrv/kubectl-watchrv/internal/text"
)

// What the counters say about the window the probe measured (Report.Limit).
// The probe measures the window; the metrics only explain it, each
// explanation checked against that measurement (explain.go), and none
// states a window size of its own.
const (
	// LimitNothingExpired: a watch from RV 1 starts (measured).
	LimitNothingExpired = "nothing-expired"
	// LimitInitialization: the counters show no eviction since the server
	// started: the measured window starts where the cache was initialized.
	LimitInitialization = "initialization"
	// LimitEviction: the counters show that the cache evicted events: the
	// measured window starts after the oldest event it still holds.
	LimitEviction = "eviction"
	// LimitUndetermined: the counters cannot tell initialization from
	// eviction (the capacity grew, or the cache was initialized again).
	LimitUndetermined = "undetermined"
	// LimitReinitialized: the cache was initialized again during the probe.
	LimitReinitialized = "reinitialized-during-probe"
	// LimitRestarted: the API server restarted between the two reads: its
	// counters started again.
	LimitRestarted = "restarted-during-probe"
	// LimitNoWatchCache: no series for the resource.
	LimitNoWatchCache = "no-watch-cache"
	// LimitInconsistent: the counters contradict what the probe measured
	// (the two reached different API servers, behind a balancer): they
	// explain nothing.
	LimitInconsistent = "inconsistent"
	// LimitUnknown: the series needed are missing, or the probe measured no
	// window to explain.
	LimitUnknown = "unknown"
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
	// ServerStarted is the API server's process_start_time_seconds (every
	// counter counts from then); Restarted is set when it moved between
	// the two reads.
	ServerStarted *time.Time `json:"serverStarted,omitempty"`
	Restarted     bool       `json:"restartedDuringProbe,omitempty"`
	// CacheLag is the probe's current RV minus the cache's RV (the cache
	// RV is the newest event it has seen, and RVs are shared by every
	// resource, so a lag is normal on a busy cluster).
	CacheLag *int64 `json:"cacheLag,omitempty"`
	// Limit is what the counters say about the measured window (one of the
	// Limit* values), in words in LimitText; Evidence is the counter facts
	// the words rest on.
	Limit     string   `json:"limit"`
	LimitText string   `json:"limitText"`
	Evidence  []string `json:"evidence,omitempty"`
	// Note is a one-line reason when /metrics could not be read (403: the
	// user lacks the non-resource "get" grant on /metrics).
	Note string `json:"note,omitempty"`
	// Requests is the GETs of /metrics sent for this report (2: before
	// and after the probe; with --all, the same two serve every row; 1 or
	// 0 when a read was not sent: the run's reads of the server had
	// already failed, or there was no window to explain).
	Requests int `json:"requests"`
}

// ProbeFacts is what the probe measured, which the metrics explain.
type ProbeFacts struct {
	Found   bool
	Oldest  uint64
	Current uint64
	// Source is the probe's answer to "who answers 410": watch-cache,
	// storage, mixed, none (nothing expired) or unknown.
	Source string
	// AtEnd: the window was measured just before the end read (the last
	// round of a series, minutes after the start read), so the counts the
	// explanation rests on are the end read's, the ones printed beside it;
	// else the start read's, taken before the probe found its bound.
	// One read per statement (fresh user try 51 F10: "Events received:
	// 77" beside "(4 received, within a capacity of 100 ...)").
	AtEnd bool
}

// Explain builds the report of one resource from two snapshots (start may
// be nil: then no rate) and the probe's findings.
func Explain(start, end *Snapshot, group, resource string, p ProbeFacts) Report {
	r := Report{WatchCache: end.Pick(group, resource)}
	var before *WatchCache
	if t := end.ProcessStart(); !t.IsZero() {
		r.ServerStarted = &t
	}
	if start != nil {
		s := start.Pick(group, resource)
		before = &s
		r.Seconds = end.At.Sub(start.At).Seconds()
		if t0, t1 := start.ProcessStart(), end.ProcessStart(); !t0.IsZero() && !t1.IsZero() && t1.Sub(t0).Abs() > time.Second {
			r.Restarted = true
		}
		if s.EventsReceived != nil && r.EventsReceived != nil && !r.Restarted {
			d := *r.EventsReceived - *s.EventsReceived
			r.EventsDuringProbe = &d
			if r.Seconds > 0 {
				rate := d / r.Seconds
				r.EventRate = &rate
			}
		}
		if s.Initializations != nil && r.Initializations != nil && !r.Restarted {
			r.InitializationsDuringProbe = *r.Initializations - *s.Initializations
		}
	}
	if r.ResourceVersion != nil && p.Current > 0 {
		// The gauge keeps only the 15 least significant digits: the lag
		// is taken modulo 10^15, the nearer way round, so that a current
		// RV past 10^15 (the gauge wrapped) is not read as a cache
		// 999999999999994 ahead (adversary try 37 F2).
		lag := cacheLag(p.Current, *r.ResourceVersion)
		r.CacheLag = &lag
	}
	r.Limit, r.LimitText, r.Evidence = explainWindow(r, before, p)
	return r
}

func num(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'f', 2, 64)
}

// countOf is num(f) and noun, singular for 1 ("1 event", "3 events").
func countOf(f float64, noun string) string {
	if f == 1 {
		return "1 " + noun
	}
	return num(f) + " " + text.Plural(noun)
}

func orZero(f *float64) float64 {
	if f == nil {
		return 0
	}
	return *f
}

// cacheLag is how far the watch cache's RV gauge (its 15 least significant
// digits) is behind current: negative when ahead, the nearer way round
// modulo 10^15.
func cacheLag(current uint64, gauge float64) int64 {
	const mod = int64(1e15)
	lag := ((int64(current%1e15)-int64(gauge))%mod + mod) % mod
	if lag > mod/2 {
		lag -= mod
	}
	return lag
}
