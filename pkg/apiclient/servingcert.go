package apiclient

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"net/http/httptrace"
	"sync"
)

// ServingCert is ctx with a client trace that notes the serving
// certificate of the connection the first request made with it gets, and
// a func that gives its SHA-256 fingerprint (hex; "" before that request
// had a connection, or over plain HTTP). It costs no request: the TLS
// handshake already holds the certificate. An API server keeps its
// certificate across restarts, while a cluster created anew at the same
// address (kind, a test cluster, another server behind a forwarder) has
// another: what identifies the server behind an address, where its
// address and version do not (fresh user try 22 #2).
func ServingCert(ctx context.Context) (context.Context, func() string) {
	var mu sync.Mutex
	seen, fingerprint := false, ""
	trace := &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) {
		mu.Lock()
		defer mu.Unlock()
		if seen {
			return
		}
		seen = true
		if tc, ok := info.Conn.(*tls.Conn); ok {
			if certs := tc.ConnectionState().PeerCertificates; len(certs) > 0 {
				sum := sha256.Sum256(certs[0].Raw)
				fingerprint = hex.EncodeToString(sum[:])
			}
		}
	}}
	return httptrace.WithClientTrace(ctx, trace), func() string {
		mu.Lock()
		defer mu.Unlock()
		return fingerprint
	}
}
