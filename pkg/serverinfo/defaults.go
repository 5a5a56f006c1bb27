package serverinfo

// The feature gates the plugin's texts depend on.
const (
	// GateConsistentListFromCache: a consistent list (RV unset) is served
	// from the watch cache once it has caught up with storage; off, it
	// goes to storage.
	GateConsistentListFromCache = "ConsistentListFromCache"
	// GateWatchList: streaming lists (sendInitialEvents=true) are allowed;
	// off, they are refused with 422.
	GateWatchList = "WatchList"
	// GateListFromCacheSnapshot: exact-RV lists are served from the watch
	// cache's snapshots; off, they go to storage.
	GateListFromCacheSnapshot = "ListFromCacheSnapshot"
)

// Gates are the gates Info reports, in this order.
var Gates = []string{GateConsistentListFromCache, GateWatchList, GateListFromCacheSnapshot}

// gateStep is one release's default of a gate.
type gateStep struct {
	minor int
	on    bool
	stage string
}

// gateHistory is each gate's default by release, as k8s.io/apiserver's
// pkg/features/kube_features.go versions it (read in v0.33.13, v0.35.4 and
// v0.37.2) and checked on real servers of the matrix (v1.30.14: both
// ConsistentListFromCache and WatchList ALPHA 0; v1.33.13:
// ConsistentListFromCache BETA 1, WatchList BETA 0; v1.35.4 and v1.37.2:
// WatchList and ListFromCacheSnapshot BETA 1). A gate that reached GA and
// was then removed (ConsistentListFromCache in v1.37) keeps its last
// default: a missing gauge means the version's default, not off.
var gateHistory = map[string][]gateStep{
	GateConsistentListFromCache: {{28, false, "ALPHA"}, {31, true, "BETA"}, {34, true, "GA"}},
	// WatchList was turned on in 1.32, off again in 1.33 (the streaming
	// encoders were preferred), on again in 1.34.
	GateWatchList:             {{27, false, "ALPHA"}, {32, true, "BETA"}, {33, false, "BETA"}, {34, true, "BETA"}},
	GateListFromCacheSnapshot: {{33, false, "ALPHA"}, {34, true, "BETA"}},
}

// DefaultOf is gate's default on Kubernetes 1.minor: off before the gate
// existed, its last default after it was removed.
func DefaultOf(gate string, minor int) (on bool, stage string) {
	stage = "absent"
	for _, s := range gateHistory[gate] {
		if minor >= s.minor {
			on, stage = s.on, s.stage
		}
	}
	return on, stage
}

// Measured minors are the releases whose behaviour the plugin's texts were
// checked on (the server matrix of test/cluster); a server of another
// minor is described from the gate defaults above, and says so.
var measuredMinors = map[int]bool{30: true, 33: true, 35: true, 37: true}
