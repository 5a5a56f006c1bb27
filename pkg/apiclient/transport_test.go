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
