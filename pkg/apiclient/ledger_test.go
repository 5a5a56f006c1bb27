package apiclient

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"k8s.io/client-go/rest"
)

// The ledger counts every request sent through a wrapped config, through
// the plugin's client and through a plain client of the config (as
// cli-runtime's discovery builds one), with the bytes read as they are
// read: a watch's before it ends.
func TestLedgerCountsEveryRequestAndByte(t *testing.T) {
	const listBody = `{"kind":"PartialObjectMetadataList","metadata":{"resourceVersion":"7"},"items":[]}`
	const apiBody = `{"kind":"APIVersions","versions":["v1"]}`
	event := `{"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"5"}}}` + "\n"
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Query().Get("watch") != "":
			_, _ = io.WriteString(w, event)
			w.(http.Flusher).Flush()
			select {
			case <-release:
			case <-r.Context().Done():
			}
		case r.URL.Path == "/api":
			_, _ = io.WriteString(w, apiBody)
		case r.URL.Path == "/apis/metrics.k8s.io/v1beta1":
			http.Error(w, "the server is currently unable to handle the request", http.StatusServiceUnavailable)
		default:
			_, _ = io.WriteString(w, listBody)
		}
	}))
	defer srv.Close()
	defer close(release)

	l := NewLedger()
	var mu sync.Mutex
	var seen []Entry
	l.Observe(func(e Entry) { mu.Lock(); seen = append(seen, e); mu.Unlock() })
	cfg := Wrap(&rest.Config{Host: srv.URL}, l)
	c, err := NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	body, err := c.Get(ctx, "/api/v1/namespaces/demo/configmaps", url.Values{"limit": {"500"}}, AcceptMetadataList)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(io.Discard, body); err != nil {
		t.Fatal(err)
	}
	body.Close()

	watch, err := c.Get(ctx, "/api/v1/namespaces/demo/configmaps", url.Values{"watch": {"1"}}, AcceptMetadata)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, len(event))
	if _, err := io.ReadFull(watch, buf); err != nil {
		t.Fatal(err)
	}
	// Counted as they stream: the watch is still open.
	if got := l.Cost().ByKind[KindWatch]; got.Requests != 1 || got.Bytes != int64(len(event)) {
		t.Fatalf("the open watch counts %+v, want 1 request of %d bytes", got, len(event))
	}

	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/api", "/apis/metrics.k8s.io/v1beta1"} {
		resp, err := hc.Get(srv.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	watch.Close()

	// A request that gets no answer is a request sent all the same.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	refused, err := NewClient(Wrap(&rest.Config{Host: "http://" + closed}, l))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := refused.ServerVersion(ctx); err == nil {
		t.Fatal("a closed port answered")
	}

	cost := l.Cost()
	errBody := "the server is currently unable to handle the request\n"
	wantBytes := int64(len(listBody) + len(event) + len(apiBody) + len(errBody))
	if cost.Requests != 5 || cost.Bytes != wantBytes {
		t.Fatalf("cost %+v, want 5 requests and %d bytes", cost, wantBytes)
	}
	for k, want := range map[BodyKind]KindCost{
		KindList:      {Requests: 1, Bytes: int64(len(listBody))},
		KindWatch:     {Requests: 1, Bytes: int64(len(event))},
		KindDiscovery: {Requests: 2, Bytes: int64(len(apiBody) + len(errBody))},
		KindVersion:   {Requests: 1},
	} {
		if cost.ByKind[k] != want {
			t.Errorf("byKind[%s] = %+v, want %+v", k, cost.ByKind[k], want)
		}
	}
	failed := l.Failures(KindDiscovery)
	if len(failed) != 1 || failed[0].Status != http.StatusServiceUnavailable {
		t.Errorf("discovery failures %+v, want the 503", failed)
	}
	if f := l.Failures(KindVersion); len(f) != 1 || f[0].Status != 0 || f[0].Err == nil {
		t.Errorf("the refused /version is not a failure with its error: %+v", f)
	}

	mu.Lock()
	defer mu.Unlock()
	var lines []string
	for _, e := range seen {
		lines = append(lines, e.Method+" "+e.URL)
		if strings.Contains(e.URL, "secret") {
			t.Errorf("an entry shows a secret: %s", e.URL)
		}
	}
	if len(seen) != 6 || !seen[1].Open || seen[1].Kind != KindWatch {
		t.Fatalf("observed %d entries (%s), want 6 with the watch's opening second", len(seen), strings.Join(lines, "; "))
	}
	if !strings.HasPrefix(seen[0].URL, srv.URL+"/api/v1/namespaces/demo/configmaps?limit=500") || seen[0].Status != 200 || seen[0].Bytes != int64(len(listBody)) || seen[0].Duration <= 0 {
		t.Errorf("the list's entry: %+v", seen[0])
	}
}

// A URL is printed with a password in it redacted and the query kept:
// the query holds only what the plugin asked.
func TestRequestURLRedactsThePasswordOnly(t *testing.T) {
	u, _ := url.Parse("https://admin:s3cret@127.0.0.1:6443/api/v1/configmaps?limit=500&continue=abc")
	got := RequestURL(u)
	if strings.Contains(got, "s3cret") || !strings.Contains(got, "limit=500&continue=abc") || !strings.Contains(got, "127.0.0.1:6443/api/v1/configmaps") {
		t.Fatalf("RequestURL = %s", got)
	}
}

// The nil ledger counts nothing and never fails.
func TestNilLedger(t *testing.T) {
	var l *Ledger
	en := l.begin(context.Background(), "GET", "/", KindList)
	en.answered(200)
	en.add(10)
	en.finish(nil)
	l.Observe(func(Entry) {})
	if c := l.Cost(); c.Requests != 0 || l.Failures(KindList) != nil {
		t.Fatalf("nil ledger: %+v", c)
	}
}
