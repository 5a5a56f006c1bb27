package apiclient

import (
	"errors"
	"net/http"
	"strings"
	"time"
)

// clientGoHandshakeBound is the TLS handshake bound client-go gives every
// transport it builds (transport/cache.go: TLSHandshakeTimeout 10 s), as
// kubectl has it: no flag changes it.
const clientGoHandshakeBound = 10 * time.Second

// HandshakeBoundName names net/http's bound of a TLS handshake where a
// request that it ended says what ended it: --request-timeout does not
// change it, so "raise --request-timeout" is no fix for it (user try 22
// #4: a server that took the connection and never answered TLS was cut at
// 10 s whatever --request-timeout said, and the fix said to raise it).
const HandshakeBoundName = "the TLS handshake bound (net/http's, as kubectl's: no flag changes it)"

// HandshakeFix is the fix for a request the TLS handshake bound ended:
// what took the connection is to be checked, no flag gives it more time.
const HandshakeFix = "check that the address is an API server's and not overloaded, and what any proxy or load balancer in between does with the connection"

// handshakeTimedOut is err as a *DeadlineError named after the TLS
// handshake bound of rt's transport when it is net/http's "TLS handshake
// timeout" (an unexported type: known by its text), err itself otherwise.
func handshakeTimedOut(err error, rt http.RoundTripper) error {
	if err == nil || !strings.Contains(err.Error(), "net/http: TLS handshake timeout") {
		return err
	}
	var d *DeadlineError
	if errors.As(err, &d) {
		return err
	}
	return &DeadlineError{Err: err, Within: handshakeBoundOf(rt), Handshake: true, Bound: HandshakeBoundName}
}

// handshakeBoundOf is the TLS handshake bound of the *http.Transport at
// the bottom of rt's chain, client-go's when it is not found.
func handshakeBoundOf(rt http.RoundTripper) time.Duration {
	for rt != nil {
		if t, ok := rt.(*http.Transport); ok && t.TLSHandshakeTimeout > 0 {
			return t.TLSHandshakeTimeout
		}
		w, ok := rt.(interface{ WrappedRoundTripper() http.RoundTripper })
		if !ok {
			break
		}
		rt = w.WrappedRoundTripper()
	}
	return clientGoHandshakeBound
}

// HandshakeCut: err is a request the TLS handshake bound ended (the
// server took the TCP connection and did not complete TLS in time): its
// fix is never a longer --request-timeout.
func HandshakeCut(err error) bool {
	var d *DeadlineError
	return errors.As(err, &d) && d.Handshake
}
