package framework

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// RewritingFront is an HTTPS reverse proxy on loopback in front of a real
// API server that rewrites the top-level metadata.resourceVersion of every
// list answer (a GET without watch=1 whose body is a *List) to RV: what no
// real server does (an RV that is not a decimal number), for the tests of
// what the plugin makes of it. Everything else passes through unchanged.
type RewritingFront struct {
	URL, CAFile string
	// Kubeconfig is an admin kubeconfig for the front.
	Kubeconfig string
}

// StartRewritingFront starts the front for API server a of cluster c; it
// stops with the test.
func StartRewritingFront(t testing.TB, c *Cluster, a *APIServer, rv string) *RewritingFront {
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
	director := proxy.Director
	proxy.Director = func(req *http.Request) {
		director(req)
		req.Host = api.Host
		req.Header.Del("Accept-Encoding") // a plain body to rewrite
	}
	proxy.ModifyResponse = func(resp *http.Response) error {
		if resp.Request.Method != http.MethodGet || resp.Request.URL.Query().Get("watch") != "" || resp.StatusCode != http.StatusOK {
			return nil
		}
		body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
		resp.Body.Close()
		if err != nil {
			return err
		}
		body = rewriteListRV(body, rv)
		resp.Body = io.NopCloser(bytes.NewReader(body))
		resp.ContentLength = int64(len(body))
		resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
		return nil
	}
	srv := httptest.NewUnstartedServer(proxy)
	srv.StartTLS()
	t.Cleanup(srv.Close)
	f := &RewritingFront{URL: srv.URL, CAFile: filepath.Join(t.TempDir(), "front-ca.crt")}
	if err := os.WriteFile(f.CAFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	name := "front-" + strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()) + ".kubeconfig"
	if f.Kubeconfig, err = c.WriteKubeconfigFor(name, f.URL, f.CAFile, AdminToken); err != nil {
		t.Fatal(err)
	}
	return f
}

// rewriteListRV sets metadata.resourceVersion of a list body to rv; any
// other body comes back as it was.
func rewriteListRV(body []byte, rv string) []byte {
	var top map[string]json.RawMessage
	if json.Unmarshal(body, &top) != nil || top["items"] == nil {
		return body
	}
	var meta map[string]any
	if json.Unmarshal(top["metadata"], &meta) != nil {
		return body
	}
	meta["resourceVersion"] = rv
	m, _ := json.Marshal(meta)
	top["metadata"] = m
	out, err := json.Marshal(top)
	if err != nil {
		return body
	}
	return out
}
