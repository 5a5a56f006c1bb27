package listing

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/watchrv/kubectl-watchrv/internal/rv"
	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
)

// WalkOptions configure a paged walk of a collection.
type WalkOptions struct {
	PageOptions
	// NoRestart stops at an expired continue token instead of restarting
	// from the first page once.
	NoRestart bool
	// MaxPages stops after that many pages (0 = all); 1 is the --rv-only read.
	MaxPages int
	// Trace (may be nil) sees every request and retry, for -v.
	Trace func(format string, args ...any)
	// Retry is how a page request that failed transiently is sent again
	// (zero fields: 6 tries, 250 ms doubling, the server's Retry-After
	// honoured, waits capped at 30 s).
	Retry apiclient.Retry
	// FirstPageOnce sends the first page once: for a caller that sends
	// the whole list again itself after a failure (watch --follow's
	// relist, within its reconnect backoff), so that no request is
	// retried by two policies one inside the other.
	FirstPageOnce bool
	// Keeps is what the caller keeps of each item onItem sees, in bytes
	// (nil: nothing; KeptItem for the whole ItemMeta, as a watch's list
	// keeps it; -o name its name): the walk ends past MaxKeptBytes of
	// them. One bound for every caller that holds what it lists.
	Keeps func(ItemMeta) int64
}

func (o WalkOptions) trace(format string, args ...any) {
	if o.Trace != nil {
		o.Trace(format, args...)
	}
}

// PageInfo is what is kept of each page: never its items, so memory stays
// bounded whatever the collection size.
type PageInfo struct {
	Index              int           `json:"index"`
	ResourceVersion    string        `json:"resourceVersion"`
	Items              int           `json:"items"`
	RemainingItemCount *int64        `json:"remainingItemCount,omitempty"`
	Bytes              int64         `json:"bytes"`
	Duration           time.Duration `json:"-"`
	Millis             float64       `json:"ms"`
	// More: the page carried a continue token (more items follow); with
	// no remainingItemCount (a selector) the total is then unknown.
	More bool `json:"more,omitempty"`
}

// Attempt is one walk from the first page; a restarted walk has two.
type Attempt struct {
	Pages                  []PageInfo `json:"pages"`
	ItemCount              int64      `json:"itemCount"`
	MaxItemResourceVersion string     `json:"maxItemResourceVersion,omitempty"`
	Err                    error      `json:"-"`
	Error                  string     `json:"error,omitempty"`
	// ExpiredOnPage is the 1-based page whose continue token had expired.
	ExpiredOnPage int `json:"expiredOnPage,omitempty"`
	// UnreadFromPage is the first page the attempt did not read, when it
	// ended before the list's last page: its request failed (an expired
	// continue token, an error, the signal), or a bound ended the walk
	// (walkend.go, MaxKeptBytes). 0 when it read the list to its last
	// page (or to MaxPages, as asked). What such an attempt read is a part
	// of the list, never the list (WalkResult.Whole).
	UnreadFromPage int `json:"unreadFromPage,omitempty"`
	// requestFailed: page UnreadFromPage was asked for and its request
	// failed (not a bound that ended the walk before asking).
	requestFailed bool
	// Retries counts page requests repeated after a transient failure (the
	// API server restarting or overloaded).
	Retries int `json:"retries,omitempty"`
	// RetriedPages are the 1-based pages sent again, each once.
	RetriedPages []int `json:"retriedPages,omitempty"`
	// InconsistentContinue is true when the 410 offered a fresh continue
	// token for an inconsistent continuation (not used: it would mix snapshots).
	InconsistentContinue bool `json:"inconsistentContinueOffered,omitempty"`
	// Excluded counts the items the server answered that the request
	// excluded (apiclient.Target.Excludes): it ignored the namespace or a
	// selector. They are counted in ItemCount (the server sent them) but
	// never given to onItem: they are not the collection's. ExcludedFirst
	// says why of the first.
	Excluded      int64  `json:"excludedItems,omitempty"`
	ExcludedFirst string `json:"excludedFirst,omitempty"`
	// ExcludedBroke is the restrictions they broke, which the breach
	// names (only those: never every restriction of the request).
	ExcludedBroke apiclient.Restriction `json:"-"`
	// UnreadItemRV is the first item RV that is not a decimal RV (""
	// when every item's is one, or carries none): no such RV is ordered.
	UnreadItemRV string `json:"unreadItemResourceVersion,omitempty"`
	// UnreadItemRVWhy says what it is (rv.Why of the whole value).
	UnreadItemRVWhy string `json:"-"`
	// Breach says how the answer broke the List contract ("" when it did
	// not: contract.go); the walk then ends with a *diagnose.ContractError.
	Breach string `json:"contractBreach,omitempty"`
	// Repeated counts the items that repeat an earlier one's namespace/name
	// or UID (duplicates.go); NotCheckedForRepeats the items past the
	// check's bound (MaxDuplicateHashes), whose names were not checked.
	Repeated             int64  `json:"repeatedItems,omitempty"`
	NotCheckedForRepeats int64  `json:"itemsNotCheckedForRepeats,omitempty"`
	repeat               string // the breach of the first repeat
}

