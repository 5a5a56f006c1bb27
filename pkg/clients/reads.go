package clients

import (
	"fmt"
	"strconv"
	"strings"
)

// List read modes, as the rules below name them.
const (
	modeUnset        = "unset"
	modeZero         = "0"
	modeExact        = "exact"
	modeNotOlderThan = "notOlderThan"
	modeContinue     = "continue"
)

// Where a list is read from.
const (
	fromStorage = "storage"
	fromCache   = "cache"
	fromUnknown = "unknown"
)

// version is a parsed --server-version (major.minor; the patch does not
// change these rules).
type version struct {
	known        bool
	major, minor int
}

// VersionError: a server version that is not a Kubernetes version.
type VersionError struct{ Value string }

func (e *VersionError) Error() string {
	return fmt.Sprintf("%q is not a Kubernetes version: give it as v1.30.14 or 1.30 (kubectl version shows it)", e.Value)
}

// parseVersion reads "v1.30.14", "1.30" or "v1.33.2-gke.100".
func parseVersion(s string) (version, error) {
	if s == "" {
		return version{}, nil
	}
	t := strings.TrimPrefix(strings.TrimSpace(s), "v")
	parts := strings.SplitN(t, ".", 3)
	if len(parts) < 2 {
		return version{}, &VersionError{Value: s}
	}
	major, err1 := strconv.Atoi(parts[0])
	minorText := parts[1]
	if i := strings.IndexAny(minorText, "-+"); i >= 0 {
		minorText = minorText[:i]
	}
	minor, err2 := strconv.Atoi(minorText)
	if err1 != nil || err2 != nil || major != 1 {
		return version{}, &VersionError{Value: s}
	}
	return version{known: true, major: major, minor: minor}, nil
}

// ValidateVersion checks a server version (Options.ServerVersion): nil or
// a *VersionError.
func ValidateVersion(s string) error {
	_, err := parseVersion(s)
	return err
}

func (v version) String() string { return fmt.Sprintf("v%d.%d", v.major, v.minor) }

// Watch cache states (Options.WatchCache).
const (
	// CacheUnknown: the audit log does not record whether a resource has
	// a watch cache (the default).
	CacheUnknown = "unknown"
	CacheOn      = "on"
	CacheOff     = "off"
)

// CacheError: a watch cache state or sizes value that is not one.
type CacheError struct{ Value, Want string }

func (e *CacheError) Error() string { return fmt.Sprintf("%q: %s", e.Value, e.Want) }

// ParseWatchCache reads --watch-cache: on, off or unknown; true and false
// too, as the API server's own --watch-cache flag takes them.
func ParseWatchCache(s string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", CacheUnknown:
		return CacheUnknown, nil
	case CacheOn, "true":
		return CacheOn, nil
	case CacheOff, "false":
		return CacheOff, nil
	}
	return "", &CacheError{Value: s, Want: "give on, off (as the API server's own flag: true or false) or unknown"}
}

// ParseWatchCacheSizes reads the API server's own --watch-cache-sizes
// value, RESOURCE[.GROUP]#SIZE,...: a size of 0 is no watch cache.
func ParseWatchCacheSizes(s string) (map[string]int, error) {
	out := map[string]int{}
	if strings.TrimSpace(s) == "" {
		return out, nil
	}
	for _, part := range strings.Split(s, ",") {
		res, size, ok := strings.Cut(strings.TrimSpace(part), "#")
		n, err := strconv.Atoi(size)
		if !ok || res == "" || err != nil || n < 0 {
			return nil, &CacheError{Value: s, Want: "give it as the API server's own flag takes it, RESOURCE[.GROUP]#SIZE,... (configmaps#0: no watch cache for configmaps)"}
		}
		out[strings.ToLower(res)] = n
	}
	return out, nil
}

// cacheConfig is what is known of the server's watch cache.
type cacheConfig struct {
	mode  string
	sizes map[string]int
}

