package framework

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// PathCutProxy is an HTTPS proxy on loopback (a certificate of its own CA
// in front, the API server's TLS behind) that cuts the connection in the
// middle of the
// first answer to each path it was given (its headers and part of its
// body sent, then the connection closed), and forwards everything else
// untouched. It tries what a TCP-level cut cannot aim at: one request of
// many, such as discovery's /api.
type PathCutProxy struct {
	srv *http.Server
	ln  net.Listener
	// CAFile is the CA of the proxy's serving certificate. (client-go sends
	// no bearer token to a plain http server, so the proxy speaks TLS.)
	CAFile string

	mu    sync.Mutex
	armed map[string]bool // path -> its next answer is cut
	cuts  []string
}

// StartPathCutProxy forwards to the API server a, cutting the first answer
// to each of paths; its certificate and CA are written into dir.
func StartPathCutProxy(a *APIServer, dir string, paths ...string) (*PathCutProxy, error) {
	target, err := url.Parse(a.URL)
	if err != nil {
		return nil, err
	}
	if !isLoopbackHostPort(target.Host) {
		return nil, fmt.Errorf("path cut proxy target %q is not a loopback address", target.Host)
	}
	pem, err := os.ReadFile(a.CAFile)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, errors.New("no CA certificate in " + a.CAFile)
	}
	serving, err := WriteServingCert(dir, []net.IP{net.ParseIP("127.0.0.1")}, nil)
	if err != nil {
		return nil, err
	}
	cert, err := tls.LoadX509KeyPair(serving.CertFile, serving.KeyFile)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &PathCutProxy{ln: ln, armed: map[string]bool{}, CAFile: serving.CAFile}
	for _, path := range paths {
		p.armed[path] = true
	}
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.Transport = &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}
	// Every write flushed: the headers and the first part of the body are
	// on the wire before the cut, so the client sees a body that broke,
	// not a connection closed before any answer (which it would retry).
	rp.FlushInterval = -1
	rp.ErrorLog = log.New(io.Discard, "", 0) // the cut is the point
	rp.ModifyResponse = func(resp *http.Response) error {
		if p.take(resp.Request.URL.Path) {
			resp.Body = &cutBody{r: resp.Body, left: 256}
		}
		return nil
	}
	// HTTP/1.1 only: the abort then closes the connection (a cut), where
	// HTTP/2 would reset one stream.
	p.srv = &http.Server{Handler: rp, ReadHeaderTimeout: 10 * time.Second,
		TLSConfig:    &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12, NextProtos: []string{"http/1.1"}},
		TLSNextProto: map[string]func(*http.Server, *tls.Conn, http.Handler){}}
	go func() { _ = p.srv.ServeTLS(ln, "", "") }()
	return p, nil
}

// take reports whether the answer to path is to be cut (once per path).
func (p *PathCutProxy) take(path string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.armed[path] {
		return false
	}
	p.armed[path] = false
	p.cuts = append(p.cuts, path)
	return true
}

// Cuts are the paths whose answer was cut, in order.
func (p *PathCutProxy) Cuts() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.cuts...)
}

// URL is the proxy's address.
func (p *PathCutProxy) URL() string { return "https://" + p.ln.Addr().String() }

// Kubeconfig writes a kubeconfig for the proxy into dir, with token.
func (p *PathCutProxy) Kubeconfig(dir, token string) (string, error) {
	path := filepath.Join(dir, "pathcut.kubeconfig")
	cfg := fmt.Sprintf("apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: %s\n    certificate-authority: %s\ncontexts:\n- name: c\n  context:\n    cluster: c\n    user: u\n    namespace: default\ncurrent-context: c\nusers:\n- name: u\n  user:\n    token: %s\n", p.URL(), p.CAFile, token)
	return path, os.WriteFile(path, []byte(cfg), 0o600)
}

// Close stops the proxy.
func (p *PathCutProxy) Close() { _ = p.srv.Close() }

// cutBody passes left bytes, then fails: the reverse proxy then aborts the
// connection mid-body.
type cutBody struct {
	r    io.ReadCloser
	left int
}

func (c *cutBody) Read(b []byte) (int, error) {
	if c.left <= 0 {
		return 0, errors.New("path cut proxy: cut")
	}
	if len(b) > c.left {
		b = b[:c.left]
	}
	n, err := c.r.Read(b)
	c.left -= n
	return n, err
}

func (c *cutBody) Close() error { return c.r.Close() }