// repeats keeps what the attempt's duplicate check found.
func (a *Attempt) repeats(d *dupCheck) {
	a.Repeated, a.NotCheckedForRepeats, a.repeat = d.repeats, d.unchecked, d.breach()
}

// WalkResult is the outcome of a walk.
type WalkResult struct {
	Attempts []Attempt
	// Duration is the walk's time less the plugin's own waits (Stopwatch):
	// for a client-side rate limiter, which Paced is, and before a page
	// sent again after a transient failure, which RetryWaited is (Retries
	// of them): the server's and the network's time, and the plugin's
	// own, said apart.
	Duration    time.Duration
	Paced       time.Duration
	RetryWaited time.Duration
	Retries     int
	// ServerAskedRetries of the Retries waited as the server's
	// Retry-After asked (the longest it asked: ServerAsked); the others
	// waited the plugin's backoff.
	ServerAskedRetries int
	// CappedRetries of them the policy's cap cut below the ask.
	CappedRetries int
	ServerAsked   time.Duration
}

// Final is the last attempt.
func (r *WalkResult) Final() *Attempt { return &r.Attempts[len(r.Attempts)-1] }

// Whole reports whether the walk's last attempt read the list: from page 1
// to its last page (or to MaxPages, as asked). Only then is what it read
// the list; everything said of the whole list (its total, that all its
// pages share one RV, that its RV is not below its newest item, the watch
// that continues from it) rests on it. A walk the signal cut, whose
// continue token expired, whose page failed or that a bound ended read a
// part of the list, whatever its pages say.
func (r *WalkResult) Whole() bool {
	a := r.Final()
	return len(a.Pages) > 0 && a.UnreadFromPage == 0
}

// PageRequests counts a walk's page requests, every attempt's: the one
// count of what the walk asked the server for, which "Served by" divides
// between storage and the watch cache.
type PageRequests struct {
	// First and Continues are the requests the server read as a list: the
	// pages answered, and a continue request answered 410 Expired (the
	// server read it as any continue page before it found the token's
	// revision compacted: fresh user try 19, and try 22 F3, where a walk
	// with NoRestart left it out and counted one storage request fewer
	// than the server).
	First, Continues int
	// Unknown are the requests sent whose read is not known: those
	// repeated after a transient failure (a 429 never reaches storage, a
	// 500 may have) and one that failed otherwise.
	Unknown int
}

// Requests counts the walk's page requests (PageRequests).
func (r *WalkResult) Requests() PageRequests {
	var n PageRequests
	for _, a := range r.Attempts {
		if len(a.Pages) > 0 {
			n.First++
			n.Continues += len(a.Pages) - 1
		}
		n.Unknown += a.Retries
		switch {
		case a.ExpiredOnPage > 0:
			n.Continues++
		case a.requestFailed:
			n.Unknown++
		}
	}
	return n
}

