// Package clients reads an API server's audit events and tells, per client
// (user + user agent, and the source IP on demand) and per resource, how it
// lists and watches: lists by read mode, watches by start mode with how
// long they lived and how they ended, gets, and the 410/504/429/5xx answers;
// then the named patterns those numbers show (polling, relist loop, stale
// reconnect, herd, consistent-read pressure), each with its evidence and a
// fix. It is pure: events in, a Report out; state grows with the number of
// clients and resources (and minutes, for the timeline), not with the log.
package clients

import (
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/audit"
)

// Pattern names.
const (
	PatternPolling         = "polling"
	PatternRelistLoop      = "relist-loop"
	PatternStaleReconnect  = "stale-reconnect"
	PatternHerd            = "herd"
	PatternConsistentReads = "consistent-read-pressure"
)

// Report is the stable schema of "clients -o json|yaml".
type Report struct {
	Sources []string `json:"sources"`
	// Lines, Events, Wrapped and the unreadable lines come from the reader.
	Lines      int64            `json:"lines"`
	Events     int64            `json:"events"`
	Wrapped    int64            `json:"wrapped"`
	Unreadable map[string]int64 `json:"unreadable,omitempty"`
	BadLines   []BadLine        `json:"badLines,omitempty"`
	// Input says what was done to read the input: events dropped as
	// duplicates, put back in time order, files read twice to be sorted,
	// sources that ended early, an interrupted read.
	Input Input `json:"input"`
	// Requests counts each request once (by auditID, and by what stays
	// the same across its stages where two share one), whatever stages
	// the policy records; Open are those whose last stage is not in the
	// log.
	Requests int64 `json:"requests"`
	Open     int64 `json:"open"`
	// AuditIDCollisions are the requests that came with the auditID of
	// another request still open (a client can choose its Audit-ID
	// header): they are counted apart.
	AuditIDCollisions int64 `json:"auditIDCollisions,omitempty"`
	// OpenDropped are requests whose first stages were not kept (more
	// than MaxOpen open at once): each counts when its last stage comes;
	// one whose last stage is not in the log is not counted.
	OpenDropped int64     `json:"openDropped,omitempty"`
	From        time.Time `json:"from"`
	To          time.Time `json:"to"`
	// Levels counts the requests by audit level (Metadata, Request, ...).
	Levels map[string]int64 `json:"levels"`
	// ServerVersion is --server-version, "" when not given; Reads says
	// which list modes reach storage on it, and on what that rests.
	ServerVersion string `json:"serverVersion,omitempty"`
	// WatchCache is what is known of the server's watch cache: "on",
	// "off" or "unknown" (the audit log does not record it), and the
	// sizes given per resource (0: no cache).
	WatchCache      string         `json:"watchCache"`
	WatchCacheSizes map[string]int `json:"watchCacheSizes,omitempty"`
	// SizesUnmatched are the resources of --watch-cache-sizes no request of
	// the log is for (a short name such as cm, a typo): the API server's
	// flag names resources in full, and nothing was applied for them.
	SizesUnmatched []string   `json:"watchCacheSizesUnmatched,omitempty"`
	Reads          []ReadRule `json:"reads"`
	Clients        []Client   `json:"clients"`
	// Folded are the clients not kept apart (more than MaxClients): their
	// counts together, without patterns; nil when none was folded.
	Folded *Folded   `json:"folded,omitempty"`
	Herds  []Pattern `json:"herds"`
	// HerdsFolded counts the herds found beyond the MaxHerds largest,
	// which Herds keeps.
	HerdsFolded int64    `json:"herdsFolded,omitempty"`
	Timeline    Timeline `json:"timeline"`
}

// Input is what was done to read the input (see audit.Stats).
type Input struct {
	Duplicates  int64                `json:"duplicates"`
	Reordered   int64                `json:"reordered"`
	Late        int64                `json:"late"`
	Sorted      []audit.SortedSource `json:"sorted,omitempty"`
	Cut         []audit.CutSource    `json:"cut,omitempty"`
	Interrupted bool                 `json:"interrupted,omitempty"`
}

