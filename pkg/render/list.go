package render

import (
	"fmt"

	"github.com/watchrv/kubectl-watchrv/internal/rv"
	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/listing"
	"github.com/watchrv/kubectl-watchrv/pkg/serverinfo"
	"github.com/watchrv/kubectl-watchrv/pkg/suggest"
)

// ListReport is the stable schema of "list -o json|yaml".
type ListReport struct {
	// Cost is what the run took from the API server(s) (cost.go).
	Cost         *Cost  `json:"cost,omitempty"`
	Resource     string `json:"resource"`
	GroupVersion string `json:"groupVersion"`
	Namespace    string `json:"namespace"`
	// ClusterScoped: the resource has no namespace; NamespaceIgnored is
	// the -n given anyway (ignored, as kubectl does).
	ClusterScoped    bool   `json:"clusterScoped,omitempty"`
	NamespaceIgnored string `json:"namespaceIgnored,omitempty"`
	// Name, LabelSelector and FieldSelector are how the user narrowed the
	// list (the request's field selector holds NAME as metadata.name).
	Name                 string      `json:"name,omitempty"`
	LabelSelector        string      `json:"labelSelector,omitempty"`
	FieldSelector        string      `json:"fieldSelector,omitempty"`
	Request              ListRequest `json:"request"`
	ResourceVersion      string      `json:"resourceVersion"`
	ItemCount            int64       `json:"itemCount"`
	EstimatedTotal       *int64      `json:"estimatedTotal,omitempty"`
	Pages                int         `json:"pages"`
	PageResourceVersions []string    `json:"pageResourceVersions"`
	// Consistent (every page at one RV) and ListBelowNewestItem (the list
	// RV below its newest item's) are verdicts on the whole list: absent
	// when it was not read whole (Incomplete); ListBelowNewestItem also
	// when either RV is no decimal number (nothing was compared).
	Consistent             *bool  `json:"consistent,omitempty"`
	RemainingItemCount     *int64 `json:"remainingItemCount,omitempty"`
	MaxItemResourceVersion string `json:"maxItemResourceVersion"`
	ListBelowNewestItem    *bool  `json:"listResourceVersionBelowNewestItem,omitempty"`
	// Incomplete says the walk ended before the list's last page (the
	// signal aside: a list the signal cut is not printed at all): the
	// counts (itemCount, pages, maxItemResourceVersion, ...) are then of
	// the pages read, and nothing said only of a whole list is said (no
	// consistent, no listResourceVersionBelowNewestItem, no watchCommand).
	Incomplete *ListIncomplete `json:"incomplete,omitempty"`
	// ExcludedItems are the items the server answered that the request
	// excluded (another namespace, not matching a selector or NAME);
	// ExcludedFirst says why of the first. They are in ItemCount.
	ExcludedItems int64  `json:"excludedItems,omitempty"`
	ExcludedFirst string `json:"excludedFirst,omitempty"`
	// UnreadItemRV is the first item RV that is not a decimal RV, and
	// UnreadItemRVWhy what it is.
	UnreadItemRV    string `json:"unreadItemResourceVersion,omitempty"`
	UnreadItemRVWhy string `json:"-"`
	// NotCheckedForRepeats counts the items past the bound of the check
	// that no object is answered twice (listing.MaxDuplicateHashes):
	// whether they repeat one was not checked.
	NotCheckedForRepeats int64 `json:"itemsNotCheckedForRepeats,omitempty"`
	// ContractBreach says how the answer broke the List contract ("" when
	// it did not): the command then fails (exit 1) with it.
	ContractBreach string                `json:"contractBreach,omitempty"`
	ReadSemantics  listing.ReadSemantics `json:"readSemantics"`
	// ServedBy is who served the pages, by the server's rules (set with
	// the server's facts, so not with --rv-only).
	ServedBy *ListServedBy `json:"servedBy,omitempty"`
	Bytes    int64         `json:"bytes"`
	Millis   float64       `json:"ms"`
	// Pacing is the walk's wait for the client-side rate limit, which
	// Millis leaves out (absent when it did not wait).
	Pacing *ListPacing `json:"pacing,omitempty"`
	// RetryWait is the walk's wait before pages sent again after a
	// transient failure, which Millis leaves out too (absent when no page
	// was sent again).
	RetryWait   *ListRetryWait     `json:"retryWait,omitempty"`
	PageDetails []listing.PageInfo `json:"pageDetails"`
	Restarted   bool               `json:"restarted"`
	Attempts    []listing.Attempt  `json:"attempts,omitempty"`
	Error       string             `json:"error,omitempty"`
	// WatchCommand is the command that continues from this list, built by
	// pkg/suggest (the user's context and scope in it); WatchCommandNotes
	// say what to do before pasting it (a secret it does not print).
	WatchCommand      string   `json:"watchCommand,omitempty"`
	WatchCommandNotes []string `json:"watchCommandNotes,omitempty"`
	// WatchCaveat says where the suggested watch may still fail (no
	// watch cache: a storage the plugin cannot tell apart).
	WatchCaveat string `json:"watchCaveat,omitempty"`
	// ObjectNames are the names of the objects read, kept only for -o name.
	ObjectNames []string `json:"-"`
	// NoResourceVersion: the server sent no List RV (a resource not stored
	// in etcd, such as componentstatuses): there is nothing to watch from
	// and no read semantics of an RV apply.
	NoResourceVersion bool `json:"noResourceVersion,omitempty"`
	// WatchAdvice says why no "watch from here" is suggested, when none is.
	WatchAdvice string `json:"watchAdvice,omitempty"`
	// Server is what the plugin knew and assumed of the API server: the
	// read semantics' source is chosen from it.
	Server *serverinfo.Info `json:"server,omitempty"`
	// CurrentResourceVersion is the RV of a consistent read right after a
	// list at --rv 0 or NotOlderThan, read to check that list's RV;
	// CurrentRVServedBy is who served that one-item list (one request more
	// than the pages).
	CurrentResourceVersion string        `json:"currentResourceVersion,omitempty"`
	CurrentRVServedBy      *ListServedBy `json:"currentRVServedBy,omitempty"`

	checkCurrent bool
	watch        watchSuggestion
	// pagesAgree and itemAboveList are what Consistent and
	// ListBelowNewestItem say, of the pages read whole or not: the human
	// output says them of the pages read when the list is incomplete.
	pagesAgree, itemAboveList bool
	// rvsCompared: the list RV and the newest item's RV are both decimal
	// RVs, so the one could be compared with the other (adversary try 45
	// F8: "not lower: ok" was said of a list RV that is no number).
	rvsCompared bool
	// requests are the walk's page requests (listing.PageRequests).
	requests listing.PageRequests
}

