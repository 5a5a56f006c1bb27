// Package metrics reads an API server's own account of its watch cache from
// /metrics (the Prometheus text format, parsed with the Prometheus library
// made for it), picks one resource's series and says what limits the window
// a probe measured.
package metrics

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
)

// Metric family names. They changed across versions: the "resource" label
// was split into "group" and "resource" in 1.34, and etcd_bookmark_counts
// became etcd_bookmark_total in 1.36; the reader takes what the server
// exposes.
const (
	FamilyCapacity           = "watch_cache_capacity"
	FamilyEventsReceived     = "apiserver_watch_cache_events_received_total"
	FamilyResourceVersion    = "apiserver_watch_cache_resource_version"
	FamilyInitializations    = "apiserver_watch_cache_initializations_total"
	FamilyTerminatedWatchers = "apiserver_terminated_watchers_total"
	FamilyBookmarks          = "etcd_bookmark_total"
	FamilyBookmarksLegacy    = "etcd_bookmark_counts"
	// The capacity's changes (k8s.io/apiserver storage/cacher metrics,
	// no "apiserver_" prefix, on every version of the matrix): counter
	// vectors, so no sample means no change since the server started.
	FamilyCapacityIncreases = "watch_cache_capacity_increase_total"
	FamilyCapacityDecreases = "watch_cache_capacity_decrease_total"
	// FamilyProcessStart is when the API server process started (Unix
	// seconds): every counter counts from then.
	FamilyProcessStart = "process_start_time_seconds"
	// FamilyAuditEvents is a counter without labels that k8s.io/apiserver
	// registers at its start: every kube-apiserver (v1.30 to v1.37, the
	// watch cache on or off, audit on or off) has its one sample, and
	// no other program does. It tells an API server's /metrics from
	// another's, for one line.
	FamilyAuditEvents = "apiserver_audit_event_total"
)

// Families is one parsed /metrics text.
type Families map[string]*dto.MetricFamily

// Parse reads the Prometheus text exposition format.
func Parse(r io.Reader) (Families, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	f, err := p.TextToMetricFamilies(r)
	if err != nil {
		return nil, fmt.Errorf("cannot parse /metrics: %w", err)
	}
	return Families(f), nil
}

// Snapshot is one read of /metrics.
type Snapshot struct {
	At       time.Time
	Families Families
	// Mistyped are the families declared with a TYPE no kube-apiserver
	// gives them, and why (Selected.Mistyped): not measured.
	Mistyped map[string]string
}

// ProcessStart is when the API server that answered started (its
// process_start_time_seconds), or the zero time when it does not say.
func (s *Snapshot) ProcessStart() time.Time {
	fam := s.Families[FamilyProcessStart] // nil when mistyped
	if fam == nil || len(fam.GetMetric()) != 1 {
		return time.Time{}
	}
	v := value(fam.GetMetric()[0])
	if v <= 0 {
		return time.Time{}
	}
	sec := int64(v)
	return time.Unix(sec, int64((v-float64(sec))*1e9)).UTC()
}

// WatchCacheFamilies are the families Read asks for: the watch cache's
// series (every name they had across versions), the process start, the
// server's version (which counters it registers: Registered), and the one
// line that says an API server answered.
var WatchCacheFamilies = []string{
	FamilyCapacity, FamilyEventsReceived, FamilyResourceVersion, FamilyInitializations,
	FamilyTerminatedWatchers, FamilyBookmarks, FamilyBookmarksLegacy,
	FamilyCapacityIncreases, FamilyCapacityDecreases, FamilyProcessStart, FamilyBuildInfo, FamilyAuditEvents,
}

// Read sends one GET /metrics for the watch-cache families only
// (ReadSelected: name[] on v1.37 and later; an older server sends all of
// /metrics and only these are kept). It needs the non-resource "get" grant
// on /metrics; a 403 comes back as an API error for the caller to note.
func Read(ctx context.Context, c *apiclient.Client) (*Snapshot, error) {
	sel, err := ReadSelected(ctx, c, WatchCacheFamilies, true)
	if err != nil {
		return nil, err
	}
	return &Snapshot{At: time.Now(), Families: sel.Families, Mistyped: sel.Mistyped}, nil
}

