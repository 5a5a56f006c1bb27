package apiclient

// The connections that fail in a way only Go words: a scheme that is not
// what the server speaks (an http:// URL of a TLS server, an https:// URL
// of a plain-HTTP one) and a proxy that answered CONNECT with another
// status than 200. net/http says them as "http: server gave HTTP response
// to HTTPS client", a 400 "Client sent an HTTP request to an HTTPS
// server" (read as the server's refusal of the request, exit 2), or the
// proxy's status text alone ("Bad Gateway"), which name neither the
// problem nor its fix (adversary try 44): the meter turns each into an
// error of the plugin's words that knows its class (diagnose.Classified).

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
)

// SchemeMismatchError: the request's scheme is not what the server at its
// address speaks. It is a TLS failure (exit 5): the URL's scheme must
// change, and repeating cannot help.
type SchemeMismatchError struct {
	// ServerSpeaksTLS: an http:// request met a TLS server; else an
	// https:// request was answered in plain HTTP.
	ServerSpeaksTLS bool
}

func (e *SchemeMismatchError) Error() string {
	if e.ServerSpeaksTLS {
		return "the server speaks TLS (HTTPS), and the request went in plain HTTP (an http:// URL)"
	}
	return "the server answered in plain HTTP, and the request went over TLS (an https:// URL)"
}

// FailureClass: the TLS of the connection, which the URL's scheme sets.
func (e *SchemeMismatchError) FailureClass() diagnose.Failure { return diagnose.FailureTLS }

// SchemeMismatch is err's *SchemeMismatchError, nil when err is none.
func SchemeMismatch(err error) *SchemeMismatchError {
	var e *SchemeMismatchError
	if errors.As(err, &e) {
		return e
	}
	return nil
}

// ProxyRefusedError: the proxy the kubeconfig names (proxy-url) answered
// the CONNECT of a request with another status than 200, so no tunnel to
// the server was opened. It is no connection to the server (exit 4), the
// proxy's to mend.
type ProxyRefusedError struct {
	// Proxy is the proxy's URL, redacted.
	Proxy string
	// Code is the status code (0 when its text is not HTTP's own);
	// Status its text as the proxy sent it.
	Code   int
	Status string
}

func (e *ProxyRefusedError) Error() string {
	status := fmt.Sprintf("%d %s", e.Code, e.Status)
	if e.Code == 0 {
		status = fmt.Sprintf("a status of text %q", e.Status)
	}
	what := "it refused to open a tunnel to the server"
	switch e.Code {
	case http.StatusProxyAuthRequired:
		what = "it wants credentials that proxy-url does not carry, or refused those it carries"
	case http.StatusBadGateway, http.StatusGatewayTimeout, http.StatusServiceUnavailable:
		what = "it could not open a connection to the server's address"
	case http.StatusForbidden:
		what = "its rules do not let it open a tunnel to the server's address"
	}
	return fmt.Sprintf("the proxy at %s (proxy-url) answered CONNECT with %s: %s", e.Proxy, status, what)
}

// FailureClass: no connection to the server.
func (e *ProxyRefusedError) FailureClass() diagnose.Failure { return diagnose.FailureUnreachable }

// ProxyRefused is err's *ProxyRefusedError, nil when err is none.
func ProxyRefused(err error) *ProxyRefusedError {
	var e *ProxyRefusedError
	if errors.As(err, &e) {
		return e
	}
	return nil
}

// reasonPhrase is a status line's text as a proxy may write it: words,
// no punctuation of an error's own (net/http's other bare errors).
var reasonPhrase = regexp.MustCompile(`^[A-Za-z][A-Za-z '-]*$`)

// proxyRefused is err as a *ProxyRefusedError when it is net/http's word
// of a CONNECT that rt's proxy answered with another status than 200: a
// bare error of the status line's text alone (transport.go: errors.New
// of it, or "unknown status code"), which nothing else of an https://
// request through a proxy gives. Any other err is kept.
func proxyRefused(err error, req *http.Request, rt http.RoundTripper) error {
	if err == nil || req.URL.Scheme != "https" || errors.Unwrap(err) != nil || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return err
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return err
	}
	proxy := proxyOf(rt, req)
	if proxy == nil || (proxy.Scheme != "http" && proxy.Scheme != "https") {
		return err
	}
	words := err.Error()
	code := statusOfText(words)
	if code == 0 && words != "unknown status code" && !reasonPhrase.MatchString(words) {
		return err
	}
	return &ProxyRefusedError{Proxy: text.RedactURL(proxy.String()), Code: code, Status: text.OneLine(words)}
}

