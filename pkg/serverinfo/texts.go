package serverinfo

import (
	"fmt"
	"strings"
	"time"

	"github.com/watchrv/kubectl-watchrv/internal/text"
)

// This file is the one place where a text whose truth depends on the
// server (its version, its gates, whether the resource has a watch cache,
// its storage) is chosen. Callers pass the Info they have (nil when they
// read none); each text says only what that Info supports.

// StorageName is how the plugin names the storage under the API server:
// from the client side etcd and a shim such as kine (k3s) answer alike,
// with the same 410 wordings, so it is never called etcd unless known.
func (in *Info) StorageName() string {
	if in.notOwn() {
		return "the storage of the server that serves " + text.Echo(in.Resource) + " (not known to be this API server's)"
	}
	if in != nil && in.Storage != "" && in.Storage != "unknown" {
		return in.Storage
	}
	return "storage (etcd, or a shim such as kine)"
}

// ReadText is a list's read semantics in words: asks, what the request
// asks for, then ownRule, what the kube-apiserver's storage or watch
// cache does with it (listing.ReadSemantics), said only of a resource
// this API server is known to serve itself (Serves). Of another, the
// state is as the server that serves it gives it, with why that server
// is not known to be this one: never a quorum read of this server's
// storage (adversary try 21 F8), nor etcd's compaction (try 22).
func (in *Info) ReadText(asks, ownRule string) string {
	if ownRule == "" || !in.notOwn() {
		return asks + ownRule
	}
	return asks + ", as the server that serves " + text.Echo(in.Resource) + " gives it (not known to be this API server: " + in.ServesWhy + ")"
}

// ReadRule is what the kube-apiserver does with a list of this mode
// (listing.ReadSemantics' Mode and OwnRule), as far as who serves its first
// page tells (from, ListServed): the rule must never contradict the
// Served by line (fresh user try 46 F1, F4). An exact list that the watch
// cache's snapshots may serve is answered after storage compacted its RV,
// while a snapshot holds it (apiserver cacher delegator: the cache's
// Expired falls back to storage under ListFromCacheSnapshot); an rv=0 list
// that storage serves (no watch cache) reads the newest state.
func (in *Info) ReadRule(mode, rv string, from Server, rule string) string {
	switch {
	case mode == "Exact" && from != ByStorage:
		return fmt.Sprintf("; fails with 410 Expired once %s is compacted in storage and no watch cache snapshot holds it", rv)
	case mode == "Any" && from == ByStorage:
		return ", here the newest: with no watch cache for it, storage answers"
	}
	return rule
}

// NameOnly is the Info of a run that read nothing of the server: who
// serves resource ("resource.group") is then known from its group alone
// (Serves, with no /metrics read), so that a text of a run that reads no
// facts (list --rv-only) goes through the one decision too.
func NameOnly(resource string) *Info {
	group, _ := splitName(resource)
	in := &Info{Resource: resource, WatchCache: Unknown, Storage: "unknown"}
	in.Serves, in.ServesWhy = Serves(resource, group, Unknown, Unknown)
	return in
}

// Server names who serves a request, as far as the rules and what is known
// of the server tell: the matrix oracle checks "watch cache" and "storage"
// against the server's list counters; "unknown" claims nothing.
type Server string

const (
	ByWatchCache Server = "watch cache"
	ByStorage    Server = "storage"
	ByEither     Server = "unknown"
)

// Served is who serves the pages of one list on this server, by the API
// server's delegation rules of its version (apiserver storage/cacher
// delegator) and what is known of the resource's cache: the first page (the
// request without a continue token) and the pages asked for with a
// continue token, which follow other rules.
type Served struct {
	First        string `json:"firstPage"`
	FirstFrom    Server `json:"firstPageFrom"`
	Continue     string `json:"continuePages"`
	ContinueFrom Server `json:"continuePagesFrom"`
	// RVFromStorageList: where the watch cache serves page 1 of a
	// consistent read, it first asks storage for the current RV with a
	// one-item list (apiserver etcd3 store.GetCurrentResourceVersion up
	// to v1.36; v1.37 reads the revision with a Get, not a list). Seen on
	// v1.33.13: a consistent 7-page list moved the cache's list counter by
	// 1 and storage's by 7 (6 continue pages and this read).
	RVFromStorageList bool `json:"currentRVFromStorageList,omitempty"`
}