func newCacheConfig(mode string, sizes map[string]int) cacheConfig {
	if mode == "" {
		mode = CacheUnknown
	}
	if mode == CacheUnknown && len(sizes) > 0 {
		// The server's sizes were given: its --watch-cache is at its
		// default (on) unless --watch-cache=off says otherwise.
		mode = CacheOn
	}
	return cacheConfig{mode: mode, sizes: sizes}
}

// state is whether resource (resource[.group][/subresource]) has a watch
// cache on the server, and on what that rests.
func (c cacheConfig) state(resource string) (string, string) {
	res, _, _ := strings.Cut(resource, "/")
	if c.mode == CacheOff {
		return CacheOff, "the API server runs without a watch cache (as given)"
	}
	if n, ok := c.sizes[res]; ok && res != "" {
		if n == 0 {
			return CacheOff, res + " has no watch cache (a size of 0, as given)"
		}
		return CacheOn, res + " has a watch cache (a size of " + strconv.Itoa(n) + ", as given)"
	}
	if res == "events" || res == "events.events.k8s.io" {
		return CacheOff, "events have no watch cache by default"
	}
	if c.mode == CacheOn {
		return CacheOn, "the watch cache is on (as given)"
	}
	return CacheUnknown, "the audit log does not record whether the watch cache is on (the API server's default is on)"
}

// readFrom says where a list (first page or continued) of mode on resource
// is read from: storage when the resource has no watch cache; else by the
// rules of the server's version (versionRule). Where the cache's state is
// not known, a list the cache would serve is unknown too: never "cache"
// where it may be storage. ifOn is where it is read from when the cache
// is on.
func readFrom(v version, c cacheConfig, resource, mode string, limit bool) (from, why, ifOn string) {
	state, swhy := c.state(resource)
	if state == CacheOff {
		return fromStorage, swhy + ": every list reads storage", fromStorage
	}
	from, why = versionRule(v, mode, limit)
	if state == CacheUnknown && from == fromCache {
		return fromUnknown, "from the watch cache if it is on, else from storage: " + swhy + " (" + why + " when it is on)", fromCache
	}
	return from, why, from
}

// The servers the rules were seen on (test/e2e/matrix factReadSources
// holds them to each server's list counters), and the minors between
// them whose k8s.io/apiserver source was read instead (pkg/storage/cacher
// delegation, pkg/features defaults), by minor.
var (
	seenOn = map[int]string{30: "v1.30.14", 33: "v1.33.13", 35: "v1.35.4", 36: "v1.36.3", 37: "v1.37.2"}
	readIn = map[int]string{31: "v0.31.14", 32: "v0.32.13", 34: "v0.34.13"}
)

const oldestChecked, newestChecked = 30, 37

// restsOn says on what a rule rests for v: seen on that minor's server,
// or read in its source; a minor outside the checked ones gets the rule
// of the nearest one checked, and says so.
func restsOn(v version) string {
	m := v.minor
	if s, ok := seenOn[m]; ok {
		return "seen on " + s
	}
	if s, ok := readIn[m]; ok {
		return "read in the source of " + v.String() + " (k8s.io/apiserver " + s + ")"
	}
	if m > newestChecked {
		return "seen on " + seenOn[newestChecked] + ", the newest version checked; " + v.String() + " was not checked"
	}
	return "seen on " + seenOn[oldestChecked] + ", the oldest version checked; " + v.String() + " was not checked"
}

