package top

import (
	"fmt"
	"sort"

	dto "github.com/prometheus/client_model/go"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/metrics"
)

// Field is one per-resource quantity of a sample.
type Field int

// The per-resource fields. Gauges (watchers, objects, capacity, cache RV)
// are shown as they are in the second sample; every other field is a
// counter, shown as its difference over the interval.
const (
	Watchers Field = iota
	Events
	EventBytes
	CacheReceived
	CacheDispatched
	Terminated
	ListsCache
	ListsStorage
	CacheFetched
	CacheReturned
	StorageFetched
	StorageReturned
	Code410
	Code429
	Code5xx
	Objects
	Capacity
	CacheRV
	numFields
)

// gauge reports whether f is read as it is, not as a rate.
func (f Field) gauge() bool {
	return f == Watchers || f == Objects || f == Capacity || f == CacheRV
}

// ResourceValues are one resource's fields in one sample; a field with no
// series is not in the map.
type ResourceValues map[Field]float64

// APFKey is one series of apiserver_flowcontrol_rejected_requests_total.
type APFKey struct {
	PriorityLevel string `json:"priorityLevel"`
	FlowSchema    string `json:"flowSchema"`
	Reason        string `json:"reason"`
}

// Values is what top takes from one /metrics text.
type Values struct {
	// Series: the families with at least one series.
	Series    map[string]bool
	Resources map[schema.GroupResource]ResourceValues
	APF       map[APFKey]float64
	// ProcessStart is process_start_time_seconds (nil: not exposed): it
	// changes when the server restarts.
	ProcessStart *float64
	// GitVersion and Minor are kubernetes_build_info's.
	GitVersion string
	Minor      int
	// StorageLabel: apiserver_storage_list_* carry a "storage" label
	// (v1.37): every list is counted there, by who served it.
	StorageLabel bool
	// EventBytesEncoded: apiserver_watch_events_sizes is labelled by kind
	// (before v1.34), and its code measures each event's object as it is
	// encoded, once per encoding shared by every watcher that gets it, not
	// the bytes sent to each watcher (k8s.io/apiserver v0.30.14, v0.33.13
	// watchEncoder.doEncode; v0.35.4 on count the bytes written to each).
	EventBytesEncoded bool
	// ObjectsFamily is the family objects were read from ("" none).
	ObjectsFamily string
	// Unmapped names series that could not be tied to a resource.
	Unmapped []string
	// Unmeasured are the samples not taken (admit); bad is, by resource
	// and field, why the field is not measured.
	Unmeasured []Unmeasured
	bad        map[schema.GroupResource]map[Field]string
	// apfBad: some APF rejection sample was not taken.
	apfBad string
	// mistyped: the families declared with a TYPE no kube-apiserver gives
	// them (metrics.Selected.Mistyped), and why: every field read from
	// one is not measured (unmeasured), never "not exposed" nor 0.
	mistyped map[string]string
}