// statusOfText is the HTTP status code whose text is words (0: none).
func statusOfText(words string) int {
	for code := 300; code < 600; code++ {
		if t := http.StatusText(code); t != "" && t == words {
			return code
		}
	}
	return 0
}

// baseTransport is the *http.Transport at the bottom of rt's chain (nil
// when none is found).
func baseTransport(rt http.RoundTripper) *http.Transport {
	for rt != nil {
		if t, ok := rt.(*http.Transport); ok {
			return t
		}
		w, ok := rt.(interface{ WrappedRoundTripper() http.RoundTripper })
		if !ok {
			break
		}
		rt = w.WrappedRoundTripper()
	}
	return nil
}

// proxyOf is the proxy rt sends req through (nil: none, or unknown).
func proxyOf(rt http.RoundTripper, req *http.Request) *url.URL {
	t := baseTransport(rt)
	if t == nil || t.Proxy == nil {
		return nil
	}
	u, err := t.Proxy(req)
	if err != nil {
		return nil
	}
	return u
}

// wrongScheme is the *SchemeMismatchError of req's outcome (its answer
// resp, or its error err) when the server at req's address does not
// speak req's scheme, nil otherwise:
//   - https://: the first bytes that came are plain text, an HTTP
//     answer's (net/http's tls.RecordHeaderError of "HTTP/", which
//     http.Client says as "server gave HTTP response to HTTPS client", or
//     an HTML page with no status line: plainText);
//   - http://, not through a proxy: the answer is a 400 of HTTP/1.0
//     without one header, as Go's TLS server (kube-apiserver's) answers
//     plain HTTP (its body, "Client sent an HTTP request to an HTTPS
//     server", may be cut by a reset), and the address completes a TLS
//     handshake's first step (speaksTLS): the one sign that holds for any
//     TLS server.
func wrongScheme(req *http.Request, resp *http.Response, err error, rt http.RoundTripper) *SchemeMismatchError {
	switch req.URL.Scheme {
	case "https":
		var rh tls.RecordHeaderError
		if err != nil && errors.As(err, &rh) && plainText(rh.RecordHeader[:]) {
			return &SchemeMismatchError{}
		}
	case "http":
		if err != nil || resp == nil || resp.StatusCode != http.StatusBadRequest || resp.ProtoMajor != 1 || resp.ProtoMinor != 0 || len(resp.Header) != 0 {
			return nil
		}
		if proxyOf(rt, req) != nil {
			return nil
		}
		if speaksTLS(req.Context(), baseTransport(rt), hostPort(req.URL)) {
			return &SchemeMismatchError{ServerSpeaksTLS: true}
		}
	}
	return nil
}

// plainText: the first bytes a server sent where a TLS record was due are
// printable ASCII, as a plain-HTTP server's are ("HTTP/", or the HTML
// error page some send with no status line to a TLS ClientHello: fresh
// user try 45 F3, python's http.server); a TLS record starts with its
// content type, a byte from 20 to 24.
func plainText(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c > 0x7e {
			return false
		}
	}
	return len(b) > 0
}

// tlsCheckWithin bounds speaksTLS's connection and handshake.
const tlsCheckWithin = 3 * time.Second

// speaksTLS: the server at addr answers a TLS ClientHello with a TLS
// handshake (its certificate, or a TLS alert). Nothing is sent after the
// handshake, and no certificate is trusted: the pool of authorities is
// empty, so the handshake ends at the certificate's verification.
func speaksTLS(ctx context.Context, t *http.Transport, addr string) bool {
	ctx, cancel := context.WithTimeout(ctx, tlsCheckWithin)
	defer cancel()
	dial := (&net.Dialer{}).DialContext
	if t != nil && t.DialContext != nil {
		dial = t.DialContext
	}
	conn, err := dial(ctx, "tcp", addr)
	if err != nil {
		return false
	}
	defer conn.Close()
	host, _, _ := net.SplitHostPort(addr)
	err = tls.Client(conn, &tls.Config{ServerName: host, RootCAs: x509.NewCertPool(), MinVersion: tls.VersionTLS12}).HandshakeContext(ctx)
	var verify *tls.CertificateVerificationError
	var alert tls.AlertError
	return err == nil || errors.As(err, &verify) || errors.As(err, &alert) || strings.HasPrefix(err.Error(), "remote error: tls:")
}

// hostPort is u's host and port, the scheme's port when u names none.
func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	port := "80"
	if u.Scheme == "https" {
		port = "443"
	}
	return net.JoinHostPort(u.Hostname(), port)
}
