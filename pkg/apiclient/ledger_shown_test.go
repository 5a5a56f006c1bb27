package apiclient

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/discovery/cached/disk"
	"k8s.io/client-go/rest"
)

// shownLedger is a ledger with its observer: the -v lines it would show.
type shownLedger struct {
	*Ledger
	mu    sync.Mutex
	lines []Entry // completed requests (not a watch's opening line)
}

func newShownLedger() *shownLedger {
	s := &shownLedger{Ledger: NewLedger()}
	s.Observe(func(e Entry) {
		if e.Open {
			return
		}
		s.mu.Lock()
		s.lines = append(s.lines, e)
		s.mu.Unlock()
	})
	return s
}

func (s *shownLedger) shown() []Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Entry(nil), s.lines...)
}

// Issue 25, as a class: every request counted is shown, one for one. The
// case that broke it: cli-runtime's discovery cache revalidates /api and
// /apis (If-None-Match) when its discovery files are gone and its HTTP
// cache is not; the server answers 304 over HTTP/2, whose empty body is
// not http.NoBody, and the cache answers from its copy, never reading or
// closing the 304's body. The request was counted and never shown.
func TestEveryRequestCountedIsShownA304Included(t *testing.T) {
	const etag = `"v1"`
	bodies := map[string]string{
		"/api":    `{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":"127.0.0.1:6443"}]}`,
		"/apis":   `{"kind":"APIGroupList","apiVersion":"v1","groups":[]}`,
		"/api/v1": `{"kind":"APIResourceList","groupVersion":"v1","resources":[{"name":"configmaps","singularName":"configmap","namespaced":true,"kind":"ConfigMap","verbs":["get","list","watch"]}]}`,
	}
	var mu sync.Mutex
	var notModified int
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := bodies[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("ETag", etag)
		w.Header().Set("Cache-Control", "public")
		if r.Header.Get("If-None-Match") == etag {
			mu.Lock()
			notModified++
			mu.Unlock()
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, body)
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()

	cache := t.TempDir()
	discoveryDir, httpDir := filepath.Join(cache, "discovery"), filepath.Join(cache, "http")
	discover := func(l *shownLedger) {
		t.Helper()
		cfg := Wrap(&rest.Config{Host: srv.URL, TLSClientConfig: rest.TLSClientConfig{Insecure: true}}, l.Ledger)
		dc, err := disk.NewCachedDiscoveryClientForConfig(cfg, discoveryDir, httpDir, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := dc.ServerGroups(); err != nil {
			t.Fatal(err)
		}
	}
	discover(newShownLedger()) // fills both caches

	if err := os.RemoveAll(discoveryDir); err != nil {
		t.Fatal(err)
	}
	l := newShownLedger()
	discover(l)
	if notModified == 0 {
		t.Fatal("the server answered no 304: the case is not reached")
	}
	// Shown as soon as answered: a 304 has no body by HTTP's rules.
	cost, shown := l.Cost(), l.shown()
	if cost.Requests != len(shown) {
		t.Fatalf("counted %d requests, shown %d: %+v", cost.Requests, len(shown), shown)
	}
	for _, e := range shown {
		if e.Status != http.StatusNotModified || e.Unfinished || !strings.HasPrefix(e.URL, srv.URL+"/api") {
			t.Errorf("entry %+v, want a completed 304 of discovery", e)
		}
	}
}

// A body nobody reads to its end or closes (a caller dropped it), and a
// watch still open: Settle shows both, marked, so that after it the lines
// shown are the requests counted, whatever the callers did.
func TestSettleShowsWhatTheRunLeftOpen(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"kind":"APIVersions","versions":["v1"]}`)
		if r.URL.Query().Get("watch") != "" {
			w.(http.Flusher).Flush()
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}
	}))
	defer srv.Close()
	defer close(release)
	l := newShownLedger()
	hc, err := rest.HTTPClientFor(Wrap(&rest.Config{Host: srv.URL}, l.Ledger))
	if err != nil {
		t.Fatal(err)
	}
	dropped, err := hc.Get(srv.URL + "/api")
	if err != nil {
		t.Fatal(err)
	}
	defer dropped.Body.Close()
	watch, err := hc.Get(srv.URL + "/api/v1/configmaps?watch=1")
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Body.Close()
	if n := len(l.shown()); n != 0 {
		t.Fatalf("%d lines before the run ended", n)
	}
	l.Settle()
	l.Settle() // once each
	shown := l.shown()
	if c := l.Cost(); c.Requests != 2 || len(shown) != 2 {
		t.Fatalf("counted %d, shown %d after Settle: %+v", c.Requests, len(shown), shown)
	}
	for _, e := range shown {
		if !e.Unfinished || e.Status != http.StatusOK {
			t.Errorf("entry %+v, want an unfinished 200", e)
		}
	}
	if f := l.Failures(KindDiscovery); len(f) != 0 {
		t.Errorf("an unfinished request is not a failure: %+v", f)
	}
}
