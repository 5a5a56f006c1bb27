package apiclient

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"k8s.io/client-go/rest"
)

// Adversary try 16 (A2): a GET the server resets on a kept-alive HTTP/1
// connection is sent again by net/http itself, below the meter; the
// ledger, the cost and the -v line said once. Every send is counted: the
// entry's Sent, the cost (in all and of its kind), and the error's words
// say how many times it was sent and why, in HTTP/1's words (not
// HTTP/2's).
func TestEverySendOfARequestIsCounted(t *testing.T) {
	var resets atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/version" {
			_, _ = io.WriteString(w, `{"gitVersion":"v1.37.2"}`)
			return
		}
		resets.Add(1)
		c, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		_ = c.(*net.TCPConn).SetLinger(0)
		_ = c.Close()
	}))
	defer srv.Close()

	l := NewLedger()
	var mu sync.Mutex
	var seen []Entry
	l.Observe(func(e Entry) { mu.Lock(); seen = append(seen, e); mu.Unlock() })
	c, err := NewClient(Wrap(&rest.Config{Host: srv.URL}, l))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// Two kept-alive connections: both sent requests before.
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.ServerVersion(ctx); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	_, err = c.Get(ctx, "/api/v1/namespaces/demo/configmaps", nil, AcceptMetadataList)
	if err == nil {
		t.Fatal("a reset list answered")
	}
	sent := resets.Load()
	if sent < 2 {
		t.Fatalf("the reset GET reached the server %d times: net/http no longer sends it again on a kept-alive connection, and this test attacks nothing", sent)
	}
	cost := l.Cost()
	if got := cost.ByKind[KindList].Requests; int64(got) != sent {
		t.Errorf("cost.byKind.list.requests %d, the server got %d", got, sent)
	}
	if got := cost.Requests; int64(got) != sent+2 {
		t.Errorf("cost.requests %d, the server got %d", got, sent+2)
	}
	mu.Lock()
	defer mu.Unlock()
	var list *Entry
	for i := range seen {
		if seen[i].Kind == KindList {
			list = &seen[i]
		}
	}
	if list == nil || int64(list.Sent.Times) != sent || list.Sent.HTTP2 {
		t.Fatalf("the list's entry %+v, want Sent %d over HTTP/1", list, sent)
	}
	for _, words := range []string{"the server reset the connection before its answer came", "it was sent ", "net/http sends a GET again by itself, on another connection, when the kept-alive connection it went out on is closed or reset before any answer"} {
		if !strings.Contains(err.Error(), words) || !strings.Contains(list.Err.Error(), words) {
			t.Errorf("the error %q does not say %q", err, words)
		}
	}
	if strings.Contains(err.Error(), "HTTP/2") {
		t.Errorf("an HTTP/1 resend in HTTP/2's words: %v", err)
	}
}

// The words of a request sent again, per protocol, and none for once.
func TestSentAgainWords(t *testing.T) {
	for _, c := range []struct {
		s    Sent
		want string
	}{
		{Sent{}, ""},
		{Sent{Times: 1}, ""},
		{Sent{Times: 1, HTTP2: true}, ""},
		{Sent{Times: 2}, "it was sent 2 times: net/http sends a GET again by itself, on another connection, when the kept-alive connection it went out on is closed or reset before any answer, and 1 was"},
		{Sent{Times: 4}, "it was sent 4 times: net/http sends a GET again by itself, on another connection, when the kept-alive connection it went out on is closed or reset before any answer, and 3 were"},
		{Sent{Times: 7, HTTP2: true}, "it was sent 7 times: the server refused its HTTP/2 stream each time, with REFUSED_STREAM or a GOAWAY before taking it, and net/http sent it again by itself"},
	} {
		if got := c.s.Again(); got != c.want {
			t.Errorf("%+v.Again() = %q, want %q", c.s, got, c.want)
		}
	}
}
