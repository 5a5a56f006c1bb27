package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
	// notRun: the relay refused the re-run (its in-band not-rerun
	// verdict, with the run's nonce): the plugin was not run again, and
	// nothing may say it was (adversary try 48 F4: a plugin that removed
	// the status file closed the gate, and the run said it "was run again
	// after the 401, and gave no new credentials").
	notRun bool
	// rejectedAgain: a 401 came to the new credentials too.
	rejectedAgain bool
	// rerunning is closed when the re-run under way ends (nil: none is):
	// no lock is held across a plugin run (adversary try 46 F1: a re-run
	// that hung held mu, and the error line waiting for it hung the run
	// past --timeout and every signal). stopped: the request that started
	// it ran out of time first, and the re-run was stopped.
	rerunning chan struct{}
	stopped   bool
	// killed: the re-run's bound (boundRefresh) stopped a run of the
	// plugin since the re-run began.
	killed atomic.Bool
}

// rerunGiveUp is how long a request whose time ran out waits for the
// stopped re-run to return before it answers with its 401 anyway (where
// the plugin cannot be stopped, it is left to client-go).
const rerunGiveUp = 2 * time.Second

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
	// The 401's body is read before the re-run (as far as the one body
	// cap lets it, within the request's time): when the re-run outlives
	// the request, the 401 is still its answer, whole, not a body cut by
	// the request's end (adversary try 46 F2: "its body did not end").
	res.Body = readNow(res.Body)
	// A re-run, ours or client-go's, is bounded as every run is.
	r.g.boundRefresh(r.ctx)
	auth, again := r.g.afterUnauthorized(req.Context(), sent)
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
// request sent earlier, with what it gave. The re-run is bounded by the
// request's own time (ctx: --timeout, --deadline, --request-timeout, a
// signal): when it ends first, the plugin is stopped and the 401 is the
// answer (adversary try 46 F2: a hung re-run held streaming --deadline
// 3s for 61 s).
func (g *credentialGuard) afterUnauthorized(ctx context.Context, sent string) (auth string, again bool) {
	g.reauth.mu.Lock()
	if g.reauth.spent {
		done := g.reauth.rerunning
		g.reauth.mu.Unlock()
		if done != nil {
			select {
			case <-done:
			case <-ctx.Done():
				return "", false // the 401 is this request's answer
			}
		}
		g.reauth.mu.Lock()
		defer g.reauth.mu.Unlock()
		// Sent before the re-run: its credentials are old. Its own
		// credentials rejected: that is the answer.
		g.reauth.rejectedAgain = g.reauth.rejectedAgain || (sent == g.reauth.gave && g.reauth.renewed)
		return g.reauth.gave, sent != g.reauth.gave
	}
	g.reauth.spent = true
	done := make(chan struct{})
	g.reauth.rerunning = done
	g.reauth.killed.Store(false)
	g.reauth.mu.Unlock()

	type result struct {
		auth            string
		renewed, notRun bool
	}
	ran := make(chan result, 1)
	go func() {
		a, r, n := g.rerun(sent)
		ran <- result{a, r, n}
	}()
	out, stopped := result{sent, false, false}, false
	select {
	case out = <-ran:
	case <-ctx.Done():
		// Its answer would come to no request: stopped, as at the run's
		// end (stopAbandonedPlugin), and client-go's run of it returns.
		stopped = true
		stopAbandonedPlugin(g.command)
		select {
		case <-ran:
		case <-time.After(rerunGiveUp):
		}
	}
	stopped = stopped || g.reauth.killed.Load()
	g.reauth.mu.Lock()
	defer g.reauth.mu.Unlock()
	g.reauth.gave, g.reauth.renewed, g.reauth.notRun, g.reauth.stopped = out.auth, out.renewed, out.notRun, stopped
	g.reauth.rerunning = nil
	close(done)
	// client-go's own re-run for a 401 to what this one gave is refused,
	// until an answer accepts it.
	g.relay.closeGate()
	return out.auth, out.renewed && !stopped
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
	case g.reauth.rerunning != nil:
		return "the credential plugin was being run again after the 401, and had given no new credentials when the request ended"
	case g.reauth.stopped:
		return "the credential plugin was run again after the 401, gave no answer in time, and was stopped"
	case g.reauth.notRun:
		return "the credential plugin was not run again after the 401: the run's relay refused to start it (its status file was removed or replaced while the run went on)"
	case g.reauth.rejectedAgain:
		return "the credential plugin was run again after the first 401, and the server rejected the new credentials too"
	case !g.reauth.renewed:
		return "the credential plugin was run again after the 401, and gave no new credentials"
	}
	return ""
}

// heldByRerun is the note of a request that got no answer because the
// plugin's re-run after a 401 was under way or was stopped ("": neither):
// client-go holds every request of the run while it runs the plugin, so
// the 401 is the run's answer (adversary try 46 F2: "no answer ... the
// API server or the network hangs" of a server that answered 401 at once).
func (g *credentialGuard) heldByRerun() string {
	g.reauth.mu.Lock()
	running, stopped := g.reauth.rerunning != nil, g.reauth.stopped
	g.reauth.mu.Unlock()
	if running || stopped {
		return g.rerunNote()
	}
	return ""
}

// heldError is a request that got no answer said as what held it: the 401
// and the plugin's re-run; it is classified as the 401 it is (its own
// error, a deadline, is no answer of the server's).
func heldError(server, note string, _ error) error {
	return withCode(ExitUnauthorized, heldByRerunError{fmt.Sprintf("%s answered 401 Unauthorized to the credentials the plugin gave, and %s; this request waited behind it: log in again with the plugin, or choose another --user/--context", server, note)})
}

type heldByRerunError struct{ text string }

func (e heldByRerunError) Error() string { return e.text }

// Unwrap is the 401 the run got: its class for the summary and JSON.
func (e heldByRerunError) Unwrap() error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusUnauthorized, Reason: metav1.StatusReasonUnauthorized, Message: "Unauthorized"}}
}

// rerun has client-go's authenticator run the plugin again, unless the
// credentials it holds are no longer the ones rejected (another request's
// 401 had it run already), and returns the Authorization header of what
// it holds then; renewed is whether the credentials changed (a new token,
// or a new client certificate).
func (g *credentialGuard) rerun(rejected string) (auth string, renewed, notRun bool) {
	wrap := *g.reauth.authWrap.Load()
	cert := func() *tls.Certificate {
		if g.reauth.certs == nil || g.reauth.certs.GetCert == nil {
			return nil
		}
		c, _ := g.reauth.certs.GetCert()
		return c
	}
	before := cert()
	if g.relay.statusGone() {
		// The relay refuses every run once its status file is gone
		// (relayStatus.gateClosed): no run is asked of it, and none is
		// said (client-go only logs the refusal it would get).
		return rejected, false, true
	}
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
		return rejected, false, false
	}
	auth, err := answerInProcess(wrap, func(string) int { return http.StatusOK })
	if err != nil {
		return rejected, false, false
	}
	return auth, auth != rejected || cert() != before, false
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

// readNow reads body to its end and closes it; what it returns gives the
// same bytes, then the read's error if there was one.
func readNow(body io.ReadCloser) io.ReadCloser {
	b, err := io.ReadAll(body)
	body.Close()
	var rest io.Reader = bytes.NewReader(b)
	if err != nil {
		rest = io.MultiReader(rest, errReader{err})
	}
	return io.NopCloser(rest)
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
