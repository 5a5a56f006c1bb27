// Package listing reads collections: one List request, a paged walk that
// keeps no items, and the read semantics of a List's parameters in words.
package listing

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/watchrv/kubectl-watchrv/internal/countio"
	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
)

// ItemMeta is the metadata of one listed object.
type ItemMeta = apiclient.ItemMeta

// PageOptions are the query parameters of one List request.
type PageOptions struct {
	Limit                int64
	ResourceVersion      string // "" = unset (consistent read)
	ResourceVersionMatch string // "", NotOlderThan or Exact
	Continue             string
	// Budget (nil = unbounded) is not a query parameter: List takes one
	// token from it before it sends the request (the rule of
	// apiclient.Budget: the function that sends takes).
	Budget *apiclient.Budget
}

// Page is one List response, reduced to what is reported.
type Page struct {
	ResourceVersion    string
	Continue           string
	RemainingItemCount *int64
	// Items are the page's items (List); nil from a walk's read, which
	// keeps none.
	Items []ItemMeta
	// Count is how many items the page held, those the request excluded
	// included (Excluded of them, ExcludedFirst says why of the first:
	// never handed on, nor kept in Items).
	Count         int
	Excluded      int64
	ExcludedFirst string
	// ExcludedBroke is the restrictions the excluded items broke.
	ExcludedBroke apiclient.Restriction
	// MaxItemRV is the newest decimal item RV ("" none); UnreadItemRV the
	// first item RV that is no decimal RV, UnreadItemRVWhy what it is.
	MaxItemRV, UnreadItemRV, UnreadItemRVWhy string
	Bytes                                    int64
	Duration                                 time.Duration
	URL                                      string
}

// Query renders the options as URL parameters. resourceVersion and its match
// are not sent with a continue token: the token carries the snapshot.
func (o PageOptions) Query(t apiclient.Target) url.Values {
	q := url.Values{}
	if o.Limit > 0 {
		q.Set("limit", strconv.FormatInt(o.Limit, 10))
	}
	if o.Continue != "" {
		q.Set("continue", o.Continue)
	} else {
		if o.ResourceVersion != "" {
			q.Set("resourceVersion", o.ResourceVersion)
		}
		if o.ResourceVersionMatch != "" {
			q.Set("resourceVersionMatch", o.ResourceVersionMatch)
		}
	}
	t.AddSelectors(q)
	return q
}

// maxItems is the most items the page may hold: MaxIgnoredLimitItems where
// the server pages (a consistent read, or a continue page: storage and the
// watch cache send at most the limit there), else MaxPageItems (the watch
// cache answers an rv=0 or NotOlderThan list whole, whatever the limit).
// So a caller that keeps the items (List) holds a bounded few.
//
// An aggregated API server may ignore the limit (metrics-server answers
// whole): such a page may hold up to MaxIgnoredLimitItems, far more than
// any real one and little memory for the callers that keep the items.
func (o PageOptions) maxItems() int {
	if o.Limit > 0 && o.Limit < MaxIgnoredLimitItems && (o.Continue != "" || o.ResourceVersion == "") {
		return MaxIgnoredLimitItems
	}
	return MaxPageItems
}

// MaxIgnoredLimitItems bounds a paged list's page whatever its limit: a
// server that ignores the limit (an aggregated API) still sends no more
// items than this in practice.
const MaxIgnoredLimitItems = 100_000

// List is the plugin's one list request: one page of the collection
// (the whole collection when Limit is 0), metadata only, sent exactly once.
// Paged walks, relists, current-RV reads and exact-list probes all go
// through it. The page's items are kept (Page.Items): a walk, which keeps
// none, reads its pages with listEach.
//
// An answer that broke the List contract is a *diagnose.ContractError
// (contract.go), with no page: no caller draws a number from it.
func List(ctx context.Context, c *apiclient.Client, t apiclient.Target, o PageOptions) (*Page, error) {
	var items []ItemMeta
	dups := newDupCheck()
	p, err := listEach(ctx, c, t, o, func(_ int, it ItemMeta) {
		dups.add(it)
		items = append(items, it)
	})
	if err != nil {
		return nil, err
	}
	a := Attempt{Pages: []PageInfo{p.info(1)}, ItemCount: int64(p.Count), Excluded: p.Excluded, ExcludedFirst: p.ExcludedFirst, ExcludedBroke: p.ExcludedBroke, MaxItemResourceVersion: p.MaxItemRV}
	a.repeats(dups)
	if err := a.contractError(t, o); err != nil {
		return nil, err
	}
	p.Items = items
	if p.Items == nil {
		p.Items = []ItemMeta{}
	}
	return p, nil
}

// info is what a walk keeps of page i (1-based).
func (p *Page) info(i int) PageInfo {
	return PageInfo{
		Index: i, ResourceVersion: p.ResourceVersion, Items: p.Count,
		RemainingItemCount: p.RemainingItemCount, More: p.Continue != "", Bytes: p.Bytes,
		Duration: p.Duration, Millis: float64(p.Duration.Microseconds()) / 1000,
	}
}

