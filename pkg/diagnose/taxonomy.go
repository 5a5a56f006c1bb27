// Package diagnose sorts List/Watch errors into the resourceVersion classes an
// operator acts on: Expired (the RV is too old), TooLarge (the RV is too new),
// Other (a lookalike: timeout, throttling, a stream that ended) and
// Unrecognized. It is made of pure functions: no network, no clock, no
// globals that change. FromStatus and FromError take what a Go client holds;
// FromText and ScanLog take what a person pastes or a log file holds, in any
// of the wrappings listed in docs/explain-error.md.
//
// Every message format recognized here was read in a real source (the
// kube-apiserver, apimachinery, client-go and etcd sources of the versions in
// go.mod, or a public client's source or issue); messages_test.go cites
// the source of each sample.
package diagnose

// Class is the verdict: too old, too new, a lookalike, or nothing known.
type Class string

// Classes.
const (
	ClassExpired      Class = "Expired"
	ClassTooLarge     Class = "TooLarge"
	ClassOther        Class = "Other"
	ClassUnrecognized Class = "Unrecognized"
)

// Confidence levels.
const (
	ConfidenceHigh   = "high"   // the server's own wording (or a decoded Status) says so
	ConfidenceMedium = "medium" // the wording is known but the wrapper hides part of it
	ConfidenceLow    = "low"    // only a status code or reason, or a guess from the request
)

// Operations a Context can name.
const (
	OpWatch        = "watch"
	OpList         = "list"
	OpListExact    = "list-exact"
	OpListContinue = "list-continue"
	// OpStreamingList is a watch with sendInitialEvents=true: the server
	// answers a future RV as it answers a list (504 TooLarge, as an ERROR
	// event in a 200 stream when the watch cache serves it), not by
	// holding it as it holds a plain watch.
	OpStreamingList = "streaming-list"
)

// Kinds: the sub-kind of a class. Each one has its own text in advice.go and
// its own section in docs/explain-error.md.
const (
	// Expired (HTTP 410, reason Expired or, before 1.18, Gone).
	KindWatchCacheWindow            = "WatchCacheWindow"            // "too old resource version: X (Y)" from the watch cache
	KindWatchCacheSnapshot          = "WatchCacheSnapshot"          // "too old resource version: X" from the watch cache's list snapshots
	KindEtcdCompactedWatch          = "EtcdCompactedWatch"          // "The resourceVersion for the provided watch is too old."
	KindEtcdCompactedExactList      = "EtcdCompactedExactList"      // "The resourceVersion for the provided list is too old."
	KindContinueExpired             = "ContinueExpired"             // continue token expired, no fresh token
	KindContinueExpiredInconsistent = "ContinueExpiredInconsistent" // continue token expired, fresh (inconsistent) token returned
	KindEtcdCompacted               = "EtcdCompacted"               // etcd's own "mvcc: required revision has been compacted"
	KindEtcdV2IndexCleared          = "EtcdV2IndexCleared"          // etcd v2's "The event in requested index is outdated and cleared"
	KindTooOldResourceVersion       = "TooOldResourceVersion"       // "too old resource version" without the numbers the server prints
	KindGone                        = "Gone"                        // 410 with no message that names the window

	// TooLarge.
	KindResourceVersionTooLarge    = "ResourceVersionTooLarge"    // "Too large resource version: N, current: M" (504 Timeout)
	KindConsistentReadCacheLagging = "ConsistentReadCacheLagging" // the same message as 429: a consistent read the cache could not serve
	KindEtcdFutureRevision         = "EtcdFutureRevision"         // etcd's own "mvcc: required revision is a future revision"

	// Other: lookalikes.
	KindRequestTimeout            = "RequestTimeout"
	KindTooManyRequests           = "TooManyRequests"
	KindInternalErrorAtCompaction = "InternalErrorAtCompaction"
	KindServerError               = "ServerError"
	KindWatchEnded                = "WatchEnded"
	KindInvalidResourceVersion    = "InvalidResourceVersion"
	KindInvalidContinue           = "InvalidContinue"
	KindConnectionReset           = "ConnectionReset"
	KindNetworkError              = "NetworkError"

	// Other: errors about a resourceVersion that are not List/Watch expiries.
	KindConflict                       = "Conflict"                       // 409 "the object has been modified": a stale RV on a write
	KindWatchCacheInitializing         = "WatchCacheInitializing"         // 429 "storage is (re)initializing"
	KindResourceVersionSetOnCreate     = "ResourceVersionSetOnCreate"     // "resourceVersion should not be set on objects to be created"
	KindResourceVersionMissingOnUpdate = "ResourceVersionMissingOnUpdate" // 422 "metadata.resourceVersion: Invalid value: ...: must be specified for an update"
	KindWatchEventLostAtCompaction     = "WatchEventLostAtCompaction"     // 500 "etcd event received with PrevKv=nil (..., modRevision=R, ...)"
)

