//go:build e2e

package security

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// recorder is a plain-http server on another loopback address (127.0.0.2)
// that keeps every request it gets: where a followed redirect would land.
type recorder struct {
	URL  string
	mu   sync.Mutex
	reqs []recorded
}

type recorded struct {
	Path, Authorization string
}

func newRecorder(t *testing.T) *recorder {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Fatalf("listening on 127.0.0.2 (loopback): %v", err)
	}
	r := &recorder{URL: "http://" + l.Addr().String()}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.reqs = append(r.reqs, recorded{Path: req.URL.RequestURI(), Authorization: req.Header.Get("Authorization")})
		r.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{}`))
	})}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { srv.Close() })
	return r
}

func (r *recorder) requests() []recorded {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]recorded(nil), r.reqs...)
}

// front is an HTTPS reverse proxy on loopback in front of the real API
// server that answers 302 to the recorder for the paths that start with
// one of redirect, and passes every other request through unchanged.
type front struct {
	URL    string
	CAFile string
	mu     sync.Mutex
	prefix []string
	target string // the recorder's URL
}

func newFront(t *testing.T, a *framework.APIServer, target string) *front {
	t.Helper()
	api, err := url.Parse(a.URL)
	if err != nil {
		t.Fatal(err)
	}
	caPEM, err := os.ReadFile(a.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	proxy := httputil.NewSingleHostReverseProxy(api)
	proxy.FlushInterval = -1
	proxy.Transport = &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}
	f := &front{target: target}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if f.redirects(req.URL.Path) {
			// The Location carries a query value, as a login redirect
			// would: it must be printed redacted.
			http.Redirect(w, req, f.target+req.URL.Path+"?token=LEAKED-QUERY", http.StatusFound)
			return
		}
		req.Host = api.Host
		proxy.ServeHTTP(w, req)
	}))
	srv.StartTLS()
	t.Cleanup(srv.Close)
	f.URL = srv.URL
	f.CAFile = filepath.Join(t.TempDir(), "front-ca.crt")
	if err := os.WriteFile(f.CAFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}

// redirectPaths sets which paths the front answers with a redirect.
func (f *front) redirectPaths(prefixes ...string) {
	f.mu.Lock()
	f.prefix = prefixes
	f.mu.Unlock()
}

func (f *front) redirects(p string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, pre := range f.prefix {
		if strings.HasPrefix(p, pre) {
			return true
		}
	}
	return false
}
