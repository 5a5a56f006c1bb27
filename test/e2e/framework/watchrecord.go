package framework

// WatchGap is the "gap" of a relist record of "kubectl watchrv watch -o
// json" (docs/watch.md): what changed while the watch was broken. It is the
// tests' own copy of the field names, so that a renamed field fails the e2e
// tests instead of silently changing with the plugin.
type WatchGap struct {
	Added    []GapChange `json:"added"`
	Modified []GapChange `json:"modified"`
	// Deleted holds the old UID of a name deleted and recreated; its new
	// UID is in Added.
	Deleted []GapChange `json:"deleted"`
	// Initial: the list was the first sight of the collection, and Added is
	// its state rather than what was added while the watch was broken.
	Initial bool `json:"initial"`
	// NoResumePoint: the relist was due because a stream ended while it
	// was sending the initial state (in key order); StateObjectsSent is how
	// many objects of it had come.
	NoResumePoint    bool `json:"noResumePoint"`
	StateObjectsSent int  `json:"stateObjectsSent"`
}

// GapChange is one object of a WatchGap.
type GapChange struct {
	Namespace          string `json:"namespace"`
	Name               string `json:"name"`
	UID                string `json:"uid"`
	OldResourceVersion string `json:"oldResourceVersion"`
	NewResourceVersion string `json:"newResourceVersion"`
}
