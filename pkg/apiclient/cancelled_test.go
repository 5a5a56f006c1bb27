package apiclient

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// Adversary try 16 (A7): a request the plugin's run cancelled itself (the
// list failed, and the run stopped its /version) was shown as "failed
// after 2ms: no answer", blaming a server that had answered at once. A
// request whose context the plugin cancelled (context.Canceled, not its
// deadline) is Cancelled, and its words say so, whichever way it ended:
// net/http returned the cancel, or the run ended (Settle) before net/http
// returned; before it was sent, before its answer, or during its body. A
// deadline is no cancel: it stays a timeout.
func TestARequestThePluginCancelledSaysSo(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/body" {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"kind":"List","items":[`)
			w.(http.Flusher).Flush()
		}
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)

	type run struct {
		l     *Ledger
		mu    sync.Mutex
		lines []Entry
	}
	newRun := func() *run {
		r := &run{l: NewLedger()}
		r.l.Observe(func(e Entry) {
			if !e.Open {
				r.mu.Lock()
				r.lines = append(r.lines, e)
				r.mu.Unlock()
			}
		})
		return r
	}
	one := func(t *testing.T, r *run) Entry {
		t.Helper()
		r.mu.Lock()
		defer r.mu.Unlock()
		if len(r.lines) != 1 {
			t.Fatalf("%d lines, want 1: %+v", len(r.lines), r.lines)
		}
		return r.lines[0]
	}
	check := func(t *testing.T, e Entry, words string) {
		t.Helper()
		if !e.Cancelled || e.CancelledWords() != words {
			t.Fatalf("entry %+v: Cancelled %v, words %q, want %q", e, e.Cancelled, e.CancelledWords(), words)
		}
		if strings.Contains(e.CancelledWords(), "no answer") {
			t.Fatalf("a cancelled request says %q", e.CancelledWords())
		}
	}

	t.Run("net/http returned the cancel", func(t *testing.T) {
		r := newRun()
		c, err := NewClient(Wrap(&rest.Config{Host: srv.URL}, r.l))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		if _, err := c.ServerVersion(ctx); err == nil {
			t.Fatal("a hung /version answered")
		}
		e := one(t, r)
		check(t, e, "cancelled by the plugin (the run stopped) before its answer came")
		if e.Sent.Times != 1 {
			t.Errorf("sent %d times, want 1", e.Sent.Times)
		}
	})

	t.Run("the run ended before net/http returned", func(t *testing.T) {
		r := newRun()
		// A transport that does not return at the cancel, as net/http
		// may not have yet when the run settles its account; it never
		// got a connection: the request was not sent.
		unblock := make(chan struct{})
		cfg := &rest.Config{Host: srv.URL, Transport: roundTripFunc(func(req *http.Request) (*http.Response, error) {
			<-unblock
			return nil, req.Context().Err()
		})}
		c, err := NewClient(Wrap(cfg, r.l))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, _ = c.ServerVersion(ctx)
		}()
		for r.l.Cost().Requests == 0 {
			time.Sleep(time.Millisecond)
		}
		cancel()
		r.l.Settle()
		close(unblock)
		<-done
		e := one(t, r)
		if !e.Unfinished {
			t.Fatalf("entry %+v, want unfinished", e)
		}
		check(t, e, "cancelled by the plugin (the run stopped) before it was sent")
	})

	t.Run("its body", func(t *testing.T) {
		r := newRun()
		c, err := NewClient(Wrap(&rest.Config{Host: srv.URL}, r.l))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		body, err := c.Get(ctx, "/body", nil, AcceptMetadataList)
		if err != nil {
			t.Fatal(err)
		}
		time.AfterFunc(50*time.Millisecond, cancel)
		_, err = io.Copy(io.Discard, body)
		body.Close()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the body's read ended with %v, want the cancel", err)
		}
		check(t, one(t, r), "cancelled by the plugin (the run stopped) before its body ended")
	})

	t.Run("a deadline is no cancel", func(t *testing.T) {
		r := newRun()
		c, err := NewClient(Wrap(&rest.Config{Host: srv.URL}, r.l))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		if _, err := c.ServerVersion(ctx); err == nil {
			t.Fatal("a hung /version answered")
		}
		if e := one(t, r); e.Cancelled || e.CancelledWords() != "" || e.Err == nil {
			t.Fatalf("a request its deadline ended: %+v, words %q", e, e.CancelledWords())
		}
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
