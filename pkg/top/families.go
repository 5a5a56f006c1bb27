// Package top measures the List/Watch load of API servers from their own
// /metrics: two reads of one server's counters an interval apart give, per
// resource, its watchers, the events sent to them, the lists served by the
// watch cache and by storage, the objects those lists read, the watchers
// closed as too slow and the error answers. It knows how the metric names
// and labels differ by kube-apiserver version (read from k8s.io/apiserver
// v0.30.14 to v0.37.2) and says which family a server does not expose
// rather than showing 0.
package top

import (
	"strconv"
	"strings"
)

// The families top reads. Names and labels by version (k8s.io/apiserver
// and component-base sources, checked on every cell of the matrix):
//
//   - longRunning: {verb,group,version,resource,subresource,scope,component}
//     on every version; one series per scope (summed).
//   - watchEvents, watchEventSizes (a histogram: its sum is bytes):
//     {group,version,kind} up to v1.33, {group,version,resource} from v1.34.
//   - cacheReceived, cacheDispatched, terminated, capacity, cacheRV:
//     {resource="R.G"} up to v1.33, {group,resource} from v1.34; only for a
//     resource with a watch cache. cacheRV is not in v1.30.
//   - cacheList*: {resource_prefix,index} up to v1.33 (the storage prefix:
//     "/configmaps", "/minions" for nodes), {group,resource,index} on v1.34
//     to v1.36; deprecated in v1.37.0 as ALPHA, so v1.37 hides it (component-
//     base hides a deprecated ALPHA metric from its deprecation version on).
//   - storageList*: storage (etcd, kine) lists only, {resource="R.G"} up to
//     v1.33, {group,resource} on v1.34 to v1.36; from v1.37 every list,
//     {group,resource,storage="etcd"|"watchcache"} (+ index on total and
//     fetched).
//   - objects (v1.34 on) replaces objectsLegacy (STABLE, deprecated in
//     v1.34.0, so hidden from v1.37).
const (
	famLongRunning       = "apiserver_longrunning_requests"
	famWatchEvents       = "apiserver_watch_events_total"
	famWatchEventSizes   = "apiserver_watch_events_sizes"
	famCacheReceived     = "apiserver_watch_cache_events_received_total"
	famCacheDispatched   = "apiserver_watch_cache_events_dispatched_total"
	famTerminated        = "apiserver_terminated_watchers_total"
	famCapacity          = "watch_cache_capacity"
	famCacheRV           = "apiserver_watch_cache_resource_version"
	famCacheList         = "apiserver_cache_list_total"
	famCacheListFetched  = "apiserver_cache_list_fetched_objects_total"
	famCacheListReturned = "apiserver_cache_list_returned_objects_total"
	famStorageList       = "apiserver_storage_list_total"
	famStorageFetched    = "apiserver_storage_list_fetched_objects_total"
	famStorageReturned   = "apiserver_storage_list_returned_objects_total"
	famRequests          = "apiserver_request_total"
	famAPFRejected       = "apiserver_flowcontrol_rejected_requests_total"
	famObjects           = "apiserver_resource_objects"
	famObjectsLegacy     = "apiserver_storage_objects"
	famProcessStart      = "process_start_time_seconds"
	famBuildInfo         = "kubernetes_build_info"
	// famAuditEvents tells an API server's /metrics from another
	// program's (metrics.FamilyAuditEvents); top shows nothing of it.
	famAuditEvents = "apiserver_audit_event_total"
)

// Families are the names top asks /metrics for (the name[] filter of
// kube-apiserver v1.37's client_golang v1.24; older servers send
// everything and top keeps these).
var Families = []string{
	famLongRunning, famWatchEvents, famWatchEventSizes,
	famCacheReceived, famCacheDispatched, famTerminated, famCapacity, famCacheRV,
	famCacheList, famCacheListFetched, famCacheListReturned,
	famStorageList, famStorageFetched, famStorageReturned,
	famRequests, famAPFRejected, famObjects, famObjectsLegacy,
	famProcessStart, famBuildInfo, famAuditEvents,
}

// Known minor versions: the counters below are registered on every
// version from knownMinMinor to knownMaxMinor, so a counter with no series
// at all there has counted nothing yet (a counter vector has no series
// before its first increment). Outside the range a family without series
// is "not seen", never 0.
const (
	knownMinMinor = 30
	knownMaxMinor = 37
)

// registered reports whether family is registered, series or not, on a
// kube-apiserver of minor version minor (0: unknown).
func registered(family string, minor int) bool {
	if minor < knownMinMinor || minor > knownMaxMinor {
		return false
	}
	switch family {
	case famCacheList, famCacheListFetched, famCacheListReturned:
		return minor <= 36
	case famWatchEvents, famWatchEventSizes, famTerminated, famStorageList, famStorageFetched,
		famStorageReturned, famAPFRejected, famCacheReceived, famCacheDispatched:
		return true
	case famRequests:
		// Every running server has answered requests (its own loopback
		// clients' at least): no sample of them is no exposure (a
		// --disabled-metrics), never a count of 0.
		return false
	}
	return false
}

// minorOf reads kubernetes_build_info's "minor" label ("37", "37+"), or,
// when the server has none, the minor of its git_version ("v1.37.2",
// "v1.37.2-gke.100"); 0 when neither says.
func minorOf(minor, gitVersion string) int {
	if n, err := strconv.Atoi(strings.TrimRight(minor, "+")); err == nil && minor != "" {
		return n
	}
	rest, ok := strings.CutPrefix(gitVersion, "v1.")
	if !ok {
		return 0
	}
	end := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' })
	if end < 0 {
		end = len(rest)
	}
	n, err := strconv.Atoi(rest[:end])
	if err != nil {
		return 0
	}
	return n
}

// rvReadsCountAsLists: on these minors the watch cache reads etcd's
// current RV (before a consistent list it serves, or a watch it starts at
// the current RV) with a storage list of no object, counted in
// apiserver_storage_list_total (k8s.io/apiserver v0.33.13 to v0.36.3,
// etcd3 store.GetCurrentResourceVersion calls GetList; v0.37.2 reads the
// revision with a Get, not counted; v0.30.14 serves consistent lists from
// storage).
func rvReadsCountAsLists(minor int) bool { return minor >= 33 && minor <= 36 }