// ListIncomplete is a list read in part: its walk stopped before page
// UnreadFromPage (Why: its continue token expired, its request failed, a
// bound ended it), so what the report counts is of the pages before it.
type ListIncomplete struct {
	UnreadFromPage int    `json:"unreadFromPage"`
	Why            string `json:"why"`
}

// ListPacing is the walk's wait for the client-side rate limit (RateLimit):
// the plugin's own pacing, not the server's time.
type ListPacing struct {
	Millis float64 `json:"ms"`
	apiclient.RateLimit
}

// ListServedBy is serverinfo.Served for this list's pages, with the list
// requests storage and the watch cache served when the rules tell (nil
// when they do not): the matrix oracle holds them to the server's list
// counters.
type ListServedBy struct {
	serverinfo.Served
	StorageRequests *int `json:"storageRequests,omitempty"`
	CacheRequests   *int `json:"cacheRequests,omitempty"`
}

// ListQuery is what the user asked list for: the collection (NAME in its
// field selector as metadata.name), how it was read, how it was narrowed,
// and the context a suggested command carries.
type ListQuery struct {
	Target apiclient.Target
	Walk   listing.WalkOptions
	RVOnly bool
	// Name and FieldSelector are the user's (Target's field selector
	// holds both).
	Name, FieldSelector string
	// NamespaceIgnored is -n given for a cluster-scoped resource.
	NamespaceIgnored string
	Context          suggest.Context
	// RateLimit is the client's, which paced the walk (Pacing).
	RateLimit apiclient.RateLimit
}

// Scope is how a suggested command narrows the collection as the user did.
func (q ListQuery) Scope() suggest.Scope {
	t := q.Target
	return suggest.Scope{
		Namespace: t.Namespace, AllNamespaces: t.Resource.Namespaced && t.Namespace == "",
		LabelSelector: t.LabelSelector, FieldSelector: q.FieldSelector, Name: q.Name,
	}
}

// watchSuggestion is what "Watch from here" is built from.
type watchSuggestion struct {
	ctx      suggest.Context
	resource string
	scope    suggest.Scope
}

