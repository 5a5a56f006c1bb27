package apiclient

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"syscall"
)

// RequestName is how an error line names a request the plugin sent, the
// one way every such line does: its method and its URL (redacted by the
// caller: RequestURL), except a read of /metrics by name, whose name[]
// parameters (one a family) make its URL a kilobyte and more: that one is
// MetricsRequest ("GET /metrics (21 families)"). Used by the errors of
// the body cap (BodyTooLargeError) and of the decoders' bounds
// (BoundError), and by metrics.ShortRequest for client-go's *url.Error
// (adversary tries 17 and 19: the same failed /metrics named in 60
// characters by one line and 1,300 by another).
func RequestName(method, rawURL string) string {
	if u, err := url.Parse(rawURL); err == nil && strings.HasSuffix(u.Path, "/metrics") {
		if n := len(u.Query()["name[]"]); n > 0 {
			return MetricsRequest(n)
		}
	}
	return method + " " + rawURL
}

// MetricsRequest is a read of /metrics by name as errors name it: the
// path without its name[] query, and how many families it asked for.
func MetricsRequest(families int) string {
	return fmt.Sprintf("GET /metrics (%d families)", families)
}

// ShortRequest is err with the words net/http's *url.Error writes
// ("Get \"https://host:port/api/v1/...?timeout=32s\": ...") said as every
// error line names a request: its method and path (RequestName), without
// the server's address, which the line names already, nor the timeout
// parameter the plugin adds to every request; and without the words
// net/http adds to a timeout the plugin names itself ("(Client.Timeout
// exceeded while awaiting headers)"). A refused connection says that
// nothing listens there. It unwraps to err, so the classifier and the
// exit codes read it as before. Every request's error passes through it
// (capError), so no line carries the Go client's own form (fresh user
// try 38 F3, adversary try 38 F4; adversary try 17).
func ShortRequest(err error) error {
	var ue *url.Error
	if err == nil || !errors.As(err, &ue) || ue.Err == nil || !strings.Contains(err.Error(), ue.Error()) {
		return err
	}
	short := RequestName(strings.ToUpper(ue.Op), requestPath(ue.URL)) + ": " + innerWords(ue.Err)
	return &shortRequestError{err: err, text: strings.Replace(err.Error(), ue.Error(), short, 1)}
}

// requestPath is rawURL's path and query, the timeout parameter left out.
func requestPath(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || u.Path == "" {
		return rawURL
	}
	q := u.Query()
	q.Del("timeout")
	if len(q) == 0 {
		return u.Path
	}
	return u.Path + "?" + q.Encode()
}

// innerWords is a transport failure in words: a refused connection names
// the address nothing listens at; the rest keep their own words.
func innerWords(err error) string {
	if addr := dialedAddr(err); addr != "" && errors.Is(err, syscall.ECONNREFUSED) {
		if ViaProxy(err) {
			return "the proxy refused the connection: nothing listens at " + addr + " (the kubeconfig's proxy-url)"
		}
		return "connection refused: nothing listens at " + addr
	}
	if words, ok := certificateWords(err); ok {
		return words
	}
	return strings.TrimSuffix(err.Error(), " (Client.Timeout exceeded while awaiting headers)")
}

// certificateWords is a server's certificate that failed verification in
// the plugin's words ("the server's certificate is signed by an unknown
// authority"), where crypto/tls and crypto/x509 say "tls: failed to
// verify certificate: x509: ..." (adversary try 44 F4): the one wording
// of every line and row that names the failure (TLSHint gives its fix).
func certificateWords(err error) (string, bool) {
	var unknown x509.UnknownAuthorityError
	var name x509.HostnameError
	var invalid x509.CertificateInvalidError
	var verify *tls.CertificateVerificationError
	switch {
	case errors.As(err, &unknown):
		return "the server's certificate is signed by an unknown authority", true
	case errors.As(err, &name):
		return "the server's " + strings.TrimPrefix(name.Error(), "x509: "), true
	case errors.As(err, &invalid):
		return "the server's " + strings.TrimPrefix(invalid.Error(), "x509: "), true
	case errors.As(err, &verify):
		return "the server's certificate could not be verified: " + strings.TrimPrefix(verify.Err.Error(), "x509: "), true
	}
	return "", false
}

type shortRequestError struct {
	err  error
	text string
}

func (e *shortRequestError) Error() string { return e.text }
func (e *shortRequestError) Unwrap() error { return e.err }

// dialedAddr is the address of the innermost dial in err ("" when none
// names one): a proxy's dial wraps the dial that failed.
func dialedAddr(err error) string {
	addr := ""
	for e := err; e != nil; e = errors.Unwrap(e) {
		if op, ok := e.(*net.OpError); ok && op.Addr != nil {
			addr = op.Addr.String()
		}
	}
	return addr
}

// ViaProxy: err is a failure to reach the proxy the kubeconfig names
// (proxy-url), not the API server: net/http's "proxyconnect" dial.
//
// A proxy that answered CONNECT with another status than 200
// (ProxyRefusedError) is one too.
func ViaProxy(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "proxyconnect" || ProxyRefused(err) != nil
}
