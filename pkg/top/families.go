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
	"github.com/watchrv/kubectl-watchrv/pkg/metrics"
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
	famBuildInfo         = metrics.FamilyBuildInfo
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

// Known minor versions (metrics.KnownMinMinor, KnownMaxMinor): outside
// them a family without series is "not seen", never 0.
const (
	knownMinMinor = metrics.KnownMinMinor
	knownMaxMinor = metrics.KnownMaxMinor
)

// registered is the one rule of a family with no series at all
// (metrics.Registered: probe --metrics reads it alike).
func registered(family string, minor int) bool { return metrics.Registered(family, minor) }

// minorOf is the server's minor version (metrics.MinorOf).
func minorOf(minor, gitVersion string) int { return metrics.MinorOf(minor, gitVersion) }

// rvReadsCountAsLists: on these minors the watch cache reads etcd's
// current RV (before a consistent list it serves, or a watch it starts at
// the current RV) with a storage list of no object, counted in
// apiserver_storage_list_total (k8s.io/apiserver v0.33.13 to v0.36.3,
// etcd3 store.GetCurrentResourceVersion calls GetList; v0.37.2 reads the
// revision with a Get, not counted; v0.30.14 serves consistent lists from
// storage).
func rvReadsCountAsLists(minor int) bool { return minor >= 33 && minor <= 36 }
