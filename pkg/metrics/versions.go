package metrics

import (
	"strconv"
	"strings"
)

// FamilyBuildInfo names the server's version (git_version, minor): which
// families a counter with no series at all is 0 in (Registered).
const FamilyBuildInfo = "kubernetes_build_info"

// The minor versions whose registrations the plugin knows (read from
// k8s.io/apiserver v0.30.14 to v0.37.2 and checked on every cell of the
// matrix). Outside them a family without series is "not seen", never 0.
const (
	KnownMinMinor = 30
	KnownMaxMinor = 37
)

// Registered reports whether family is registered, series or not, on a
// kube-apiserver of minor version minor (0: unknown). It is the one rule
// of a counter with no series at all (top and probe --metrics read it
// alike): a counter vector has no series before its first increment, so
// on a version that registers the family, no series is 0; on any other,
// the family is not exposed.
func Registered(family string, minor int) bool {
	if minor < KnownMinMinor || minor > KnownMaxMinor {
		return false
	}
	switch family {
	case "apiserver_cache_list_total", "apiserver_cache_list_fetched_objects_total", "apiserver_cache_list_returned_objects_total":
		return minor <= 36
	case "apiserver_watch_events_total", "apiserver_watch_events_sizes",
		"apiserver_storage_list_total", "apiserver_storage_list_fetched_objects_total", "apiserver_storage_list_returned_objects_total",
		"apiserver_flowcontrol_rejected_requests_total", "apiserver_watch_cache_events_dispatched_total":
		return true
	case FamilyEventsReceived, FamilyTerminatedWatchers, FamilyInitializations, FamilyCapacityIncreases, FamilyCapacityDecreases:
		// storage/cacher/metrics registers them together, with
		// watch_cache_capacity, on every version v0.30.14 to v0.37.2.
		return true
	case "apiserver_request_total":
		// Every running server has answered requests (its own loopback
		// clients' at least): no sample of them is no exposure (a
		// --disabled-metrics), never a count of 0.
		return false
	}
	return false
}

// MinorOf reads kubernetes_build_info's "minor" label ("37", "37+"), or,
// when the server has none, the minor of its git_version ("v1.37.2",
// "v1.37.2-gke.100"); 0 when neither says.
func MinorOf(minor, gitVersion string) int {
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

// version is the server's git_version and minor in f ("", 0: not said).
func (f Families) version() (string, int) {
	fam := f[FamilyBuildInfo]
	if fam == nil || len(fam.GetMetric()) == 0 {
		return "", 0
	}
	l := map[string]string{}
	for _, lp := range fam.GetMetric()[0].GetLabel() {
		l[lp.GetName()] = lp.GetValue()
	}
	return l["git_version"], MinorOf(l["minor"], l["git_version"])
}
