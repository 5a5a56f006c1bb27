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
// rules of the server's version, which rest on what was seen on real
// servers (docs: ../shared/reference/rv-semantics.md "Other versions"):
// v1.30.14, v1.33.13, v1.35.4 and v1.37.2, a version between two checked
// ones whose behaviour could differ being "unknown", not guessed. Where the
// cache's state is not known, a list the cache would serve is unknown too:
// never "cache" where it may be storage. ifOn is where it is read from
// when the cache is on.
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

// versionRule is where a list of mode is read from on v, with the watch
// cache on.
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
	m := v.minor
	switch mode {
	case modeUnset:
		switch {
		case m <= 30:
			return fromStorage, "consistent lists read etcd up to v1.30 (ConsistentListFromCache off; seen on v1.30.14)"
		case m >= 33:
			return fromCache, "consistent lists are served by the watch cache once it has caught up from v1.33 (seen on v1.33.13, v1.35.4, v1.37.2)"
		}
		return fromUnknown, v.String() + " was not checked (ConsistentListFromCache is beta there)"
	case modeZero:
		return fromCache, "resourceVersion=0 is served by the watch cache"
	case modeNotOlderThan:
		if limit && m <= 30 {
			return fromStorage, "with a limit, resourceVersion=N lists read etcd up to v1.30 (seen on v1.30.14)"
		}
		if limit && m < 33 {
			return fromUnknown, v.String() + " was not checked for lists with a limit"
		}
		return fromCache, "resourceVersion=N (NotOlderThan) is served by the watch cache"
	case modeExact:
		switch {
		case m <= 33:
			return fromStorage, "exact-RV lists read etcd up to v1.33 (seen on v1.30.14, v1.33.13)"
		case m >= 35:
			return fromCache, "exact-RV lists are served from the watch cache's snapshots from v1.35 (ListFromCacheSnapshot; seen on v1.35.4)"
		}
		return fromUnknown, v.String() + " was not checked for exact-RV lists"
	case modeContinue:
		switch {
		case m <= 33:
			return fromStorage, "continued pages read etcd up to v1.33 (no cache snapshots)"
		case m >= 35:
			// The watch cache serves a continued page from its snapshot at
			// the token's RV while it keeps one, etcd once it does not
			// (seen on v1.37.2: a page fetched after 150 writes read etcd):
			// which, the audit log does not tell.
			return fromUnknown, "continued pages from v1.35 are served from the watch cache's snapshot at the token's RV while it keeps one, else by etcd: which, the audit log does not tell"
		}
		return fromUnknown, "continued pages on " + v.String() + " were not checked"
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