// Folded is the clients folded together.
type Folded struct {
	// Clients counts the clients folded, each once however often it was
	// (a floor when ClientsAtLeast: past the most told apart).
	Clients        int64 `json:"clients"`
	ClientsAtLeast bool  `json:"clientsAtLeast,omitempty"`
	// SeenAgain counts the clients folded that came again after their
	// fold and have a row too: their counts are split between it and here.
	SeenAgain  int64 `json:"seenAgain,omitempty"`
	MaxClients int   `json:"maxClients"`
	Totals
	Resources []Resource `json:"resources"`
}

// BadLine is one unreadable line.
type BadLine struct {
	Source string `json:"source"`
	Line   int64  `json:"line"`
	Reason string `json:"reason"`
}

// Client is one client's traffic.
type Client struct {
	User      string `json:"user"`
	UserAgent string `json:"userAgent"`
	SourceIP  string `json:"sourceIP,omitempty"`
	Totals
	Resources []Resource `json:"resources"`
	Patterns  []Pattern  `json:"patterns"`
	// bySourceIP: clients are told apart by their source IP too, so
	// the name has one, a placeholder where the log gives none.
	bySourceIP bool
}

// Name is "user / userAgent [/ ip]", as the table prints it: each field
// shown, a placeholder where the log leaves it empty (the log names no
// user for a request whose credentials were refused: fresh user try 19),
// quoted where it could be read as one. -o json keeps the fields as the
// log has them.
func (c Client) Name() string {
	n := shown(c.User, noUser) + " / " + shown(c.UserAgent, noAgent)
	if c.bySourceIP || c.SourceIP != "" {
		n += " / " + shown(c.SourceIP, noSourceIP)
	}
	return n
}

// Totals are the counts of a client or of one of its resources.
type Totals struct {
	Requests int64 `json:"requests"`
	// Lists are first pages; continued pages are Lists.Continue.
	Lists   ListModes  `json:"lists"`
	Watches WatchModes `json:"watches"`
	Gets    int64      `json:"gets"`
	// Other are the remaining verbs (create, update, patch, delete, ...).
	Other int64 `json:"other"`
	Codes Codes `json:"codes"`
	// StorageLists are the lists (pages included) that reach storage on
	// the server's version; StorageUnknown those for which the version (or
	// its absence) does not tell.
	StorageLists   int64 `json:"storageLists"`
	StorageUnknown int64 `json:"storageUnknown"`
	// Objects are the items the lists returned, when the level records
	// responses (RequestResponse); nil otherwise.
	Objects *int64 `json:"objects,omitempty"`
}

// ListModes counts lists by how they ask for a resourceVersion.
type ListModes struct {
	Total int64 `json:"total"`
	// Unset: no resourceVersion, a consistent read (the newest state).
	Unset int64 `json:"unset"`
	// Zero: resourceVersion=0, any state (the watch cache's).
	Zero int64 `json:"zero"`
	// Exact: resourceVersionMatch=Exact, or the legacy form (a limit with
	// resourceVersion=N and no match).
	Exact int64 `json:"exact"`
	// NotOlderThan: resourceVersion=N with NotOlderThan (or no match and no limit).
	NotOlderThan int64 `json:"notOlderThan"`
	// Limit: first pages with a limit.
	Limit int64 `json:"limit"`
	// Continue: continued pages (not counted in Total).
	Continue int64 `json:"continue"`
}

