package listing

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/internal/clocktest"
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
)

// servePages serves the List pages recorded from the real v1.37.2 server
// (test/e2e/list TestRecordListPages) in continue-token order, and records
// the queries the client sent.
func servePages(t *testing.T) (*apiclient.Client, *[]string) {
	t.Helper()
	var pages [][]byte
	for _, name := range []string{"page1.json", "page2.json", "page3.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, b)
	}
	var queries []string
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		queries = append(queries, r.URL.RawQuery)
		if r.Header.Get("Accept") != apiclient.AcceptMetadataList {
			t.Errorf("Accept = %q, want metadata only", r.Header.Get("Accept"))
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(atMostLimit(t, pages[n%len(pages)], r.URL.Query().Get("limit")))
		n++
	}))
	t.Cleanup(srv.Close)
	c, err := apiclient.NewClient(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	return c, &queries
}

func cmTarget() apiclient.Target {
	return apiclient.Target{Resource: apiclient.Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Namespaced: true}, Namespace: "recorded"}
}

func TestWalkRecordedPages(t *testing.T) {
	c, queries := servePages(t)
	seen := 0
	res, err := Walk(context.Background(), c, cmTarget(), WalkOptions{PageOptions: PageOptions{Limit: 2}}, func(ItemMeta) { seen++ })
	if err != nil {
		t.Fatal(err)
	}
	a := res.Final()
	if a.ItemCount != 5 || seen != 5 || len(a.Pages) != 3 {
		t.Fatalf("want 5 items in 3 pages, got %d (%d seen) in %d", a.ItemCount, seen, len(a.Pages))
	}
	for _, p := range a.Pages {
		if p.ResourceVersion != "215" {
			t.Fatalf("recorded pages all carry RV 215, got %s", p.ResourceVersion)
		}
	}
	if a.Pages[0].RemainingItemCount == nil || *a.Pages[0].RemainingItemCount != 3 {
		t.Fatalf("remainingItemCount of page 1 should be 3")
	}
	if a.MaxItemResourceVersion != "215" {
		t.Fatalf("newest item RV: want 215, got %s", a.MaxItemResourceVersion)
	}
	if !res.Whole() || a.UnreadFromPage != 0 || res.Requests() != (PageRequests{First: 1, Continues: 2}) {
		t.Fatalf("a walk read to its last page is whole, of 3 requests: whole %v, unread from %d, %+v", res.Whole(), a.UnreadFromPage, res.Requests())
	}
	// Page 1 carries the limit only; later pages the continue token and no RV.
	if (*queries)[0] != "limit=2" {
		t.Fatalf("first query: %q", (*queries)[0])
	}
	for _, q := range (*queries)[1:] {
		if !contains(q, "continue=") || contains(q, "resourceVersion") {
			t.Fatalf("continuation query must carry continue and no resourceVersion: %q", q)
		}
	}
}