// Walk reads the collection page by page. onItem (may be nil) sees every
// item's metadata once, in order; nothing of the items is kept.
func Walk(ctx context.Context, c *apiclient.Client, t apiclient.Target, o WalkOptions, onItem func(ItemMeta)) (*WalkResult, error) {
	ctx, sw := apiclient.StartStopwatch(ctx) // the rate limiters' waits left out
	res := &WalkResult{}
	for {
		a, err := walkOnce(ctx, c, t, o, onItem)
		res.Attempts = append(res.Attempts, a)
		res.Duration, res.Paced = sw.Elapsed(), sw.Paced()
		res.RetryWaited, res.Retries = sw.RetryWaited(), sw.Retries()
		res.ServerAskedRetries, res.ServerAsked = sw.ServerAskedRetries()
		res.CappedRetries = sw.CappedRetries()
		if err == nil {
			return res, nil
		}
		if a.ExpiredOnPage == 0 || o.NoRestart || len(res.Attempts) > 1 {
			return res, err
		}
	}
}

func walkOnce(ctx context.Context, c *apiclient.Client, t apiclient.Target, o WalkOptions, onItem func(ItemMeta)) (Attempt, error) {
	var a Attempt
	var maxRV uint64
	opts := o.PageOptions
	ends := newEndCheck(t.CollectionPath())
	var kept int64 // what the caller keeps of the items so far (Keeps)
	dups := newDupCheck()
	for i := 1; ; i++ {
		// Each item is seen as the page streams, and kept only by onItem.
		// A page retried after a break comes again from the same continue
		// token, the same snapshot in the same order: onItem sees only the
		// items past those it saw.
		delivered := 0
		each := func(j int, it ItemMeta) {
			if j >= delivered {
				delivered = j + 1
				dups.add(it)
				if onItem != nil {
					if o.Keeps != nil {
						kept += o.Keeps(it)
					}
					onItem(it)
				}
			}
		}
		p, retries, err := listPageRetrying(ctx, c, t, o, opts, i > 1 || !o.FirstPageOnce, each)
		a.Retries += retries
		if retries > 0 {
			a.RetriedPages = append(a.RetriedPages, i)
		}
		if err != nil {
			a.Err, a.Error = err, err.Error()
			a.UnreadFromPage, a.requestFailed = i, true
			if i > 1 && diagnose.ClassifyFailure(err) == diagnose.FailureExpired {
				a.ExpiredOnPage = i
				if st, ok := diagnose.StatusOf(err); ok && st.ListMeta.Continue != "" {
					a.InconsistentContinue = true
				}
				return a, &ContinueExpiredError{Page: i, Err: err}
			}
			return a, err
		}
		a.Pages = append(a.Pages, p.info(i))
		a.ItemCount += int64(p.Count)
		a.Excluded += p.Excluded
		a.ExcludedBroke |= p.ExcludedBroke
		if a.ExcludedFirst == "" {
			a.ExcludedFirst = p.ExcludedFirst
		}
		if n, ok := rv.Parse(p.MaxItemRV); ok && n > maxRV {
			maxRV, a.MaxItemResourceVersion = n, p.MaxItemRV
		}
		if a.UnreadItemRV == "" {
			a.UnreadItemRV, a.UnreadItemRVWhy = p.UnreadItemRV, p.UnreadItemRVWhy
		}
		if p.Continue == "" || (o.MaxPages > 0 && i >= o.MaxPages) {
			a.repeats(dups)
			return a, a.contractError(t, o.PageOptions)
		}
		if kept > MaxKeptBytes {
			// Small valid pages whose items add up without end: kept,
			// they took 1.3 GB and a Go stack (fresh try 7).
			err := &apiclient.BoundError{
				Method: "GET", URL: apiclient.URL(t.CollectionPath(), opts.Query(t)),
				Over:  fmt.Sprintf("lists more than %s of what is kept of the objects (%s in %s)", apiclient.Bytes(MaxKeptBytes), text.Count(int(a.ItemCount), "object"), text.Count(i, "page")),
				Bound: "the most one walk keeps of the objects it lists",
				Fix:   "read a narrower list (one namespace, a label or a field selector)",
			}
			a.Err, a.Error, a.UnreadFromPage = err, err.Error(), i+1
			return a, err
		}
		if err := ends.next(i, p.Count, a.ItemCount, p.Continue); err != nil {
			a.Err, a.Error, a.UnreadFromPage = err, err.Error(), i+1
			return a, err
		}
		opts.Continue = p.Continue
	}
}