// versionRule is where a list of mode is read from on v, with the watch
// cache on and every feature gate at its default, by the API server's
// delegation rules (k8s.io/apiserver pkg/storage/cacher: shouldDelegateList
// up to v1.32, delegator.ShouldDelegateList from v1.33). Where the answer
// turns on the cache's state at the time, which the audit log does not
// record, it is "unknown" and the words say on what it turns.
func versionRule(v version, mode string, limit bool) (string, string) {
	if !v.known {
		switch mode {
		case modeZero:
			return fromCache, "resourceVersion=0 is served by the watch cache on every version"
		case modeNotOlderThan:
			if !limit {
				return fromCache, "resourceVersion=N (NotOlderThan) without a limit is served by the watch cache on every version checked"
			}
		}
		return fromUnknown, "depends on the server's version: pass --server-version"
	}
	m, on := v.minor, "; "+restsOn(v)
	switch mode {
	case modeUnset:
		if m <= 30 {
			return fromStorage, "consistent lists read etcd up to v1.30 (ConsistentListFromCache is off by default)" + on
		}
		rv := ""
		if m <= 36 {
			rv = " (up to v1.36 it first asks etcd for the current RV with a one-item list, which apiserver_storage_list_total counts)"
		}
		return fromCache, "consistent lists are served by the watch cache from v1.31 (ConsistentListFromCache, on by default) once it has caught up with etcd" + rv +
			"; they read etcd instead while the API server has not found that etcd supports progress notifications (3.4.31 or later, 3.5.13 or later), " +
			"and when the cache does not catch up within 3 s" + on
	case modeZero:
		return fromCache, "resourceVersion=0 is served by the watch cache" + on
	case modeNotOlderThan:
		if limit && m <= 30 {
			return fromStorage, "with a limit, resourceVersion=N lists read etcd up to v1.30 (the watch cache serves no list with a limit and an RV other than 0)" + on
		}
		if limit {
			return fromCache, "from v1.31 the watch cache serves resourceVersion=N lists with resourceVersionMatch=NotOlderThan and a limit (a limit without a resourceVersionMatch makes the list exact)" + on
		}
		return fromCache, "resourceVersion=N (NotOlderThan) is served by the watch cache, once it has reached N" + on
	case modeExact:
		if m <= 33 {
			return fromStorage, "exact-RV lists read etcd up to v1.33 (the watch cache keeps no snapshots: ListFromCacheSnapshot is off by default on v1.33, absent before)" + on
		}
		// Seen on v1.36.3 (test/e2e/clients TestClientsSnapshotReadsAreNotKnown):
		// the same exact list read the cache at once, etcd once the
		// cache's window had moved past its RV.
		return fromUnknown, "exact-RV lists from v1.34 are served from the watch cache's snapshots while it keeps one at or below that RV (ListFromCacheSnapshot, on by default), " +
			"else by etcd: which, the audit log does not tell" + on
	case modeContinue:
		if m <= 33 {
			return fromStorage, "continued pages read etcd up to v1.33 (the watch cache keeps no snapshots to serve a continue token from)" + on
		}
		// Seen on v1.36.3 (TestClientsSnapshotReadsAreNotKnown): the same
		// token read the cache at once, etcd once the cache's window had
		// moved past its RV.
		return fromUnknown, "continued pages from v1.34 are served from the watch cache's snapshot at the token's RV while it keeps one (ListFromCacheSnapshot, on by default), " +
			"else by etcd: which, the audit log does not tell" + on
	}
	return fromUnknown, "not a list"
}

// readRules are the rules for the Report, one per mode, for a resource
// with no size of its own in --watch-cache-sizes.
func readRules(v version, c cacheConfig) []ReadRule {
	var out []ReadRule
	for _, m := range []struct {
		mode  string
		limit bool
		label string
	}{
		{modeUnset, false, "unset (consistent)"},
		{modeZero, false, "0 (any)"},
		{modeNotOlderThan, false, "N (NotOlderThan)"},
		{modeNotOlderThan, true, "N (NotOlderThan) with a limit"},
		{modeExact, false, "N (Exact)"},
		{modeContinue, false, "continue (page 2+)"},
	} {
		from, why, ifOn := readFrom(v, c, "", m.mode, m.limit)
		out = append(out, ReadRule{Mode: m.label, From: from, Why: why, IfCacheOn: ifOn})
	}
	return out
}