func TestWalkMaxPagesIsTheRVOnlyRead(t *testing.T) {
	c, queries := servePages(t)
	res, err := Walk(context.Background(), c, cmTarget(), WalkOptions{PageOptions: PageOptions{Limit: 1}, MaxPages: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(*queries) != 1 || len(res.Final().Pages) != 1 {
		t.Fatalf("--rv-only must make exactly one request, made %d", len(*queries))
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// A page whose connection breaks in the middle of the recorded body (the
// API server restarting) is asked again after the policy's backoff, timed by the injected clock: the
// walk ends with every recorded page and one retry, and waited 250 ms of the
// clock, none of the wall clock's.
func TestWalkRetriesABrokenPageOnTheInjectedClock(t *testing.T) {
	var pages [][]byte
	for _, name := range []string{"page1.json", "page2.json", "page3.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, b)
	}
	requests, served := 0, 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests++
		if requests == 2 {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", strconv.Itoa(len(pages[1])))
			_, _ = w.Write(pages[1][:len(pages[1])/2])
			w.(http.Flusher).Flush()
			if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
				conn.Close()
			}
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(pages[served])
		served++
	}))
	t.Cleanup(srv.Close)
	c, err := apiclient.NewClient(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	clk := clocktest.NewInstant()
	res, err := Walk(context.Background(), c, cmTarget(), WalkOptions{PageOptions: PageOptions{Limit: 2}, Retry: apiclient.Retry{Clock: clk}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	a := res.Final()
	if a.ItemCount != 5 || a.Retries != 1 || len(res.Attempts) != 1 {
		t.Fatalf("want 5 items, one retry, one attempt; got %d items, %d retries, %d attempts", a.ItemCount, a.Retries, len(res.Attempts))
	}
	if w := clk.Waits(); len(w) != 1 || w[0] != 250*time.Millisecond {
		t.Fatalf("want one 250ms wait on the clock, got %v", w)
	}
	// The broken request was sent and read by the server, or not: its
	// read is not known.
	if !res.Whole() || res.Requests() != (PageRequests{First: 1, Continues: 2, Unknown: 1}) {
		t.Fatalf("whole %v, %+v: want whole, 3 pages and one request of unknown read", res.Whole(), res.Requests())
	}
}

// The one current-RV read: one consistent list of one item, its token taken
// by the read itself; a spent budget sends nothing.
func TestCurrentRVTakesItsTokenAndSendsOneRequest(t *testing.T) {
	c, queries := servePages(t)
	b := apiclient.NewBudget(1, 0)
	rv, page, err := CurrentRV(context.Background(), c, cmTarget(), CurrentOptions{Budget: b})
	if err != nil || rv != "215" || page == nil || b.Used() != 1 || len(*queries) != 1 || (*queries)[0] != "limit=1" {
		t.Fatalf("want RV 215 from one limit=1 list and one token, got %q %v, %d tokens, queries %v", rv, err, b.Used(), *queries)
	}
	if _, _, err := CurrentRV(context.Background(), c, cmTarget(), CurrentOptions{Budget: b}); !errors.Is(err, apiclient.ErrBudgetExhausted) || len(*queries) != 1 {
		t.Fatalf("a spent budget must send nothing: %v, %d requests", err, len(*queries))
	}
}

// A server that answers every page with the same continue token (here the
// recorded page 2, again and again) would be followed for ever; the walk
// ends at the first repeat, with the class and words of an answer that
// broke a bound.
func TestWalkEndsAtARepeatedContinueToken(t *testing.T) {
	page2, err := os.ReadFile(filepath.Join("testdata", "page2.json"))
	if err != nil {
		t.Fatal(err)
	}
	requests := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests++
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(page2)
	}))
	defer srv.Close()
	c, err := apiclient.NewClient(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := Walk(ctx, c, cmTarget(), WalkOptions{PageOptions: PageOptions{Limit: 2}}, nil)
	var endless *EndlessListError
	if !errors.As(err, &endless) || endless.Page != 2 || endless.SameAs != 1 {
		t.Fatalf("Walk = %v after %d requests, want an EndlessListError at page 2 (the token of page 1)", err, requests)
	}
	if requests != 2 || len(res.Final().Pages) != 2 || res.Final().Error == "" {
		t.Fatalf("%d requests, %d pages kept, error %q", requests, len(res.Final().Pages), res.Final().Error)
	}
	// Page 3 was never asked for: the walk read a part of the list.
	if res.Whole() || res.Final().UnreadFromPage != 3 || res.Requests() != (PageRequests{First: 1, Continues: 1}) {
		t.Fatalf("whole %v, unread from page %d, %+v: want a part, page 3 unread, 2 requests", res.Whole(), res.Final().UnreadFromPage, res.Requests())
	}
	if !diagnose.IsUnbounded(err) || diagnose.ClassifyFailure(err) != diagnose.FailureUnbounded {
		t.Fatalf("the error is not of class Unbounded: %v", err)
	}
}

// Pages that bring no item and a new token each, or more pages than any
// collection has, end the walk too.
func TestEndCheck(t *testing.T) {
	e := newEndCheck("/api/v1/configmaps")
	for i := 1; i < maxEmptyPages; i++ {
		if err := e.next(i, 0, 0, "t"+strconv.Itoa(i)); err != nil {
			t.Fatalf("page %d: %v", i, err)
		}
	}
	var endless *EndlessListError
	if err := e.next(maxEmptyPages, 0, 0, "last"); !errors.As(err, &endless) || endless.Empty != maxEmptyPages {
		t.Fatalf("%d empty pages: %v", maxEmptyPages, err)
	}
	e = newEndCheck("/api/v1/configmaps")
	if err := e.next(MaxWalkPages-1, 1, 1, "a"); err != nil {
		t.Fatal(err)
	}
	if err := e.next(MaxWalkPages, 1, 2, "b"); !errors.As(err, &endless) || !endless.TooManyPages() || !strings.Contains(err.Error(), "the most one walk reads") {
		t.Fatalf("page %d: %v", MaxWalkPages, err)
	}
}

// atMostLimit is a recorded page (of limit=2) as a server answers a smaller
// limit: its first items only (a real server never sends more items than
// the limit of a paged list, and the plugin refuses a page that does).
func atMostLimit(t *testing.T, page []byte, limit string) []byte {
	n, err := strconv.Atoi(limit)
	if err != nil || n <= 0 {
		return page
	}
	var doc map[string]json.RawMessage
	var items []json.RawMessage
	if json.Unmarshal(page, &doc) != nil || json.Unmarshal(doc["items"], &items) != nil || len(items) <= n {
		return page
	}
	doc["items"], _ = json.Marshal(items[:n])
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A walk cut while page 2 is in flight (the signal cancels the run) read
// a part of the list: never whole, whatever its pages say.
func TestACutWalkIsNotWhole(t *testing.T) {
	page1, err := os.ReadFile(filepath.Join("testdata", "page1.json"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("continue") != "" {
			cancel() // the signal, while page 2 is asked for
			<-r.Context().Done()
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(page1)
	}))
	defer srv.Close()
	c, err := apiclient.NewClient(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Walk(ctx, c, cmTarget(), WalkOptions{PageOptions: PageOptions{Limit: 2}}, nil)
	if err == nil || res.Whole() || len(res.Final().Pages) != 1 || res.Final().UnreadFromPage != 2 {
		t.Fatalf("err %v, whole %v, %d pages, unread from page %d: want a part of the list, page 2 unread", err, res.Whole(), len(res.Final().Pages), res.Final().UnreadFromPage)
	}
}