// listEach sends the list request and decodes its page as it streams,
// handing each item to each (nil: none) and keeping none: Page.Items stays
// nil, Page.Count says how many there were.
func listEach(ctx context.Context, c *apiclient.Client, t apiclient.Target, o PageOptions, each func(int, ItemMeta)) (*Page, error) {
	// The page's time is the server's: the client-side rate limiters'
	// waits (--qps's token below, the REST client's own in Get) are left
	// out (apiclient.Stopwatch).
	ctx, sw := apiclient.StartStopwatch(ctx)
	if err := o.Budget.Take(ctx); err != nil {
		return nil, err
	}
	q := o.Query(t)
	body, err := c.Get(ctx, t.CollectionPath(), q, apiclient.AcceptMetadataList)
	if err != nil {
		return nil, err
	}
	defer body.Close()
	cr := &countio.Reader{R: body}
	check := newItemCheck(t)
	kept := 0
	head, n, err := decodePage(cr, o.maxItems(), func(_ int, it ItemMeta) {
		if check.keep(it) {
			if each != nil {
				each(kept, it)
			}
			kept++
		}
	})
	if err != nil {
		err = apiclient.AttachRequest(apiclient.AnsweredBy(apiclient.KindList, q, err), body, t.CollectionPath(), q)
		if cr.Ended && (errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || cr.N == 0) {
			// The answer ended where HTTP says it ends (a 204, an
			// empty 200, a body the server ended mid-value or between
			// two tokens): it came whole, and is not a list; nothing
			// broke.
			return nil, &apiclient.UnreadableAnswerError{What: fmt.Sprintf("the list response of %s ended after %s, before a list page did", t.CollectionPath(), text.Count(cr.N, "byte"))}
		}
		switch f := diagnose.ClassifyFailure(err); f {
		case diagnose.FailureUnbounded:
			return nil, err // the bound's own line names the request and the fix
		case diagnose.FailureConnectionBroken, diagnose.FailureNoAnswer:
			// Not a bad body: the connection was lost in the middle of it.
			if apiclient.IsBodyCut(err) {
				// The transport's one wording of a cut body names the
				// request and the bytes read, never Go's words
				// (adversary try 39 F9, try 49 F5).
				return nil, err
			}
			return nil, fmt.Errorf("the list response of %s broke off after %s: %w", t.CollectionPath(), text.Count(cr.N, "byte"), err)
		}
		return nil, decodeError(t, err)
	}
	return &Page{
		ResourceVersion:    head.ResourceVersion,
		Continue:           head.Continue,
		RemainingItemCount: head.RemainingItemCount,
		Count:              n,
		Excluded:           check.excluded,
		ExcludedFirst:      check.excludedFirst,
		ExcludedBroke:      check.excludedBroke,
		MaxItemRV:          check.maxRVText,
		UnreadItemRV:       check.unread,
		UnreadItemRVWhy:    check.unreadWhy,
		Bytes:              cr.N,
		Duration:           sw.Elapsed(),
		URL:                apiclient.URL(t.CollectionPath(), q),
	}, nil
}

// NewestItemRV is the highest decimal RV among the page's items (0 when
// none): the last modification the page shows, not the collection's.
func (p *Page) NewestItemRV() uint64 {
	var n uint64
	for _, it := range p.Items {
		if v, ok := apiclient.ParseRV(it.ResourceVersion); ok && v > n {
			n = v
		}
	}
	return n
}

// CurrentOptions configure a current-RV read.
type CurrentOptions struct {
	// Budget (nil = unbounded) gives one token to each request sent.
	Budget *apiclient.Budget
	// Retry is how a transient failure (sendAgain: a 5xx, a 429, a broken
	// connection; not an answer that never began in its bound) is waited out, the server's
	// Retry-After honoured and capped, as a walk's pages are (fresh user
	// try 26 F2: a 503 was retried on a continue page, never here); any
	// other answer (a 410, a 504 TooLarge, a 403) is the answer.
	Retry apiclient.Retry
}

// CurrentRV is the plugin's one read of a collection's current RV: a
// consistent list of one item, metadata only (about a kilobyte whatever the
// collection size), within the budget, a transient failure waited out by
// o.Retry. The
// page comes back too: its item tells the RV of one object.
//
// A failure after retries carries them (apiclient.RetriedError): the
// read's own, timed on its own stopwatch, so that a warning about it says
// them (render.RetriesSaid).
func CurrentRV(ctx context.Context, c *apiclient.Client, t apiclient.Target, o CurrentOptions) (string, *Page, error) {
	ctx, sw := apiclient.StartStopwatch(ctx)
	rv, p, err := currentRV(ctx, c, t, o)
	return rv, p, apiclient.WithRetriesOf(err, sw)
}

func currentRV(ctx context.Context, c *apiclient.Client, t apiclient.Target, o CurrentOptions) (string, *Page, error) {
	for failed := 1; ; failed++ {
		p, err := List(ctx, c, t, PageOptions{Limit: 1, Budget: o.Budget})
		if err == nil {
			return p.ResourceVersion, p, nil
		}
		if !sendAgain(err, false) || !o.Retry.More(failed) || o.Budget.Remaining() == 0 {
			return "", nil, err
		}
		if o.Retry.Wait(ctx, o.Retry.Delay(failed, err)) != nil {
			// A wait cut by the run's end ends with the last answer, as
			// a walk's does (fresh user try 27 F1: a 429 cut by --timeout
			// was "no answer ... check that the cluster is up", exit 4).
			return "", nil, err
		}
	}
}

// decodeError is a page that did not decode: an answer that came and is
// not a list (a Status sent as one keeps its own class: a 410 is Expired).
func decodeError(t apiclient.Target, err error) error {
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		return err
	}
	return &apiclient.UnreadableAnswerError{What: "cannot decode the list response of " + t.CollectionPath(), Err: err}
}