// ListRequest echoes what was asked.
type ListRequest struct {
	Limit                int64  `json:"limit"`
	ResourceVersion      string `json:"resourceVersion"`
	ResourceVersionMatch string `json:"resourceVersionMatch,omitempty"`
	RVOnly               bool   `json:"rvOnly"`
	URL                  string `json:"url"`
}

// NewListReport summarizes a walk.
func NewListReport(q ListQuery, w *listing.WalkResult) ListReport {
	t, o, a := q.Target, q.Walk, w.Final()
	r := ListReport{
		Resource:         t.Resource.Name(),
		GroupVersion:     t.Resource.GVR.GroupVersion().String(),
		Namespace:        t.Namespace,
		ClusterScoped:    !t.Resource.Namespaced,
		NamespaceIgnored: q.NamespaceIgnored,
		Name:             q.Name,
		LabelSelector:    t.LabelSelector,
		FieldSelector:    q.FieldSelector,
		Request: ListRequest{
			Limit: o.Limit, ResourceVersion: o.ResourceVersion, ResourceVersionMatch: o.ResourceVersionMatch,
			RVOnly: q.RVOnly, URL: apiclient.URL(t.CollectionPath(), o.PageOptions.Query(t)),
		},
		ItemCount:              a.ItemCount,
		Pages:                  len(a.Pages),
		PageResourceVersions:   []string{},
		pagesAgree:             true,
		requests:               w.Requests(),
		MaxItemResourceVersion: a.MaxItemResourceVersion,
		ReadSemantics:          semanticsOf(o.ResourceVersion, o.ResourceVersionMatch, o.Limit, serverinfo.NameOnly(t.Resource.Name())),
		PageDetails:            a.Pages,
		Restarted:              len(w.Attempts) > 1,
		Millis:                 float64(w.Duration.Microseconds()) / 1000,
		Error:                  a.Error,
		watch:                  watchSuggestion{ctx: q.Context, resource: t.Resource.Name(), scope: q.Scope()},
	}
	if r.PageDetails == nil {
		r.PageDetails = []listing.PageInfo{}
	}
	if r.Restarted {
		r.Attempts = w.Attempts
	}
	for i, p := range a.Pages {
		r.PageResourceVersions = append(r.PageResourceVersions, p.ResourceVersion)
		r.Bytes += p.Bytes
		if i == 0 {
			r.ResourceVersion = p.ResourceVersion
			r.RemainingItemCount = p.RemainingItemCount
		} else if p.ResourceVersion != r.ResourceVersion {
			r.pagesAgree = false
		}
	}
	if w.Paced > 0 {
		r.Pacing = &ListPacing{Millis: float64(w.Paced.Microseconds()) / 1000, RateLimit: q.RateLimit}
	}
	r.RetryWait = retryWaitOf(w)
	if q.RVOnly && len(a.Pages) == 1 {
		r.EstimatedTotal = totalOf(a.Pages[0])
	}
	if lr, ok := rv.Parse(r.ResourceVersion); ok {
		if mr, ok := rv.Parse(r.MaxItemResourceVersion); ok {
			r.rvsCompared, r.itemAboveList = true, mr > lr
		}
	}
	if w.Whole() {
		agree, above := r.pagesAgree, r.itemAboveList
		r.Consistent = &agree
		if r.rvsCompared {
			r.ListBelowNewestItem = &above
		}
	} else {
		r.Incomplete = &ListIncomplete{UnreadFromPage: a.UnreadFromPage, Why: whyUnread(a)}
	}
	r.ExcludedItems, r.ExcludedFirst = a.Excluded, a.ExcludedFirst
	r.UnreadItemRV, r.UnreadItemRVWhy = a.UnreadItemRV, a.UnreadItemRVWhy
	r.NotCheckedForRepeats = a.NotCheckedForRepeats
	r.ContractBreach = a.Breach
	switch {
	case r.Incomplete != nil:
		// Its RV is page 1's, but a watch from it would continue a list
		// the user does not have (fresh user try 22 F3: -o json suggested
		// one after an expired continue token).
		r.WatchAdvice = fmt.Sprintf("none: the list was not read whole (it stopped before page %d), so no watch continues from it", a.UnreadFromPage)
	case r.ContractBreach != "":
		r.WatchAdvice = "not suggested: this answer broke the List contract, so its RV is no start to trust"
	case r.ResourceVersion == "" && len(a.Pages) > 0:
		r.NoResourceVersion = true
		r.ReadSemantics = listing.ReadSemantics{Mode: "None", Description: "none: the server sent no resourceVersion, so no RV semantics apply"}
		r.WatchAdvice = "none: without a List RV there is no point to watch from"
	case r.ResourceVersion != "" && !storageRV(r.ResourceVersion):
		// No watch starts from it: --rv refuses it, and a watch --rv
		// list takes its start from this server's list RV in the same
		// way (adversary try 44 B: "abc" suggested watch --rv list,
		// which, pasted, exits 1 "the list gave no resume point").
		_, why := rv.OfStorage(r.ResourceVersion)
		r.WatchAdvice = fmt.Sprintf("none: the list's resourceVersion %q %s, and etcd-backed API servers write a decimal RV from 1: no watch starts from it (--rv refuses it, and watch --rv list would start from this server's list RV, which gives it no resume point); find out what answers at the kubeconfig's server (a proxy or a shim in front of the API server)", text.Echo(r.ResourceVersion), why)
	case r.ReadSemantics.Mode == "Exact":
		// An exact list reads the past: its RV may be one the watch window
		// has already left.
		r.WatchAdvice = fmt.Sprintf("not suggested: an exact list at --rv %s reads the past, which may be older than the watch window; list without --rv (a consistent read) for a start that works, or list and watch in one: %s", o.ResourceVersion, r.watchFromList())
	case r.ResourceVersion != "" && r.ReadSemantics.Mode == "Consistent":
		r.suggestWatch()
	case r.ResourceVersion != "":
		// Any and NotOlderThan return the serving cache's newest state,
		// which may lag the current RV: CheckWatchStart decides.
		r.checkCurrent = true
	}
	return r
}