// ListServed says who serves a list with these parameters: rv "" is a
// consistent read, "0" any; match is "", NotOlderThan or Exact.
func (in *Info) ListServed(rv, match string, limit int64) Served {
	if in.notOwn() {
		return in.notOwnServed()
	}
	first, from := in.firstPage(rv, match, limit)
	exact := match == "Exact" || (match == "" && rv != "" && rv != "0" && limit > 0)
	cont, cfrom := in.continuePages(exact)
	sv := Served{First: first, FirstFrom: from, Continue: cont, ContinueFrom: cfrom}
	if rv == "" && from != ByStorage && in.versionKnown() && in.Minor < 37 && in.Gate(GateConsistentListFromCache) {
		sv.RVFromStorageList = true
		sv.First += "; the watch cache first reads the current RV from storage with a one-item list (up to v1.36)"
	}
	return sv
}

func (in *Info) firstPage(rv, match string, limit int64) (string, Server) {
	st := in.StorageName()
	if in.cacheOff() {
		if rv == "0" && match != "Exact" {
			return st + ": this resource has no watch cache on this server, so rv=0 reads the newest state, like a consistent read", ByStorage
		}
		return st + ": this resource has no watch cache on this server", ByStorage
	}
	cache, cacheFrom := "the watch cache", ByWatchCache
	if in == nil || in.WatchCache == Unknown {
		cache, cacheFrom = "the watch cache (if this resource has one: not known here)", ByEither
	}
	exactLegacy := match == "" && rv != "" && rv != "0" && limit > 0
	switch {
	case rv == "" && !in.versionKnown():
		return cache + " once it has caught up with " + st + " where ConsistentListFromCache is on (v1.31 and later), else " + st + " (server version not known)", ByEither
	case rv == "" && in.Gate(GateConsistentListFromCache):
		return cache + " once it has caught up with " + st + " (ConsistentListFromCache on)", cacheFrom
	case rv == "":
		return st + ", not the watch cache (ConsistentListFromCache is off on " + in.Version + ")", ByStorage
	case rv == "0" && match != "Exact":
		return "whatever " + cache + " holds (no storage round trip)", cacheFrom
	case match == "Exact" || exactLegacy:
		if !in.versionKnown() {
			return st + ", or " + cache + "'s snapshots where ListFromCacheSnapshot is on (v1.34 and later; server version not known)", ByEither
		}
		if in.Gate(GateListFromCacheSnapshot) {
			return cache + "'s snapshots while they reach back that far, else " + st + " (ListFromCacheSnapshot on)", ByEither
		}
		return st + " (ListFromCacheSnapshot is off on " + in.Version + ")", ByStorage
	case limit > 0 && in.limitGoesToStorage():
		return st + ": on " + in.Version + " a list with a limit and an RV other than 0 bypasses the watch cache", ByStorage
	case limit > 0 && !in.versionKnown():
		return cache + ", or " + st + " on v1.30 and older where a list with a limit bypasses the cache (server version not known)", ByEither
	default:
		return cache + ", which first waits for it to reach that RV", cacheFrom
	}
}

