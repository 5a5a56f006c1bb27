package serverinfo

import (
	"fmt"
	"strings"
)

// This file is the one place where a text whose truth depends on the
// server (its version, its gates, whether the resource has a watch cache,
// its storage) is chosen. Callers pass the Info they have (nil when they
// read none); each text says only what that Info supports.

// StorageName is how the plugin names the storage under the API server:
// from the client side etcd and a shim such as kine (k3s) answer alike,
// with the same 410 wordings, so it is never called etcd unless known.
func (in *Info) StorageName() string {
	if in != nil && in.Storage != "" && in.Storage != "unknown" {
		return in.Storage
	}
	return "storage (etcd, or a shim such as kine)"
}

// ListSource says who serves a list with these parameters on this server:
// the watch cache or storage, by the API server's delegation rules of its
// version (apiserver storage/cacher) and what is known of the resource's
// cache. rv "" is a consistent read, "0" any; match is "", NotOlderThan or
// Exact.
func (in *Info) ListSource(rv, match string, limit int64) string {
	st := in.StorageName()
	if in.cacheOff() {
		if rv == "0" && match != "Exact" {
			return "served by " + st + ": this resource has no watch cache on this server, so rv=0 reads the newest state with one storage round trip, like a consistent read"
		}
		return "served by " + st + ": this resource has no watch cache on this server"
	}
	cache := "the watch cache"
	if in == nil || in.WatchCache == Unknown {
		cache = "the watch cache (if this resource has one: not known here)"
	}
	exactLegacy := match == "" && rv != "" && rv != "0" && limit > 0
	switch {
	case rv == "" && !in.versionKnown():
		return "served by " + cache + " once it has caught up with " + st + " where ConsistentListFromCache is on (v1.31 and later), else by " + st + " (server version not known)"
	case rv == "" && in.Gate(GateConsistentListFromCache):
		return "served by " + cache + " once it has caught up with " + st + " (ConsistentListFromCache on)"
	case rv == "":
		return "served by " + st + ", not the watch cache (ConsistentListFromCache is off on " + in.Version + ")"
	case rv == "0" && match != "Exact":
		return "whatever " + cache + " holds, possibly stale; no storage round trip"
	case match == "Exact" || exactLegacy:
		if !in.versionKnown() {
			return "served by " + st + ", or by " + cache + "'s snapshots where ListFromCacheSnapshot is on (v1.34 and later; server version not known)"
		}
		if in.Gate(GateListFromCacheSnapshot) {
			return "served from " + cache + "'s snapshots while they reach back that far, else by " + st + " (ListFromCacheSnapshot on)"
		}
		return "served by " + st + " (ListFromCacheSnapshot is off on " + in.Version + ")"
	case limit > 0 && in.limitGoesToStorage():
		return "served by " + st + ": on " + in.Version + " a list with a limit and an RV other than 0 bypasses the watch cache"
	case limit > 0 && !in.versionKnown():
		return "served by " + cache + ", or by " + st + " on v1.30 and older where a list with a limit bypasses the cache (server version not known)"
	default:
		return "served by " + cache + ", which first waits for it to reach that RV"
	}
}

// limitGoesToStorage: the "has a limit" rule of v1.30 and older
// (cacher.shouldDelegateList: a limit with an RV other than 0 goes to
// storage); seen on v1.30.14, gone by v1.33.13.
func (in *Info) limitGoesToStorage() bool { return in.versionKnown() && in.Minor <= 30 }

// TooLargeWait says how long a list from an RV ahead of the server waits
// before its 504, for a list with (limit > 0) or without a limit: the watch
// cache waits up to ~3 s for its RV to catch up (seen on v1.37.2); a list
// storage serves (v1.30 with a limit, or no watch cache) is answered at
// once. "" when it is not known: then no wait is claimed.
func (in *Info) TooLargeWait(limit int64) string {
	switch {
	case in.cacheOff(), limit > 0 && in.limitGoesToStorage():
		return "at once (" + in.StorageName() + " answers it, no watch cache wait)"
	case in.versionKnown() && in.WatchCache == Yes:
		return "after the watch cache waited up to ~3 s for it"
	}
	return ""
}

// StreamingRefusedHint explains a 422 "sendInitialEvents is forbidden for
// watch unless the WatchList feature gate is enabled": the request is
// fine, the server lacks the feature.
func (in *Info) StreamingRefusedHint() string {
	on := "off"
	if in.versionKnown() {
		if _, seen := in.GatesSeen[GateWatchList]; seen {
			on = fmt.Sprintf("off on this %s server (kubernetes_feature_enabled)", in.Version)
		} else {
			on = fmt.Sprintf("off by default on %s", in.Version)
		}
	}
	return "the request flags are fine: this API server does not serve streaming lists (its WatchList feature gate is " + on + "; default on v1.32 and v1.34 and later, off on v1.33); list, then watch from the list's RV, as client-go's informers fall back to"
}

// BookmarksExpected: a quiet watch gets a bookmark about once a minute
// (the watch cache sends them). Watches storage serves (no watch cache)
// never get one, even with allowWatchBookmarks=true (seen on every version
// of the matrix with the cache off), so silence there is not a stall.
func (in *Info) BookmarksExpected() bool { return !in.cacheOff() }

// NoStallNote says why a following watch does not treat silence as a
// stall here (the caller names the setting that turns the check on).
func (in *Info) NoStallNote(resource string) string {
	return resource + " has no watch cache on this server: its watches are served by " + in.StorageName() + ", which sends no bookmarks, so a quiet stream stays silent and is not taken for a stall"
}

// Summary is the one line a human output shows of the Info: what was
// known, and how much was assumed.
func (in *Info) Summary() string {
	if in == nil {
		return "not read"
	}
	v := in.Version
	if v == "" {
		v = "version unknown"
	}
	parts := []string{v}
	if in.Resource != "" {
		parts = append(parts, fmt.Sprintf("watch cache for %s: %s", in.Resource, map[Tri]string{Yes: "on", No: "off", Unknown: "unknown"}[in.WatchCache]))
	}
	if len(in.GatesSeen) > 0 {
		parts = append(parts, "gates read from /metrics")
	}
	s := strings.Join(parts, "; ")
	if len(in.Assumed) > 0 {
		s += "; assumed: " + strings.Join(in.Assumed, "; ")
	}
	return s
}