// pageRetry is how long a walk waits before repeating a page request that
// failed transiently: 250 ms doubling, six tries (the last wait 4 s), or
// the server's Retry-After. A continue token stays valid across an API
// server restart as long as etcd keeps the revision, so waiting out a
// restart (a few seconds) is better than starting over. The first page is
// retried alike (fresh user try 26 F2: a 503 with Retry-After on page 1
// ended the list at once, where kubectl get waits it out and
// docs/list.md says any page is sent again): a transient failure is one
// whatever the page. What is retried is the one classifier's retryable
// set: a 504 TooLarge, a 410 are answers, never sent again.
func (o WalkOptions) pageRetry() apiclient.Retry {
	r := o.Retry
	if r.Tries <= 0 {
		r.Tries = 6
	}
	if r.Initial <= 0 {
		r.Initial = 250 * time.Millisecond
	}
	return r
}

func listPageRetrying(ctx context.Context, c *apiclient.Client, t apiclient.Target, wo WalkOptions, o PageOptions, retry bool, each func(int, ItemMeta)) (*Page, int, error) {
	policy := wo.pageRetry()
	for failed := 1; ; failed++ {
		start := time.Now()
		p, err := listEach(ctx, c, t, o, each)
		url := apiclient.URL(t.CollectionPath(), o.Query(t))
		if err != nil {
			wo.trace("GET %s: %v (%s)", url, err, time.Since(start).Round(time.Millisecond))
		} else {
			wo.trace("GET %s: %s at RV %s, %s (%s)", url, text.Count(p.Count, "item"), p.ResourceVersion, text.Count(p.Bytes, "byte"), p.Duration.Round(time.Millisecond))
		}
		if err == nil || !retry || !policy.More(failed) || !sendAgain(err, o.Continue != "") {
			return p, failed - 1, err
		}
		wait := policy.Delay(failed, err)
		wo.trace("retry %d of this page in %s: the failure is transient", failed, wait)
		if policy.Wait(ctx, wait) != nil {
			return nil, failed - 1, err
		}
	}
}

// sendAgain reports a list request's failure worth one more try: the one
// classifier's retryable set (no connection, a broken one, a 5xx, a 429)
// for every request of the one list path. An answer that never began
// within its bound (FailureNoAnswer: --request-timeout, or AnswerWait) is
// sent again only for a continue page, which has a snapshot to lose: a
// first page or a current-RV read that waited its whole bound ends there,
// as docs/requests.md promises ("no answer began within 1m15s", exit 4),
// never six bounds later.
func sendAgain(err error, continued bool) bool {
	f := diagnose.ClassifyFailure(err)
	return f.Retryable() && (continued || f != diagnose.FailureNoAnswer)
}

// ContinueExpiredError says a continue token expired mid-list.
type ContinueExpiredError struct {
	Page int
	Err  error
}

func (e *ContinueExpiredError) Error() string {
	return fmt.Sprintf("the continue token expired before page %d (410 Expired): the server no longer has the snapshot of the first page; a paged list must restart from page 1: %v", e.Page, e.Err)
}

func (e *ContinueExpiredError) Unwrap() error { return e.Err }

// IsContinueExpired reports whether err is a ContinueExpiredError.
func IsContinueExpired(err error) bool {
	var ce *ContinueExpiredError
	return errors.As(err, &ce)
}

// MaxKeptBytes bounds what a walk's caller keeps of the objects it lists
// (Keeps): 128 MiB is about 300,000 whole ItemMetas of short names, or two
// million names of 50 bytes.
const MaxKeptBytes = 128 << 20

// itemMetaSize is about the size of an ItemMeta's fields (strings, two
// maps, a time).
const itemMetaSize = 224

// KeptItem is about what keeping a whole ItemMeta costs: its strings,
// twice the struct (a slice that keeps them grows by doubling), and a few
// words for each map entry.
func KeptItem(it ItemMeta) int64 {
	n := int64(len(it.Namespace)+len(it.Name)+len(it.UID)+len(it.ResourceVersion)+len(it.CreationTimestamp)+len(it.DeletionTimestamp)) + 2*itemMetaSize
	for k, v := range it.Labels {
		n += int64(len(k)+len(v)) + 48
	}
	for k, v := range it.Annotations {
		n += int64(len(k)+len(v)) + 48
	}
	return n
}

// KeptName is what keeping an item's name alone costs (-o name): the
// name and its string header.
func KeptName(it ItemMeta) int64 { return int64(len(it.Name)) + 16 }
