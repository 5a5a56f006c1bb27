package main

import (
	"context"
	"crypto/tls"
	"net/http"
	"sync"
	"sync/atomic"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/transport"
)

// After a 401, client-go's exec authenticator (plugin/pkg/client/auth/exec,
// roundTripper) runs the plugin again, but hands the 401 back: the request
// is not sent again with the new credentials. And it runs the plugin again
// for every 401 to the credentials it holds: a discovery document's 401
// that the run replays (DiscoveryOnce), the new credentials rejected too.
// Adversary try 20 #1: a plugin whose later runs ask the user to log in
// again ran 4 times (3 re-logins), the new token was never sent, exit 6;
// kubectl ran it once more and went on with the new token. So a 401 to a
// run's credentials re-runs the plugin once, here, and sends the request
// again with what it gave:
//
//   - reauth sits under the discovery documents' memory and above the
//     meter (apiclient.Wrap's inner wrappers): the request sent again is
//     counted and bounded as any, and a discovery document keeps the
//     answer of its last send.
//   - The re-run is client-go's own (its authenticator, from its cache:
//     the one every client of the run uses), driven through its exported
//     round tripper on a request that never leaves the process: the new
//     credentials are the ones every later request carries.
//   - One re-run until an answer accepts the credentials it gave: a 401 to
//     them is the answer (exit 6), and client-go's own re-run for it is
//     refused by the relay (credentialRelay.closeGate), so an interactive
//     plugin never asks again for the same rejection. A request that went
//     out with the old credentials while the plugin ran is sent again
//     with the new ones, without another run.
//
// Where the relay has no status file (a TMPDIR that does not exist) or
// the plugin is not relayed (a plugin policy), client-go's own re-runs are
// not refused: the plugin then runs as kubectl runs it.
type reauth struct {
	// authWrap wraps a round tripper in the run's exec authenticator (nil:
	// the kubeconfig has no exec plugin, or client-go does not use it).
	authWrap atomic.Pointer[transport.WrapperFunc]
	certs    *transport.GetCertHolder
	mu       sync.Mutex
	// spent: the plugin was re-run after a 401, and no answer has
	// accepted what it gave (gave: the Authorization header it made).
	spent   bool
	gave    string
	renewed bool // the re-run gave other credentials than the rejected ones
	// rejectedAgain: a 401 came to the new credentials too.
	rejectedAgain bool
}

// init takes the authenticator of cfg (the relayed config every client
// is built from): its transport config alone, none of the run's wrappers.
func (r *reauth) init(cfg *rest.Config) {
	c := rest.CopyConfig(cfg)
	c.WrapTransport, c.Transport = nil, nil
	tc, err := c.TransportConfig()
	if err != nil || tc.WrapTransport == nil {
		return
	}
	r.certs = tc.TLS.GetCertHolder
	r.authWrap.Store(&tc.WrapTransport)
}

// reauthenticate is the wrapper of every client of the run
// (apiclient.Wrap's inner one); ctx is the run's.
func (g *credentialGuard) reauthenticate(ctx context.Context) func(http.RoundTripper) http.RoundTripper {
	return func(rt http.RoundTripper) http.RoundTripper { return reauthOnce{next: rt, g: g, ctx: ctx} }
}

type reauthOnce struct {
	next http.RoundTripper
	g    *credentialGuard
	ctx  context.Context
}

func (r reauthOnce) WrappedRoundTripper() http.RoundTripper { return r.next }

func (r reauthOnce) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := r.next.RoundTrip(req)
	if err != nil || r.g.reauth.authWrap.Load() == nil {
		return res, err
	}
	sent := req.Header.Get("Authorization")
	if res.StatusCode != http.StatusUnauthorized {
		r.g.answered(sent, res.StatusCode)
		return res, nil
	}
	// A re-run, ours or client-go's, is bounded as every run is.
	r.g.boundRefresh(r.ctx)
	auth, again := r.g.afterUnauthorized(sent)
	if !again || (req.Body != nil && req.Body != http.NoBody && req.GetBody == nil) || req.Context().Err() != nil {
		// The 401 is the answer (a request whose time ran out while the
		// plugin ran is not sent again: its 401 stays the answer to the
		// old credentials only, DiscoveryOnce).
		return res, nil
	}
	res.Body.Close()
	retry := req.Clone(req.Context())
	if req.GetBody != nil {
		if retry.Body, err = req.GetBody(); err != nil {
			return nil, err
		}
	}
	retry.Header.Del("Authorization")
	if auth != "" {
		retry.Header.Set("Authorization", auth)
	}
	res, err = r.next.RoundTrip(retry)
	if err == nil {
		r.g.answered(auth, res.StatusCode)
	}
	return res, err
}