// whyUnread says why an attempt stopped before the list's last page.
func whyUnread(a *listing.Attempt) string {
	switch {
	case a.ExpiredOnPage > 0:
		return "its continue token had expired: 410 Expired"
	case diagnose.ClassifyFailure(a.Err) == diagnose.FailureUnbounded:
		return "the list went past one of the plugin's bounds"
	}
	return "its request failed"
}

// totalOf is the collection's size as one page tells it: the items read
// and the server's count of the rest; known without a count only when the
// page is the last (no continue token). nil: unknown (a selector: the
// server does not count the rest).
func totalOf(p listing.PageInfo) *int64 {
	total := int64(p.Items)
	switch {
	case p.RemainingItemCount != nil && listing.RemainingUntrue(p) == "":
		total += *p.RemainingItemCount
	case p.RemainingItemCount != nil, p.More:
		return nil
	}
	return &total
}

// storageRV says whether v is an RV a watch can start from: a storage's
// (rv.OfStorage), as watch --rv list takes a list's.
func storageRV(v string) bool {
	_, why := rv.OfStorage(v)
	return why == ""
}

// suggestWatch sets WatchCommand: a watch from the List RV, in the user's
// context and scope. An RV the plugin would refuse is never suggested
// (pkg/suggest checks it with internal/rv).
func (r *ListReport) suggestWatch() {
	l, err := r.watch.ctx.Command("watch", r.watch.resource, r.watch.scope, suggest.RV(r.ResourceVersion))
	if err != nil {
		r.WatchAdvice = "not suggested: " + err.Error()
		return
	}
	r.WatchCommand, r.WatchCommandNotes = l.String(), l.Notes
	r.setWatchCaveat()
}

// watchFromList is "watch --rv list" in the user's context and scope.
func (r *ListReport) watchFromList() string {
	l, err := r.watch.ctx.Command("watch", r.watch.resource, r.watch.scope, suggest.RV("list"))
	if err != nil {
		return "watch with --rv list"
	}
	return l.String()
}

// NeedsCurrentRV is true after a list whose RV is a watch start only if it
// is current (--rv 0, NotOlderThan: the serving cache's newest state, which
// may lag): the caller reads the current RV and calls CheckWatchStart.
func (r *ListReport) NeedsCurrentRV() bool { return r.checkCurrent }