// Extract reads the families top needs from one parsed /metrics.
func Extract(sel *metrics.Selected, kinds KindResources) *Values {
	f := sel.Families
	v := &Values{Series: map[string]bool{}, Resources: map[schema.GroupResource]ResourceValues{}, APF: map[APFKey]float64{}, mistyped: map[string]string{}}
	for _, name := range Families {
		if why := sel.Mistyped[name]; why != "" {
			v.mistyped[name] = why
			v.Unmeasured = append(v.Unmeasured, Unmeasured{Family: name, Why: why})
		}
	}
	if why := v.mistyped[famAPFRejected]; why != "" {
		v.apfBad = Unmeasured{Family: famAPFRejected, Why: why}.String()
	}
	for name, fam := range f {
		if len(fam.GetMetric()) > 0 {
			v.Series[name] = true
		}
	}
	if fam := f[famBuildInfo]; fam != nil && len(fam.GetMetric()) > 0 {
		l := labelsOf(fam.GetMetric()[0])
		// Bounded as /version's (apiclient.ParseVersion): top's title
		// and notes name it.
		v.GitVersion, v.Minor = text.Echo(l["git_version"]), minorOf(l["minor"], l["git_version"])
	}
	if fam := f[famProcessStart]; fam != nil && len(fam.GetMetric()) > 0 {
		if s, bad := v.admit(famProcessStart, nil, sampleValue(fam.GetMetric()[0]), true); bad == "" {
			v.ProcessStart = &s
		}
	}
	v.StorageLabel = v.Minor >= 37
	if fam := f[famStorageList]; fam != nil && len(fam.GetMetric()) > 0 {
		_, v.StorageLabel = labelsOf(fam.GetMetric()[0])["storage"]
	}

	// add takes one series' value x of family into field of gr, through
	// admit: a value no server can mean leaves the field unmeasured.
	add := func(gr schema.GroupResource, field Field, family string, x float64) {
		rv := v.Resources[gr]
		if rv == nil {
			rv = ResourceValues{}
			v.Resources[gr] = rv
		}
		// Every field counts up from 0 but the stored objects, which the
		// server sets to -1 when its count failed.
		x, bad := v.admit(family, &gr, x, field != Objects)
		if bad != "" {
			v.markBad(gr, field, bad)
			return
		}
		rv[field] += x
	}
	// each adds every series of family to field, mapped by labels.
	each := func(family string, field Field, keep func(labels) bool) {
		for _, m := range f[family].GetMetric() {
			l := labelsOf(m)
			if keep != nil && !keep(l) {
				continue
			}
			if gr, ok := l.direct(); ok {
				add(gr, field, family, sampleValue(m))
			}
		}
	}
	each(famCapacity, Capacity, nil)
	each(famCacheReceived, CacheReceived, nil)
	each(famCacheDispatched, CacheDispatched, nil)
	each(famTerminated, Terminated, nil)
	each(famCacheRV, CacheRV, nil)
	each(famLongRunning, Watchers, func(l labels) bool { return l["verb"] == "WATCH" })
	v.extractObjects(f, add)
	v.extractRequests(f, add)
	v.extractLists(f, add)
	v.extractWatchEvents(f, kinds, add)
	for _, m := range f[famAPFRejected].GetMetric() {
		l := labelsOf(m)
		x, bad := v.admit(famAPFRejected, nil, sampleValue(m), true)
		if bad != "" {
			v.apfBad = bad
			continue
		}
		v.APF[APFKey{PriorityLevel: l["priority_level"], FlowSchema: l["flow_schema"], Reason: l["reason"]}] += x
	}
	sort.Strings(v.Unmapped)
	return v
}

type adder func(gr schema.GroupResource, field Field, family string, x float64)

// extractObjects reads the stored objects, from apiserver_resource_objects
// when the server has it, else apiserver_storage_objects (v1.35 and v1.36
// expose both: the newer is taken).
func (v *Values) extractObjects(f metrics.Families, add adder) {
	for _, name := range []string{famObjects, famObjectsLegacy} {
		if v.mistyped[name] != "" {
			v.ObjectsFamily = name // not measured (unmeasured), never the other one's
			return
		}
		fam := f[name]
		if fam == nil || len(fam.GetMetric()) == 0 {
			continue
		}
		v.ObjectsFamily = name
		for _, m := range fam.GetMetric() {
			if gr, ok := labelsOf(m).direct(); ok {
				add(gr, Objects, name, sampleValue(m))
			}
		}
		return
	}
}

// extractRequests counts the 410, 429 and 5xx answers per resource.
func (v *Values) extractRequests(f metrics.Families, add adder) {
	for _, m := range f[famRequests].GetMetric() {
		l := labelsOf(m)
		gr, ok := l.direct()
		if !ok {
			continue
		}
		switch code := l["code"]; {
		case code == "410":
			add(gr, Code410, famRequests, sampleValue(m))
		case code == "429":
			add(gr, Code429, famRequests, sampleValue(m))
		case len(code) == 3 && code[0] == '5':
			add(gr, Code5xx, famRequests, sampleValue(m))
		}
	}
}