// afterUnauthorized: the credentials sent (their Authorization header)
// were rejected. again is whether the request goes out once more, with
// auth: after the one re-run of the plugin, or, when that was done for a
// request sent earlier, with what it gave.
func (g *credentialGuard) afterUnauthorized(sent string) (auth string, again bool) {
	g.reauth.mu.Lock()
	defer g.reauth.mu.Unlock()
	if g.reauth.spent {
		// Sent before the re-run: its credentials are old. Its own
		// credentials rejected: that is the answer.
		g.reauth.rejectedAgain = g.reauth.rejectedAgain || (sent == g.reauth.gave && g.reauth.renewed)
		return g.reauth.gave, sent != g.reauth.gave
	}
	g.reauth.spent = true
	auth, renewed := g.rerun(sent)
	g.reauth.gave, g.reauth.renewed = auth, renewed
	// client-go's own re-run for a 401 to what this one gave is refused,
	// until an answer accepts it.
	g.relay.closeGate()
	return auth, renewed
}

// answered: the credentials sent got an answer of code (a send again
// included). One other than a 401 (and a server's own failure) accepted
// them: when they are the re-run's, a later 401 may re-run the plugin
// again.
func (g *credentialGuard) answered(sent string, code int) {
	g.reauth.mu.Lock()
	defer g.reauth.mu.Unlock()
	if !g.reauth.spent || sent != g.reauth.gave {
		return
	}
	switch {
	case code == http.StatusUnauthorized:
		g.reauth.rejectedAgain = g.reauth.renewed
	case code < 500:
		g.reauth.spent, g.reauth.rejectedAgain = false, false
		g.relay.openGate()
	}
}

// rerunNote is what a 401 adds when the plugin was re-run after a 401
// and no answer has accepted what it gave ("": it was not, or what it gave
// was not sent).
func (g *credentialGuard) rerunNote() string {
	g.reauth.mu.Lock()
	defer g.reauth.mu.Unlock()
	switch {
	case !g.reauth.spent:
		return ""
	case g.reauth.rejectedAgain:
		return "the credential plugin was run again after the first 401, and the server rejected the new credentials too"
	case !g.reauth.renewed:
		return "the credential plugin was run again after the 401, and gave no new credentials"
	}
	return ""
}

// rerun has client-go's authenticator run the plugin again, unless the
// credentials it holds are no longer the ones rejected (another request's
// 401 had it run already), and returns the Authorization header of what
// it holds then; renewed is whether the credentials changed (a new token,
// or a new client certificate).
func (g *credentialGuard) rerun(rejected string) (auth string, renewed bool) {
	wrap := *g.reauth.authWrap.Load()
	cert := func() *tls.Certificate {
		if g.reauth.certs == nil || g.reauth.certs.GetCert == nil {
			return nil
		}
		c, _ := g.reauth.certs.GetCert()
		return c
	}
	before := cert()
	// A 401 to the rejected credentials, if client-go still holds them,
	// makes it run the plugin (maybeRefreshCreds); its error, if the run
	// failed, is client-go's log line, which the plugin silences: the
	// credentials are then the rejected ones, and the 401 is the answer.
	if _, err := answerInProcess(wrap, func(a string) int {
		if a == rejected {
			return http.StatusUnauthorized
		}
		return http.StatusOK
	}); err != nil {
		return rejected, false
	}
	auth, err := answerInProcess(wrap, func(string) int { return http.StatusOK })
	if err != nil {
		return rejected, false
	}
	return auth, auth != rejected || cert() != before
}

// answerInProcess sends a request through the authenticator's round
// tripper to an answer made here (code, for the Authorization header the
// authenticator set): nothing leaves the process. It returns that header.
func answerInProcess(wrap transport.WrapperFunc, code func(auth string) int) (string, error) {
	var auth string
	rt := wrap(roundTripFunc(func(r *http.Request) (*http.Response, error) {
		auth = r.Header.Get("Authorization")
		return &http.Response{StatusCode: code(auth), Header: http.Header{}, Body: http.NoBody, Request: r}, nil
	}))
	req, err := http.NewRequest(http.MethodGet, "http://in-process.invalid/", nil)
	if err != nil {
		return "", err
	}
	res, err := rt.RoundTrip(req)
	if err != nil {
		return "", err
	}
	res.Body.Close()
	return auth, nil
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
