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

// readFrom says where a list (first page or continued) of mode is read
// from on v, for a resource with the watch cache on (the default; the audit
// log does not tell). The rules rest on what was seen on real servers
// (docs: ../shared/reference/rv-semantics.md "Other versions"): v1.30.14,
// v1.33.13, v1.35.4 and v1.37.2; a version between two checked ones whose
// behaviour could differ is "unknown", not guessed.
func readFrom(v version, resource, mode string, limit bool) (string, string) {
	if resource == "events" || resource == "events.events.k8s.io" {
		return fromStorage, "events are not in the watch cache by default: every list reads etcd"
	}
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
		if m <= 33 {
			return fromStorage, "continued pages read etcd up to v1.33 (no cache snapshots)"
		}
		return fromUnknown, "continued pages on " + v.String() + " were not checked"
	}
	return fromUnknown, "not a list"
}

// readRules are the rules for the Report, one per mode.
func readRules(v version) []ReadRule {
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
		from, why := readFrom(v, "", m.mode, m.limit)
		out = append(out, ReadRule{Mode: m.label, From: from, Why: why})
	}
	return out
}