// Diagnosis is the answer for one error. The JSON names are a stable schema
// (explain-error -o json, and the watch and probe commands embed it).
type Diagnosis struct {
	Class      Class  `json:"class"`
	Kind       string `json:"kind"`
	Confidence string `json:"confidence"`
	Summary    string `json:"summary"`
	What       string `json:"what"`
	Why        string `json:"why"`
	ClientGo   string `json:"clientGo"`
	Fix        string `json:"fix"`

	RequestedResourceVersion string `json:"requestedResourceVersion,omitempty"`
	OldestResourceVersion    string `json:"oldestResourceVersion,omitempty"`
	CurrentResourceVersion   string `json:"currentResourceVersion,omitempty"`
	Gap                      string `json:"gap,omitempty"`

	Code    int32  `json:"code,omitempty"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`

	// Operation is the request the error answered, when known: watch,
	// streaming-list, list, list-exact or list-continue.
	Operation string `json:"operation,omitempty"`
	// Request is the API request the text's URL names (nil: it names
	// none): explain-error --check asks that one again.
	Request *Request `json:"request,omitempty"`
	// RequestUnread says why a URL of the text names no request to ask
	// again (no API collection, a subresource, several collections).
	RequestUnread string `json:"requestUnread,omitempty"`
	// Type is the Go type a client's log line names (nil: none), when
	// no URL names the request.
	Type *GoType `json:"type,omitempty"`
	// Source names the wrapper the error was found in (kubectl, client-go
	// reflector, Python client, ...), for FromText and ScanLog.
	Source string `json:"source,omitempty"`
	// Notes say what the text lacks or holds wrong: a number cut off, an RV
	// that no server could have issued, a wording without its numbers.
	Notes []string `json:"notes,omitempty"`
	// Inconsistent says why the text's numbers cannot come from one answer
	// of a server (a too-old RV at or above the oldest servable one, a
	// message that names another RV than the request): then the texts say
	// what the text claims, never what happened, and the confidence is low.
	Inconsistent string `json:"inconsistent,omitempty"`

	// live is Context.Live: which words the texts use (said).
	live bool
	// noRVSent is Context.NoResourceVersionSent: a TooLarge's RV is then
	// the one a consistent read waited for, not the request's (consistentRead).
	noRVSent bool
	// malformed names the numbers of the phrase whose token is no RV as
	// the API server prints it ("requested", "oldest servable",
	// "current"): the texts say they are there but not RVs, never that
	// the numbers are missing (adversary F6).
	malformed []string
}

// Context is what the caller knows about the request that failed. Every
// field is optional.
type Context struct {
	Operation                string // "watch", "streaming-list", "list", "list-exact", "list-continue", "" unknown
	RequestedResourceVersion string
	// Live: the error is an answer the plugin received itself (a watch's
	// HTTP status, an ERROR event, a probe's answer), not a pasted text:
	// the plugin holds the server's Status, so the diagnosis speaks of
	// the server's answer and never asks to find or paste the original
	// (adversary try 28 F5). The one switch of that wording: said.
	Live bool
	// NoResourceVersionSent: the request is known to have sent no
	// resourceVersion (a watch from the current state): an answer that
	// names a requested RV then contradicts the request (no API server
	// answers too old or too new to a request without an RV).
	NoResourceVersionSent bool
}

// IsRVProblem reports whether the diagnosis is Expired or TooLarge.
func (d Diagnosis) IsRVProblem() bool {
	return d.Class == ClassExpired || d.Class == ClassTooLarge
}

// CausedByResourceVersion reports whether the failure comes from the
// request's resourceVersion: Expired or TooLarge, or a 5xx that carries
// etcd's compaction (its fix is a relist, where a rerun meets it again).
// A generic 5xx, 504 or 429 is not: its fix is the server's health.
func (d Diagnosis) CausedByResourceVersion() bool {
	return d.IsRVProblem() || d.Kind == KindInternalErrorAtCompaction || d.Kind == KindWatchEventLostAtCompaction
}

// Recognized reports whether anything was recognized.
func (d Diagnosis) Recognized() bool { return d.Class != ClassUnrecognized && d.Class != "" }

// unrecognized is the answer when nothing is known: never forced into a class.
func unrecognized() Diagnosis {
	return Diagnosis{
		Class:      ClassUnrecognized,
		Confidence: ConfidenceLow,
		Summary:    "no resourceVersion-related error recognized in this text",
		What:       "The text holds none of the Expired, TooLarge or lookalike error forms this tool knows.",
		Why:        "It may be another kind of error, or a wrapper that drops the server's message.",
		ClientGo:   "",
		Fix:        "Paste the full error (with the server's message or the JSON Status), or scan the whole log with -f FILE.",
	}
}