// WatchCache is one resource's watch-cache series. A nil field is a series
// the server does not expose for the resource (a counter vector has no
// sample until its first increment: no terminated watcher, no sample).
type WatchCache struct {
	Group    string `json:"group"`
	Resource string `json:"resource"`
	// Unmeasured are the series whose value is no number the server can
	// mean (NaN, ±Inf, below zero, beyond 2^53), and the families declared
	// with a TYPE no kube-apiserver gives them: left out, never shown or
	// computed with (JSON cannot carry NaN either), and no explanation
	// rests on the counters then (explainWindow).
	Unmeasured []string `json:"unmeasured,omitempty"`
	// Labels is how the series are labelled: "group,resource" (1.34 and
	// later) or "resource" (older servers, where it holds resource.group).
	Labels             string   `json:"labels,omitempty"`
	Capacity           *float64 `json:"capacity,omitempty"`
	EventsReceived     *float64 `json:"eventsReceived,omitempty"`
	ResourceVersion    *float64 `json:"cacheResourceVersion,omitempty,string"`
	Initializations    *float64 `json:"initializations,omitempty"`
	TerminatedWatchers *float64 `json:"terminatedWatchers,omitempty"`
	EtcdBookmarks      *float64 `json:"etcdBookmarks,omitempty"`
	// CapacityIncreases and CapacityDecreases count the capacity's
	// doublings and halvings since the server started (nil: no sample,
	// none).
	CapacityIncreases *float64 `json:"capacityIncreases,omitempty"`
	CapacityDecreases *float64 `json:"capacityDecreases,omitempty"`
	// NoSample are the counter families read as 0 for the resource
	// (countersNoSampleIsZero): no series for it yet, where the family has
	// series for other resources or the server's version registers it.
	NoSample []string `json:"noSample,omitempty"`
	// NotExposed are the families of the block with no value for a
	// resource whose watch cache the server shows, and no reason to read
	// them as 0: no series at all, on a version that is not known to
	// register them (or a gauge with no series of its own).
	NotExposed []string `json:"notExposed,omitempty"`
}

// NotMeasured reports whether family could not be measured (a value no
// server can mean, or a TYPE no kube-apiserver gives it): its field is
// nil, and is not "no sample" either.
func (w WatchCache) NotMeasured(family string) bool {
	for _, u := range w.Unmeasured {
		if strings.HasPrefix(u, family+" ") {
			return true
		}
	}
	return false
}

// Found reports whether the server has a watch cache series for the resource.
func (w WatchCache) Found() bool {
	return w.Capacity != nil || w.EventsReceived != nil || w.ResourceVersion != nil || w.Initializations != nil
}

// Pick returns the series of group/resource in the snapshot: a family it
// could not measure (mistyped) leaves its field out, named in Unmeasured.
func (s *Snapshot) Pick(group, resource string) WatchCache {
	return s.Families.pick(group, resource, s.Mistyped)
}

// Pick returns the series of group/resource.
func (f Families) Pick(group, resource string) WatchCache { return f.pick(group, resource, nil) }

