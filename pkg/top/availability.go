package top

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// family is the family field f is read from on this server.
func (v *Values) family(f Field) string {
	switch f {
	case Watchers:
		return famLongRunning
	case Events:
		return famWatchEvents
	case EventBytes:
		return famWatchEventSizes
	case CacheReceived:
		return famCacheReceived
	case CacheDispatched:
		return famCacheDispatched
	case Terminated:
		return famTerminated
	case ListsCache:
		if v.StorageLabel {
			return famStorageList
		}
		return famCacheList
	case CacheFetched:
		if v.StorageLabel {
			return famStorageFetched
		}
		return famCacheListFetched
	case CacheReturned:
		if v.StorageLabel {
			return famStorageReturned
		}
		return famCacheListReturned
	case ListsStorage:
		return famStorageList
	case StorageFetched:
		return famStorageFetched
	case StorageReturned:
		return famStorageReturned
	case Code410, Code429, Code5xx:
		return famRequests
	case Objects:
		if v.ObjectsFamily != "" {
			return v.ObjectsFamily
		}
		return famObjects
	case Capacity:
		return famCapacity
	case CacheRV:
		return famCacheRV
	}
	return ""
}

// cacheField: the field is the watch cache's own (only a resource with a
// watch cache has it).
func (f Field) cacheField() bool {
	switch f {
	case CacheReceived, CacheDispatched, Terminated, ListsCache, CacheFetched, CacheReturned, Capacity, CacheRV:
		return true
	}
	return false
}

// Why a field has no value.
const (
	reasonNoCache       = "the watch cache is off on this server (watch_cache_capacity has no series)"
	reasonNotCached     = "no watch cache for this resource on this server (watch_cache_capacity has no series for it)"
	reasonObjectsUnseen = "not counted yet for this resource (the server counts stored objects every --etcd-count-metric-poll-period, 1m by default)"
)

// availability is "" when field f of gr has a value on this server, or
// why not, naming the family. A counter family with series, or registered
// on the server's version, counts 0 where a resource has no series; a
// gauge is known only from a series of its own (watchers: once the family
// has any series, a resource never watched since the start has none).
func (v *Values) availability(gr schema.GroupResource, f Field) string {
	fam := v.family(f)
	if f.cacheField() && v.unmeasured(gr, Capacity) == "" {
		// (A capacity not measured tells neither: no claim of a cache.)
		series := fam
		if v.StorageLabel && v.Series[fam] && (f == ListsCache || f == CacheFetched || f == CacheReturned) {
			series += `{storage="watchcache"}` // the family counts storage's lists too
		}
		switch {
		case !v.AnyCache():
			return series + ": " + reasonNoCache
		case !v.Cached(gr):
			return series + ": " + reasonNotCached
		}
	}
	_, has := v.Resources[gr][f]
	switch f {
	case Capacity:
		return ""
	case CacheRV:
		if has {
			return ""
		}
		return fam + ": " + v.notExposed()
	case Watchers:
		if v.Series[fam] {
			return ""
		}
		return fam + ": " + v.notExposed()
	case Objects:
		switch {
		case has:
			return ""
		case v.ObjectsFamily != "":
			return fam + ": " + reasonObjectsUnseen
		}
		return famObjects + " and " + famObjectsLegacy + ": " + v.notExposed()
	}
	if v.Series[fam] || registered(fam, v.Minor) {
		return ""
	}
	return fam + ": " + v.absent(fam)
}

// absent says why a family has no sample: not exposed by the version, or,
// for the requests every server counts, not exposed by this server.
func (v *Values) absent(fam string) string {
	if fam == famRequests && v.Minor >= knownMinMinor && v.Minor <= knownMaxMinor {
		return "no sample, though every running server counts its requests: this server does not expose it (--disabled-metrics?)"
	}
	return v.notExposed()
}

// notExposed says why a family is absent: the version, named.
func (v *Values) notExposed() string {
	switch {
	case v.GitVersion == "":
		return "not exposed by this server"
	case v.Minor < knownMinMinor || v.Minor > knownMaxMinor:
		return fmt.Sprintf("not seen on this server (%s, outside v1.%d-v1.%d that this plugin knows)", v.GitVersion, knownMinMinor, knownMaxMinor)
	}
	return "not exposed by " + v.GitVersion
}

// missingFamilies is, once per family, every family some column of some
// resource would read that this server does not expose at all. A family
// is missing only when no sample of it was seen: one that serves two
// columns (v1.37's apiserver_storage_list_* count the lists of storage
// and of the watch cache) is not missing because one of them is n/a.
func (v *Values) missingFamilies() []Missing {
	out := []Missing{}
	seen := map[string]bool{}
	addMissing := func(fam, reason string) {
		if v.Series[fam] || v.mistyped[fam] != "" {
			return // a mistyped family is named under Unmeasured
		}
		if !seen[fam] {
			seen[fam] = true
			out = append(out, Missing{Family: fam, Reason: reason})
		}
	}
	for f := Field(0); f < numFields; f++ {
		fam := v.family(f)
		switch {
		case f.cacheField() && !v.AnyCache() && v.mistyped[famCapacity] == "":
			addMissing(fam, reasonNoCache)
		case f == Objects && v.ObjectsFamily == "":
			addMissing(famObjects+" and "+famObjectsLegacy, v.notExposed())
		case f == Capacity || f == Objects:
		case f == CacheRV:
			if !v.Series[fam] {
				addMissing(fam, v.notExposed())
			}
		case f == Watchers:
			if !v.Series[fam] {
				addMissing(fam, v.notExposed())
			}
		default:
			if !v.Series[fam] && !registered(fam, v.Minor) {
				addMissing(fam, v.absent(fam))
			}
		}
	}
	if v.StorageLabel && !v.Series[famCacheList] {
		// Where the watch cache is off there are no cache lists to read
		// (fresh user try 44 F5: the cache-on words on a cache-off server).
		where := ": the watch cache's lists are read from " + famStorageList + `{storage="watchcache"}`
		if !v.AnyCache() && v.mistyped[famCapacity] == "" {
			where = "; " + reasonNoCache
		}
		addMissing(famCacheList, v.notExposed()+" (deprecated in v1.37.0, hidden from then on)"+where)
	}
	if !v.Series[famAPFRejected] && !registered(famAPFRejected, v.Minor) {
		addMissing(famAPFRejected, v.notExposed())
	}
	if v.ProcessStart == nil {
		addMissing(famProcessStart, v.notExposed()+": a restart between the samples is seen only by counters that went down")
	}
	return out
}