// extractLists reads who served the lists and the objects they read:
// from v1.37 every list is in apiserver_storage_list_* by its "storage"
// label; before, storage lists are there and the watch cache's are in
// apiserver_cache_list_*, labelled by storage prefix up to v1.33.
func (v *Values) extractLists(f metrics.Families, add adder) {
	storageField := func(l labels, etcd, cache Field) (Field, bool) {
		if !v.StorageLabel {
			return etcd, true
		}
		switch l["storage"] {
		case "etcd":
			return etcd, true
		case "watchcache":
			return cache, true
		}
		return 0, false
	}
	for family, fields := range map[string][2]Field{
		famStorageList:     {ListsStorage, ListsCache},
		famStorageFetched:  {StorageFetched, CacheFetched},
		famStorageReturned: {StorageReturned, CacheReturned},
	} {
		for _, m := range f[family].GetMetric() {
			l := labelsOf(m)
			field, ok := storageField(l, fields[0], fields[1])
			gr, mapped := l.direct()
			if ok && mapped {
				add(gr, field, family, sampleValue(m))
			}
		}
	}
	if v.StorageLabel {
		return // apiserver_cache_list_* count the same lists again
	}
	cached := map[schema.GroupResource]bool{}
	for gr, rv := range v.Resources {
		if _, ok := rv[Capacity]; ok {
			cached[gr] = true
		}
	}
	for family, field := range map[string]Field{famCacheList: ListsCache, famCacheListFetched: CacheFetched, famCacheListReturned: CacheReturned} {
		for _, m := range f[family].GetMetric() {
			l := labelsOf(m)
			gr, ok := l.direct()
			if p, byPrefix := l["resource_prefix"]; byPrefix {
				gr, ok = fromPrefix(p, cached)
				if !ok {
					v.unmapped(family, "resource_prefix", p)
				}
			}
			if ok {
				add(gr, field, family, sampleValue(m))
			}
		}
	}
}

// extractWatchEvents reads the events sent to watchers and their bytes
// (the size histogram's sum), labelled by kind before v1.34.
func (v *Values) extractWatchEvents(f metrics.Families, kinds KindResources, add adder) {
	for family, field := range map[string]Field{famWatchEvents: Events, famWatchEventSizes: EventBytes} {
		for _, m := range f[family].GetMetric() {
			l := labelsOf(m)
			x := sampleValue(m)
			if field == EventBytes {
				x = m.GetHistogram().GetSampleSum()
			}
			if kind, byKind := l["kind"]; byKind {
				if field == EventBytes {
					v.EventBytesEncoded = true
				}
				r, ok := "", false
				if kinds != nil {
					r, ok = kinds(l["group"], kind)
				}
				if !ok {
					v.unmapped(family, "kind", groupKind(l["group"], kind))
					continue
				}
				add(schema.GroupResource{Group: l["group"], Resource: r}, field, family, x)
				continue
			}
			if gr, ok := l.direct(); ok {
				add(gr, field, family, x)
			}
		}
	}
}

func groupKind(group, kind string) string {
	if group == "" {
		return kind
	}
	return kind + "." + group
}

func (v *Values) unmapped(family, label, value string) {
	s := fmt.Sprintf("%s{%s=%q}", family, label, value)
	for _, u := range v.Unmapped {
		if u == s {
			return
		}
	}
	v.Unmapped = append(v.Unmapped, s)
}

// Cached reports whether gr has a watch cache on the server (a cacher
// exposes watch_cache_capacity from its start).
func (v *Values) Cached(gr schema.GroupResource) bool {
	_, ok := v.Resources[gr][Capacity]
	return ok
}

// AnyCache reports whether the server has a watch cache at all.
func (v *Values) AnyCache() bool { return v.Series[famCapacity] }

func sampleValue(m *dto.Metric) float64 {
	switch {
	case m.GetCounter() != nil:
		return m.GetCounter().GetValue()
	case m.GetGauge() != nil:
		return m.GetGauge().GetValue()
	case m.GetUntyped() != nil:
		return m.GetUntyped().GetValue()
	case m.GetHistogram() != nil:
		return float64(m.GetHistogram().GetSampleCount())
	}
	return 0
}

// nameOf is group/resource as kubectl prints it.
func nameOf(gr schema.GroupResource) string {
	if gr.Group == "" {
		return gr.Resource
	}
	return gr.Resource + "." + gr.Group
}