// continuePages: a continue token carries the first page's RV. Before
// ListFromCacheSnapshot (v1.34 and later) the watch cache serves none
// (cacher.shouldDelegateList: hasContinuation; ShouldDelegateContinue with
// no snapshots); with it, the cache serves the continue from its snapshot
// at that RV while it keeps one that old (delegator.go
// ShouldDelegateContinue, shouldDelegateExactRV), else storage does.
// Measured: a consistent 7-page list on v1.37.2 moved
// apiserver_storage_list_total{storage="watchcache"} by 7, and etcd's by 0.
//
// After an exact first page, whether the snapshot reaches back to its RV
// is the same question as for the first page: not known here.
func (in *Info) continuePages(exact bool) (string, Server) {
	st := in.StorageName()
	switch {
	case in.cacheOff():
		return st + ": this resource has no watch cache on this server", ByStorage
	case !in.versionKnown():
		return st + ", or the watch cache's snapshots where ListFromCacheSnapshot is on (v1.34 and later; server version not known)", ByEither
	case !in.Gate(GateListFromCacheSnapshot):
		return st + ": the watch cache serves no continue token without ListFromCacheSnapshot (off on " + in.Version + ")", ByStorage
	case in.WatchCache == Unknown:
		return "the watch cache's snapshot at the list's RV (if this resource has a watch cache: not known here), else " + st + " (ListFromCacheSnapshot on)", ByEither
	case exact:
		return "the watch cache's snapshot at the list's RV while it keeps one that old, else " + st + " (ListFromCacheSnapshot on)", ByEither
	}
	return "the watch cache, from its snapshot at the list's RV while it keeps one that old, else " + st + " (ListFromCacheSnapshot on)", ByWatchCache
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
	if in.notOwn() {
		// Its server's gate, not this one's (serves.go).
		return "the request flags are fine: the server that serves " + text.Echo(in.Resource) + " does not serve streaming lists (whether it is this API server, whose WatchList gate would tell, is not known: " + in.ServesWhy + "); list, then watch from the list's RV, as client-go's informers fall back to"
	}
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

// WatchFromZero is what a watch from RV 0 starts with, as the facts say
// who serves it ("" where they do not: the caller says both cases). A
// resource without a watch cache is watched from storage, whose RV 0 is
// its newest state, as rv=0 lists read it there (fresh user try 34 F5:
// the header spoke of the watch cache on a server without one).
func (in *Info) WatchFromZero() string {
	switch {
	case in == nil || in.notOwn():
		return ""
	case in.cacheOff():
		return "RV 0: the newest state, from " + in.StorageName() + " (this resource has no watch cache on this server), then changes"
	case in.WatchCache == Yes:
		return "RV 0: the state as the watch cache holds it (possibly older than the newest in " + in.StorageName() + "), then changes"
	}
	return ""
}

// NoStallNote says why a following watch does not treat silence as a
// stall here (the caller says what became of its check, and how to turn
// it on).
func (in *Info) NoStallNote(resource string) string {
	return resource + " has no watch cache on this server: its watches are served by " + in.StorageName() + ", which sends no progress bookmarks (at most the one that ends a state), so a quiet stream stays silent and is not taken for a stall"
}

// Summary is the one short line a human output shows of the Info: what
// was known, and whether anything was assumed (the assumptions are in
// -o json's server.assumed, and the first of them in Note).
func (in *Info) Summary() string {
	if in == nil {
		return "not read"
	}
	v := in.Version
	if v == "" {
		v = "version unknown"
	}
	parts := []string{v}
	switch {
	case in.notOwn():
		parts = append(parts, fmt.Sprintf("%s: served by this API server itself not known (see the note)", text.Echo(in.Resource)))
	case in.Resource != "":
		cache := map[Tri]string{Yes: "on", No: "off", Unknown: "unknown"}[in.WatchCache]
		parts = append(parts, fmt.Sprintf("watch cache for %s: %s", text.Echo(in.Resource), cache))
	}
	switch {
	case len(in.GatesSeen) > 0 && in.GatesReadAt != nil:
		parts = append(parts, in.keptFacts())
	case len(in.GatesSeen) > 0:
		parts = append(parts, "gates read from /metrics")
	case in.versionKnown():
		parts = append(parts, fmt.Sprintf("gates: v1.%d defaults", in.Minor))
	default:
		parts = append(parts, "gates not known")
	}
	if n := len(in.Assumed); n > 0 {
		parts = append(parts, fmt.Sprintf("%d assumed (see the note)", n))
	}
	return strings.Join(parts, "; ")
}

// keptFacts says how long ago each kept fact was read: the gates and the
// resource's watch cache are read at different times (a read for another
// resource reads the gates again), so one age is said only where both
// have it (fresh user try 22 #10: "gates and cache ... 6m8s ago" of a
// cache fact read 10 s before).
func (in *Info) keptFacts() string {
	kept := strings.TrimSuffix(CacheTTL.String(), "0s")
	gates := time.Since(*in.GatesReadAt).Round(time.Second)
	if in.WatchCacheReadAt == nil || in.Resource == "" {
		return fmt.Sprintf("gates from /metrics %s ago, kept %s", gates, kept)
	}
	cache := time.Since(*in.WatchCacheReadAt).Round(time.Second)
	if cache == gates {
		return fmt.Sprintf("gates and cache from /metrics %s ago, kept %s", gates, kept)
	}
	return fmt.Sprintf("gates from /metrics %s ago and cache %s ago, kept %s", gates, cache, kept)
}

// Note is the one line that says why something was assumed (the first
// assumption: why /metrics was not read, as a rule), "" when nothing was.
func (in *Info) Note() string {
	if in == nil || len(in.Assumed) == 0 {
		return ""
	}
	more := ""
	if n := len(in.Assumed) - 1; n > 0 {
		more = fmt.Sprintf(" (and %d more: -o json has them all, under server.assumed)", n)
	}
	// Whole: the plugin's own sentence is never cut; the server's parts
	// in it were bounded where they were read (apiclient's error answers,
	// versionFailure, readMetricsOf), and the note was cut mid-word in
	// the plugin's words when it was shortened as a whole (adversary try
	// 28 F10).
	return in.Assumed[0] + more
}