// WatchModes counts watches by start mode, and how they ended.
type WatchModes struct {
	Total int64 `json:"total"`
	// By the resourceVersion asked for: Unset (none), Zero (a decimal 0),
	// Exact (N, sendInitialEvents false or not given: the changes after
	// N), and Streaming (sendInitialEvents=true, any resourceVersion: the
	// whole collection, then the initial-events-end bookmark).
	Unset     int64 `json:"unset"`
	Zero      int64 `json:"zero"`
	Exact     int64 `json:"exact"`
	Streaming int64 `json:"streaming"`
	// Unset and Zero by what the server sends: StateAndChanges without
	// sendInitialEvents (the legacy default: the whole collection as
	// ADDED events, then the changes; an initial-events-end bookmark after
	// the state only from v1.35 with allowWatchBookmarks=true),
	// ChangesOnly with sendInitialEvents=false (no state).
	StateAndChanges int64 `json:"stateAndChanges"`
	ChangesOnly     int64 `json:"changesOnly"`
	// Ends: TimedOut lived to its timeoutSeconds; AtOnce ended within
	// a second with a 200; Early ended before its timeout otherwise
	// (closed by the client, a proxy or the server); Error got an error
	// code (410, 429, 5xx, ...); Open had not ended when the log ends.
	TimedOut int64 `json:"timedOut"`
	Early    int64 `json:"early"`
	AtOnce   int64 `json:"atOnce"`
	Error    int64 `json:"error"`
	Open     int64 `json:"open"`
	// LifetimeUnknown ended, but the log gives no valid
	// requestReceivedTimestamp: how long they lived is not known, nor
	// (for a 2xx) how they ended; those with an error code are in Error
	// too.
	LifetimeUnknown int64 `json:"lifetimeUnknown,omitempty"`
	// Timed are the ended watches whose lifetime is known: the min, mean
	// and max are of them, in seconds.
	Timed       int64   `json:"timed"`
	MinSeconds  float64 `json:"minSeconds"`
	MaxSeconds  float64 `json:"maxSeconds"`
	MeanSeconds float64 `json:"meanSeconds"`
}

// Codes counts the answers that matter to List/Watch clients.
type Codes struct {
	Expired   int64 `json:"410"`
	TooLarge  int64 `json:"504"`
	Throttled int64 `json:"429"`
	Server    int64 `json:"5xx"`
}

// Resource is one client's traffic on one resource ("configmaps",
// "deployments.apps", "pods/log"; a non-resource path as itself).
type Resource struct {
	Resource string `json:"resource"`
	Totals
}

// Pattern is one named behaviour, with its evidence and a fix.
type Pattern struct {
	Name     string    `json:"name"`
	Client   string    `json:"client,omitempty"`
	Resource string    `json:"resource,omitempty"`
	Count    int64     `json:"count"`
	First    time.Time `json:"first"`
	Last     time.Time `json:"last"`
	// PeriodSeconds is the mean time between the occurrences.
	PeriodSeconds float64 `json:"periodSeconds,omitempty"`
	Evidence      string  `json:"evidence"`
	Fix           string  `json:"fix"`
}

// ReadRule says where one list mode is read from on the server's version.
type ReadRule struct {
	Mode string `json:"mode"`
	// From is "storage", "cache" or "unknown".
	From string `json:"from"`
	Why  string `json:"why"`
	// IfCacheOn is From when the watch cache is on (where its state is
	// not known, a list it would serve is "unknown").
	IfCacheOn string `json:"ifCacheOn"`
}

// Timeline is lists, watches and 410s per bucket for the top clients.
type Timeline struct {
	Start         time.Time        `json:"start"`
	BucketSeconds int64            `json:"bucketSeconds"`
	Clients       []TimelineClient `json:"clients"`
}

// TimelineClient is one client's row of the timeline.
type TimelineClient struct {
	Client    string  `json:"client"`
	User      string  `json:"user"`
	UserAgent string  `json:"userAgent"`
	SourceIP  string  `json:"sourceIP,omitempty"`
	Lists     []int64 `json:"lists"`
	Watches   []int64 `json:"watches"`
	// Expired counts the 410 answers and the exact-RV watches that ended
	// within a second with a 200: a too-old watch gets its 410 as an ERROR
	// event inside the stream, which the audit log does not record.
	Expired []int64 `json:"expired"`
}