// CheckWatchStart suggests a watch from the list's RV when a consistent
// read right after the list found it current; otherwise it says why not.
func (r *ListReport) CheckWatchStart(current string, err error) {
	r.checkCurrent = false
	if r.Server != nil {
		r.CurrentRVServedBy = servedBy(r.Server.ListServed("", "", 1), listing.PageRequests{First: 1})
	}
	mode := "--rv 0"
	if r.ReadSemantics.Mode == "NotOlderThan" {
		mode = "--rv " + r.Request.ResourceVersion + " --rv-match NotOlderThan"
	}
	switch {
	case err != nil:
		r.WatchAdvice = fmt.Sprintf("not suggested: a list at %s may lag the current state, and the current RV could not be read to check it (%s%s); list without --rv (a consistent read) for a start that works", mode, apiclient.FailureWords("list", r.Resource, err), RetriesSaid(err))
	case current == r.ResourceVersion:
		r.CurrentResourceVersion = current
		r.suggestWatch()
	default:
		r.CurrentResourceVersion = current
		r.WatchAdvice = fmt.Sprintf("not suggested: a list at %s returned RV %s, but a consistent read right after it found RV %s: the state it read may lag, and a watch from %s works only while %s is in the watch window; list without --rv (a consistent read) for a start that works", mode, r.ResourceVersion, current, r.ResourceVersion, r.ResourceVersion)
	}
}

// StorageRV is the RV this list vouches for as its storage's revision:
// that of a consistent list (resourceVersion unset) whose answer kept the
// List contract; "" otherwise. Only it may feed the facts cache's RV check
// (serverinfo.Cache.SeenRV, through the command's factsAt): an answer the
// run refuses as not the API server's recorded its RV, and a proxy
// answering a low one made the run say "another storage answers at this
// address" and drop good facts (adversary try 23 F5). The other readers
// of an RV for it (the current RV of watch and probe) go through
// listing.List, which gives no page of an answer that broke the contract.
func (r ListReport) StorageRV() string {
	if r.ContractBreach != "" || r.ReadSemantics.Mode != "Consistent" || r.Request.ResourceVersionMatch != "" || r.Consistent == nil || !*r.Consistent {
		return ""
	}
	return r.ResourceVersion
}

// WithServer adds what is known of the server: who served each page (by
// its rules), and what a suggested watch may meet there.
func (r ListReport) WithServer(in *serverinfo.Info) ListReport {
	r.Server = in
	if r.NoResourceVersion {
		return r
	}
	sv := in.ListServed(r.Request.ResourceVersion, r.Request.ResourceVersionMatch, r.Request.Limit)
	if in != nil {
		r.ReadSemantics = semanticsOf(r.Request.ResourceVersion, r.Request.ResourceVersionMatch, r.Request.Limit, in)
	}
	r.ReadSemantics.Source = "served by " + sv.First
	// The walk's one count of its requests, whichever way it ended: a
	// restarted walk's page 1 twice, the continue request answered 410
	// (with or without a restart: fresh user try 22 F3).
	r.ServedBy = servedBy(sv, r.requests)
	r.setWatchCaveat()
	return r
}

// semanticsOf is a list request's read semantics as in tells them: the
// kube-apiserver's rule (a quorum read, compaction, TooLarge) as who
// serves its first page (from) makes it (serverinfo.Info.ReadRule), and
// only of a resource it is known to serve itself (ReadText).
func semanticsOf(rv, match string, limit int64, in *serverinfo.Info) listing.ReadSemantics {
	s := listing.SemanticsOf(rv, match, limit)
	s.OwnRule = in.ReadRule(s.Mode, rv, in.ListServed(rv, match, limit).FirstFrom, s.OwnRule)
	s.Description = in.ReadText(s.Asks, s.OwnRule)
	return s
}

// setWatchCaveat: without a watch cache, the suggested watch is served by
// storage, and on kine (k3s's storage) a watch from the list's RV fails
// with PrevKv=nil once an object last written below kine's compaction
// point changes (the reference page, kine section): the plugin cannot tell
// etcd from kine, so it says both.
func (r *ListReport) setWatchCaveat() {
	if r.WatchCommand == "" || r.Server == nil || r.Server.WatchCache != serverinfo.No || r.Server.Storage != "unknown" {
		return
	}
	follow := "add --follow"
	if l, err := r.watch.ctx.Command("watch", r.watch.resource, r.watch.scope, suggest.RV(r.ResourceVersion), suggest.Bool("follow")); err == nil {
		follow = l.String()
	}
	r.WatchCaveat = fmt.Sprintf("%s has no watch cache here, so storage serves this watch: on etcd it starts at RV %s; on kine (k3s's storage; the plugin cannot tell them apart) it fails with a 500 \"PrevKv=nil\", that change lost, once an object last written before kine's compaction point changes. With --follow the plugin relists then and shows what changed: %s",
		r.Resource, r.ResourceVersion, follow)
}
