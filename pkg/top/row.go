package top

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Row is one resource on one server over one interval.
type Row struct {
	// Server is the server's number (1-based, as in the servers list).
	Server   int    `json:"server"`
	Group    string `json:"group"`
	Resource string `json:"resource"`
	// WatchCache is what top measured of the watch cache for this
	// resource on this server (on, off, unknown): every text that says
	// who serves its lists follows it.
	WatchCache CacheState `json:"watchCache"`

	// Watchers is the WATCH requests open now (apiserver_longrunning_requests).
	Watchers Gauge `json:"watchers"`
	// Events were sent to watchers (one per watcher per event: an event
	// of a resource with 5 watchers counts 5); EventBytes their bytes, as
	// the server's Server.EventBytes says (sent, or encoded).
	Events     Rate `json:"events"`
	EventBytes Rate `json:"eventBytes"`
	// CacheReceived: events from storage into the watch cache;
	// CacheDispatched: events the cache's dispatcher processed.
	CacheReceived   Rate `json:"cacheEventsReceived"`
	CacheDispatched Rate `json:"cacheEventsDispatched"`
	// Terminated: watchers the watch cache closed because they did not
	// take their events fast enough.
	Terminated Rate `json:"terminatedWatchers"`
	// ListsCache and ListsStorage: lists served by the watch cache and by
	// storage (etcd, or kine behind its etcd API); the objects each read
	// (fetched) and returned.
	ListsCache      Rate `json:"listsFromWatchCache"`
	ListsStorage    Rate `json:"listsFromStorage"`
	CacheFetched    Rate `json:"watchCacheListFetched"`
	CacheReturned   Rate `json:"watchCacheListReturned"`
	StorageFetched  Rate `json:"storageListFetched"`
	StorageReturned Rate `json:"storageListReturned"`
	// StorageListRatio is StorageFetched / StorageReturned over the
	// interval (returned 0 counts as 1), when storage lists were served.
	StorageListRatio *float64 `json:"storageListRatio,omitempty"`
	// Code410, Code429, Code5xx: answers with those codes, every verb.
	Code410 Rate `json:"code410"`
	Code429 Rate `json:"code429"`
	Code5xx Rate `json:"code5xx"`
	// Objects stored (the server counts them about once a minute, -1 on
	// error); Capacity of the watch cache; CacheRV its resourceVersion
	// (the gauge keeps 15 digits), and how far it is behind the newest
	// watch-cache RV of the same server.
	Objects             Gauge    `json:"objects"`
	Capacity            Gauge    `json:"watchCacheCapacity"`
	CacheRV             Gauge    `json:"watchCacheRV"`
	CacheRVBehindNewest *float64 `json:"watchCacheRVBehindNewest,omitempty"`
}

// GR is the row's group/resource.
func (r *Row) GR() schema.GroupResource {
	return schema.GroupResource{Group: r.Group, Resource: r.Resource}
}

// Name is the resource as kubectl prints it.
func (r *Row) Name() string { return nameOf(r.GR()) }

// rate returns the counter field f.
func (r *Row) rate(f Field) *Rate {
	switch f {
	case Events:
		return &r.Events
	case EventBytes:
		return &r.EventBytes
	case CacheReceived:
		return &r.CacheReceived
	case CacheDispatched:
		return &r.CacheDispatched
	case Terminated:
		return &r.Terminated
	case ListsCache:
		return &r.ListsCache
	case ListsStorage:
		return &r.ListsStorage
	case CacheFetched:
		return &r.CacheFetched
	case CacheReturned:
		return &r.CacheReturned
	case StorageFetched:
		return &r.StorageFetched
	case StorageReturned:
		return &r.StorageReturned
	case Code410:
		return &r.Code410
	case Code429:
		return &r.Code429
	case Code5xx:
		return &r.Code5xx
	}
	panic(fmt.Sprintf("field %d is not a counter", f))
}

// gauge returns the gauge field f.
func (r *Row) gauge(f Field) *Gauge {
	switch f {
	case Watchers:
		return &r.Watchers
	case Objects:
		return &r.Objects
	case Capacity:
		return &r.Capacity
	case CacheRV:
		return &r.CacheRV
	}
	panic(fmt.Sprintf("field %d is not a gauge", f))
}

// Active: the row had load in the interval (a watcher, an event, a list,
// an error answer, a closed watcher), a counter that went down, or a
// field not measured (a sample no server can mean is shown as "?", never
// hidden as no load).
func (r *Row) Active() bool {
	if r.Watchers.V() > 0 {
		return true
	}
	for f := Field(0); f < numFields; f++ {
		if f.gauge() {
			if r.gauge(f).Unmeasured != "" {
				return true
			}
			continue
		}
		if x := r.rate(f); x.D() > 0 || x.WentDown || x.Unmeasured != "" {
			return true
		}
	}
	return false
}

// Lists is every list served in the interval, cache and storage.
func (r *Row) Lists() float64 { return r.ListsCache.D() + r.ListsStorage.D() }

// ListsPerSecond is Lists over the interval.
func (r *Row) ListsPerSecond() float64 { return r.ListsCache.PS() + r.ListsStorage.PS() }

// Errors is the 410, 429 and 5xx answers in the interval.
func (r *Row) Errors() float64 { return r.Code410.D() + r.Code429.D() + r.Code5xx.D() }

// CacheState is whether a server has a watch cache for a resource, as top
// measured it (watch_cache_capacity: a cacher exposes it from its start).
type CacheState string

// The watch cache of a resource on a server.
const (
	CacheOn      CacheState = "on"
	CacheOff     CacheState = "off"
	CacheUnknown CacheState = "unknown"
)

// watchCache is the one rule of CacheState: b is the server's second
// sample (nil: not read).
func watchCache(b *Values, gr schema.GroupResource) CacheState {
	switch {
	case b == nil:
		return CacheUnknown
	case b.Cached(gr):
		return CacheOn
	case b.unmeasured(gr, Capacity) != "":
		return CacheUnknown
	}
	return CacheOff
}
