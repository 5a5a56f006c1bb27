package apiclient

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"k8s.io/client-go/rest"
)

// The plugin's HTTP client follows no redirect, whether or not the config
// went through Wrap (CheckRedirect) and whichever client is built from a
// wrapped config (the round tripper): the bearer token never reaches the
// Location's host. The servers here stand for a misconfigured front, not
// for an API server: what is tested is the client.
func TestRedirectsAreRefusedWithTheTokenKept(t *testing.T) {
	var leaked atomic.Int32
	l, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Fatal(err)
	}
	elsewhere := &httptest.Server{Listener: l, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		leaked.Add(1)
	})}}
	elsewhere.Start()
	defer elsewhere.Close()
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+r.URL.Path+"?token=q", http.StatusTemporaryRedirect)
	}))
	defer redirector.Close()

	for name, cfg := range map[string]*rest.Config{
		"CheckRedirect": {Host: redirector.URL, BearerToken: "secret-token"},
		"Wrap":          Wrap(&rest.Config{Host: redirector.URL, BearerToken: "secret-token"}, nil),
	} {
		t.Run(name, func(t *testing.T) {
			c, err := NewClient(cfg)
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Get(context.Background(), "/api/v1/configmaps", url.Values{}, AcceptMetadataList)
			var re *RedirectError
			if !errors.As(err, &re) {
				t.Fatalf("Get = %v, want a RedirectError", err)
			}
			if msg := err.Error(); !strings.Contains(msg, "307 Temporary Redirect") || !strings.Contains(msg, "127.0.0.2") || !strings.Contains(msg, "token=xxxxx") {
				t.Fatalf("the error does not name the redirect redacted: %s", msg)
			}
		})
	}
	// A plain http.Client built from a wrapped config, as cli-runtime's
	// discovery builds one, refuses too.
	hc, err := rest.HTTPClientFor(Wrap(&rest.Config{Host: redirector.URL, BearerToken: "secret-token"}, nil))
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := hc.Get(redirector.URL + "/api"); err == nil {
		resp.Body.Close()
		t.Fatal("a client built from a wrapped config followed the redirect")
	}
	if n := leaked.Load(); n != 0 {
		t.Fatalf("%d request(s) reached the redirect's target", n)
	}
}

// An answer whose headers pass net/http's 10 MiB is one class over both
// protocols (adversary tries 12 and 13): over HTTP/1 and over HTTP/2 with
// TLS (as client-go dials an API server), the error names the request,
// and never is net/http's or the HTTP/2 framer's raw text alone. The
// servers stand for a hostile front, not for an API server.
func TestHeadersPastTheLimitAreNamedOverBothProtocols(t *testing.T) {
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("hints") != "" {
			w.Header().Set("Link", "</"+strings.Repeat("h", 64<<10)+">; rel=preload")
			for i := 0; i < 400; i++ {
				w.WriteHeader(http.StatusEarlyHints)
			}
			return
		}
		w.Header().Set("X-Boom", strings.Repeat("b", 11<<20))
		w.WriteHeader(200)
	})
	h1 := httptest.NewServer(handler)
	defer h1.Close()
	h2 := httptest.NewUnstartedServer(handler)
	h2.EnableHTTP2 = true
	h2.StartTLS()
	defer h2.Close()
	for name, cfg := range map[string]*rest.Config{
		"http1": {Host: h1.URL},
		"http2": {Host: h2.URL, TLSClientConfig: rest.TLSClientConfig{Insecure: true}},
	} {
		for _, hints := range []string{"", "1"} {
			t.Run(name+" hints="+hints, func(t *testing.T) {
				c, err := NewClient(cfg)
				if err != nil {
					t.Fatal(err)
				}
				q := url.Values{}
				if hints != "" {
					q.Set("hints", hints)
				}
				_, err = c.Get(context.Background(), "/api/v1/configmaps", q, AcceptMetadataList)
				var big *BodyTooLargeError
				var odd *UnreadableAnswerError
				switch {
				case errors.As(err, &big) && big.Headers:
				case errors.As(err, &odd) && strings.Contains(odd.What, "broke the protocol"):
				default:
					t.Fatalf("Get = %v, want the headers' bound or a named protocol error", err)
				}
				// Named once: by the plugin ("GET URL") or by net/http's
				// *url.Error ("Get \"URL\"").
				if !strings.Contains(strings.ToUpper(err.Error()), "GET ") || !strings.Contains(err.Error(), "/api/v1/configmaps") || strings.Count(err.Error(), "/api/v1/configmaps") != 1 {
					t.Fatalf("the error does not name the request: %v", err)
				}
			})
		}
	}
}