// pick reads the series of group/resource (the server's version from f's
// kubernetes_build_info).
func (f Families) pick(group, resource string, mistyped map[string]string) WatchCache {
	w := WatchCache{Group: group, Resource: resource}
	legacy := resource
	if group != "" {
		legacy = resource + "." + group
	}
	get := func(name string) *float64 {
		if why := mistyped[name]; why != "" {
			w.Unmeasured = append(w.Unmeasured, why)
			return nil
		}
		fam := f[name]
		if fam == nil {
			return nil
		}
		for _, m := range fam.GetMetric() {
			labels := map[string]string{}
			for _, lp := range m.GetLabel() {
				labels[lp.GetName()] = lp.GetValue()
			}
			g, hasGroup := labels["group"]
			r := labels["resource"]
			var match bool
			var style string
			switch {
			case hasGroup:
				match, style = g == group && r == resource, "group,resource"
			default:
				match, style = r == legacy, "resource"
			}
			if !match {
				continue
			}
			if w.Labels == "" {
				w.Labels = style
			}
			v := value(m)
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > 1<<53 {
				w.Unmeasured = append(w.Unmeasured, fmt.Sprintf("%s = %v", name, v))
				return nil
			}
			return &v
		}
		return nil
	}
	w.Capacity = get(FamilyCapacity)
	w.EventsReceived = get(FamilyEventsReceived)
	w.ResourceVersion = get(FamilyResourceVersion)
	w.Initializations = get(FamilyInitializations)
	w.TerminatedWatchers = get(FamilyTerminatedWatchers)
	w.CapacityIncreases = get(FamilyCapacityIncreases)
	w.CapacityDecreases = get(FamilyCapacityDecreases)
	if w.EtcdBookmarks = get(FamilyBookmarks); w.EtcdBookmarks == nil {
		w.EtcdBookmarks = get(FamilyBookmarksLegacy)
	}
	for _, fam := range []string{FamilyProcessStart, FamilyBuildInfo} {
		if why := mistyped[fam]; why != "" {
			// A restart between the two reads cannot be told; nor
			// which counters the version registers.
			w.Unmeasured = append(w.Unmeasured, why)
		}
	}
	w.countersNoSampleIsZero(f)
	return w
}

// countersNoSampleIsZero is the one rule for a watch-cache counter that
// has no series for a resource (probe --metrics and probe --all --metrics
// read it here; top's availability applies the same, through
// Registered): a counter has no series before its first increment, so
// for a resource whose watch cache this /metrics shows, a counter family
// with series for other resources, or one the server's version registers
// (no series at all: no terminated watcher, no capacity change since the
// server started), counts 0 for it, named in NoSample (fresh user try 19
// #6; try 20 #10: three families read as 0 were in no noSample, and the
// JSON had no terminated watchers). Any other family without a value is
// not exposed (NotExposed). A value that is no number stays unmeasured,
// never 0.
func (w *WatchCache) countersNoSampleIsZero(f Families) {
	if !w.Found() {
		return // no watch cache here for the resource: nothing to count
	}
	_, minor := f.version()
	for _, c := range []struct {
		family  string
		field   **float64
		counter bool
	}{
		{FamilyCapacity, &w.Capacity, false},
		{FamilyEventsReceived, &w.EventsReceived, true},
		{FamilyResourceVersion, &w.ResourceVersion, false},
		{FamilyInitializations, &w.Initializations, true},
		{FamilyTerminatedWatchers, &w.TerminatedWatchers, true},
		{FamilyCapacityIncreases, &w.CapacityIncreases, true},
		{FamilyCapacityDecreases, &w.CapacityDecreases, true},
	} {
		switch {
		case *c.field != nil || w.NotMeasured(c.family):
		case c.counter && (len(f[c.family].GetMetric()) > 0 || Registered(c.family, minor)):
			zero := 0.0
			*c.field = &zero
			w.NoSample = append(w.NoSample, c.family)
		default:
			w.NotExposed = append(w.NotExposed, c.family)
		}
	}
}

// ReadAsZero reports whether family was read as 0 for the resource: no
// series of its own, its family exposed (countersNoSampleIsZero).
func (w WatchCache) ReadAsZero(family string) bool { return slices.Contains(w.NoSample, family) }

func value(m *dto.Metric) float64 {
	switch {
	case m.GetCounter() != nil:
		return m.GetCounter().GetValue()
	case m.GetGauge() != nil:
		return m.GetGauge().GetValue()
	case m.GetUntyped() != nil:
		return m.GetUntyped().GetValue()
	}
	return 0
}
