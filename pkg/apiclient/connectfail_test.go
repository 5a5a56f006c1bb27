package apiclient

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"k8s.io/client-go/rest"

	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
)

// goConnectionWords are net/http's and crypto/tls's words for a
// connection that failed, which no error of the plugin may carry.
var goConnectionWords = []string{"server gave HTTP response", "Client sent an HTTP request", "read tcp", "proxyconnect", "x509:", "tls: failed to verify", "connection reset by peer"}

// serveRaw answers every connection on loopback with answer after
// reading one request's head (a CONNECT to a proxy, a GET): the test
// framework's ServeRaw, which this package's own tests cannot import (the
// framework imports apiclient).
func serveRaw(t *testing.T, answer string) string {
	return serveConns(t, func(c net.Conn) {
		if _, err := http.ReadRequest(bufio.NewReader(c)); err == nil {
			fmt.Fprint(c, answer)
		}
	})
}

// serveConns hands every connection on loopback, until t ends, to handle,
// and closes it after.
func serveConns(t *testing.T, handle func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				handle(c)
			}()
		}
	}()
	return ln.Addr().String()
}

// TestConnectionsGoWordsAreNamedWithTheirClass (adversary try 44): the
// failures net/http words alone (an http:// URL of a TLS server, short
// request and long, answered with Go's 400 and cut by a reset; an
// https:// URL of a plain-HTTP server; a proxy that answers CONNECT with
// 502 or 407; a certificate of an unknown authority) are each an error of
// the plugin's words with the class of its fix: TLS (exit 5) for the
// scheme and the certificate, Unreachable through the proxy (exit 4) for
// the proxy's refusal. A plain-HTTP server's own header-less 400 stays
// its answer.
func TestConnectionsGoWordsAreNamedWithTheirClass(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(200) })
	tlsServer := httptest.NewTLSServer(ok)
	defer tlsServer.Close()
	plain := httptest.NewServer(ok)
	defer plain.Close()
	tlsAddr, plainAddr := tlsServer.Listener.Addr().String(), plain.Listener.Addr().String()
	proxyVia := func(status string) func(*http.Request) (*url.URL, error) {
		u, _ := url.Parse("http://" + serveRaw(t, "HTTP/1.1 "+status+"\r\nContent-Length: 0\r\n\r\n"))
		return http.ProxyURL(u)
	}
	insecure := rest.TLSClientConfig{Insecure: true}
	long := url.Values{"labelSelector": {strings.Repeat("a", 8<<10)}}
	cases := []struct {
		name  string
		cfg   *rest.Config
		query url.Values
		class diagnose.Failure
		check func(err error) bool
	}{
		{"http:// to TLS", &rest.Config{Host: "http://" + tlsAddr}, nil, diagnose.FailureTLS, func(err error) bool { m := SchemeMismatch(err); return m != nil && m.ServerSpeaksTLS }},
		{"http:// to TLS, a long request", &rest.Config{Host: "http://" + tlsAddr}, long, diagnose.FailureTLS, func(err error) bool { m := SchemeMismatch(err); return m != nil && m.ServerSpeaksTLS }},
		{"https:// to plain HTTP", &rest.Config{Host: "https://" + plainAddr, TLSClientConfig: insecure}, nil, diagnose.FailureTLS, func(err error) bool { m := SchemeMismatch(err); return m != nil && !m.ServerSpeaksTLS }},
		// A plain server that answers a ClientHello with an HTML page and
		// no status line (python's http.server: fresh user try 45 F3).
		{"https:// to plain HTTP with no status line", &rest.Config{Host: "https://" + serveText(t, "<!DOCTYPE HTML>\n<html><body>Error response</body></html>\n"), TLSClientConfig: insecure}, nil, diagnose.FailureTLS, func(err error) bool { m := SchemeMismatch(err); return m != nil && !m.ServerSpeaksTLS }},
		{"proxy 502", &rest.Config{Host: tlsServer.URL, TLSClientConfig: insecure, Proxy: proxyVia("502 Bad Gateway")}, nil, diagnose.FailureUnreachable, func(err error) bool {
			r := ProxyRefused(err)
			return r != nil && r.Code == 502 && ViaProxy(err) && strings.Contains(err.Error(), "answered CONNECT with 502 Bad Gateway")
		}},
		{"proxy 407", &rest.Config{Host: tlsServer.URL, TLSClientConfig: insecure, Proxy: proxyVia("407 Proxy Authentication Required")}, nil, diagnose.FailureUnreachable, func(err error) bool {
			r := ProxyRefused(err)
			return r != nil && r.Code == 407 && ViaProxy(err) && strings.Contains(err.Error(), "proxy-url")
		}},
		{"proxy of its own words", &rest.Config{Host: tlsServer.URL, TLSClientConfig: insecure, Proxy: proxyVia("599 Upstream Down")}, nil, diagnose.FailureUnreachable, func(err error) bool {
			r := ProxyRefused(err)
			return r != nil && r.Code == 0 && strings.Contains(err.Error(), `"Upstream Down"`)
		}},
		{"unknown authority", &rest.Config{Host: tlsServer.URL}, nil, diagnose.FailureTLS, func(err error) bool {
			return SchemeMismatch(err) == nil && strings.Contains(err.Error(), "the server's certificate is signed by an unknown authority")
		}},
		{"a plain server's own header-less 400", &rest.Config{Host: "http://" + serveRaw(t, "HTTP/1.0 400 Bad Request\r\n\r\nno\n")}, nil, diagnose.FailureBadRequest, func(err error) bool {
			return SchemeMismatch(err) == nil && diagnose.IsAnswer(err)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			client, err := NewClient(c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			_, err = client.Get(context.Background(), "/api/v1/configmaps", c.query, AcceptMetadataList)
			if err == nil {
				t.Fatal("Get succeeded")
			}
			err = ShortRequest(err)
			if got := diagnose.ClassifyFailure(err); got != c.class || !c.check(err) {
				t.Fatalf("Get = %v (%s), want class %s and its named error", err, got, c.class)
			}
			if c.class == diagnose.FailureBadRequest {
				return
			}
			for _, w := range goConnectionWords {
				if strings.Contains(err.Error(), w) {
					t.Errorf("the error says Go's words %q: %v", w, err)
				}
			}
		})
	}
}

// serveText writes text to every connection on loopback as it opens,
// whatever was sent, and closes it.
func serveText(t *testing.T, text string) string {
	return serveConns(t, func(c net.Conn) { fmt.Fprint(c, text) })
}
