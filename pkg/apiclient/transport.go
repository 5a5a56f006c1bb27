package apiclient

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"k8s.io/client-go/rest"

	"github.com/watchrv/kubectl-watchrv/internal/text"
)

// Wrap is what every rest.Config of the plugin goes through before a
// client is built from it (root's WrapConfigFn, so discovery too): every
// body capped and every request counted in l (may be nil; Meter), no
// hidden retries, no redirects followed, no discovery document that failed
// sent again. The inner wrappers (the credentials' one send again after a
// 401) sit above those, so that each of their sends is counted, bounded
// and refused a redirect as any request, and below the discovery
// documents' memory, which keeps what a document's last send got.
func Wrap(cfg *rest.Config, l *Ledger, inner ...func(http.RoundTripper) http.RoundTripper) *rest.Config {
	cfg = RefuseRedirects(NoHiddenRetries(Meter(cfg, l)))
	for _, w := range inner {
		cfg.Wrap(w)
	}
	return DiscoveryOnce(cfg, l)
}

// Meter puts the body cap (capBody) on every answer of every client built
// from cfg, gives every error answer's Status its HTTP code
// (asStatus), and counts every request and every byte read in l
// (nil: caps only). It sits right above the connection, under client-go's
// credentials and every other wrapper, so that nothing reads a body
// before the cap does. A chain that has a meter already gets none more:
// NewClient adds one to a config that did not go through Wrap.
func Meter(cfg *rest.Config, l *Ledger) *rest.Config {
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		if hasMeter(rt) {
			return rt
		}
		return &meter{next: rt, ledger: l, errorBodyWithin: errorBodyWithin(cfg.Timeout)}
	})
	return cfg
}

type meter struct {
	next   http.RoundTripper
	ledger *Ledger
	// errorBodyWithin bounds the read of an error answer's body (asStatus).
	errorBodyWithin time.Duration
}

func (m *meter) RoundTrip(req *http.Request) (*http.Response, error) {
	u := RequestURL(req.URL)
	start := time.Now()
	en := m.ledger.begin(req.Context(), req.Method, u, kindOf(req, 0))
	// How many times net/http sent the request (Sent: a connection got,
	// TCP and TLS where asked, per send): none, a request its time bound
	// ended before one says so (DeadlineError); more than once, net/http
	// sent it again by itself, below this meter, over HTTP/1 (a kept-alive
	// connection closed or reset before any answer) or HTTP/2 (a refused
	// stream). Every send is counted in the ledger (the entry's Sent, the
	// cost) and said in its -v line and its error (adversary try 15: "no
	// answer within 5s" of a server that refused each stream at once; try
	// 16: a reset GET reached the server 3 times, -v and cost said once).
	var sends SendCounter
	req = req.WithContext(sends.Trace(req.Context(), en.sent))
	req, answered, release := awaitAnswer(req)
	resp, err := m.next.RoundTrip(req)
	waited := answered()
	if err != nil {
		release()
		if mm := wrongScheme(req, nil, err, m.next); mm != nil {
			err = mm
		}
		err = pastDeadline(handshakeTimedOut(closedBeforeAnswer(http2Lost(refusedAnswer(headersTooLarge(proxyRefused(err, req, m.next), req, u), true))), m.next), req, start, false)
		if waited {
			// Not a cancellation by the caller: its chain must not read
			// as context.Canceled (that is Ctrl-C, "interrupted").
			err = &DeadlineError{Err: errors.New(text.OneLine(err.Error())), Within: answerWait, Unbounded: true, Connected: true}
		}
		var late *DeadlineError
		var lost *ConnectionLostError
		switch {
		case errors.As(err, &late) && !late.Body:
			late.Sent = sends.Sent()
			late.Connected = late.Sent.Times > 0
		case errors.As(err, &lost):
			lost.Sent = sends.Sent()
		}
		en.finish(err)
		return resp, err
	}
	if mm := wrongScheme(req, resp, nil, m.next); mm != nil {
		// Go's TLS server's answer to plain HTTP, not the API server's
		// answer to the request: no answer of the request's.
		if resp.Body != nil {
			resp.Body.Close()
		}
		en.finish(mm)
		release()
		return nil, mm
	}
	en.answered(resp.StatusCode)
	if resp.StatusCode == http.StatusSwitchingProtocols {
		// The plugin never asks for an upgrade (no exec, no port
		// forward). net/http hands a 101 the raw connection as its body,
		// which no context, timeout or cap stops (adversary try 10: a
		// list hung for ever, or read until out of memory): refused here.
		if resp.Body != nil {
			resp.Body.Close()
		}
		err := &UnreadableAnswerError{What: "the answer was 101 Switching Protocols, an upgrade of the connection, which the plugin never asks for"}
		en.finish(err)
		release()
		return nil, err
	}
	if c := resp.StatusCode; c < 100 || c > 599 {
		// net/http takes any three digits as a status (000, 600, 999);
		// HTTP's are 100 to 599. Read as what they are not, 000 was "a
		// Status without a code" and 999 "the server failed the
		// request" (adversary try 20 #15): no API server sends one.
		if resp.Body != nil {
			resp.Body.Close()
		}
		err := &UnreadableAnswerError{What: fmt.Sprintf("a status code %03d, which is no HTTP status (HTTP's are 100 to 599)", c), Head: true}
		en.finish(err)
		release()
		return nil, err
	}
	if (resp.Body == nil || resp.Body == http.NoBody) && resp.StatusCode >= 400 && bodyAllowed(req, resp.StatusCode) {
		// An error answer with no body (Content-Length: 0) is a Status
		// of the plugin's words too (asStatus), never client-go's
		// invented one ("the server is currently unable to handle the
		// request" for a bare 503; try 16).
		resp.Body = io.NopCloser(strings.NewReader(""))
	}
	if resp.Body == nil || resp.Body == http.NoBody || !bodyAllowed(req, resp.StatusCode) {
		// No body by HTTP's rules (HTTP/2 gives such an answer a body
		// of its own, not http.NoBody): the request is complete now,
		// whether or not a caller closes it (client-go's discovery cache
		// drops a 304's unread).
		en.finish(io.EOF)
		release()
		return resp, nil
	}
	cb := newCapBody(resp.Body, &BodyTooLargeError{Kind: kindOf(req, resp.StatusCode), Method: req.Method, URL: u, Status: resp.StatusCode}, en)
	cb.req, cb.start, cb.release = req, start, release
	resp.Body = cb
	return asStatus(resp, m.errorBodyWithin, en), nil
}

// IsHTTP2: c is a TLS connection that negotiated HTTP/2.
func IsHTTP2(c net.Conn) bool {
	tc, ok := c.(*tls.Conn)
	return ok && tc.ConnectionState().NegotiatedProtocol == "h2"
}

// headersTooLarge is err as a *BodyTooLargeError when it is net/http's
// own limit of an answer's headers (10 MiB, 1xx answers included: an
// endless run of 103 Early Hints ends there too): the same class, exit
// code and words as a body past its cap, where net/http alone says
// "server response headers exceeded 10485760 bytes; aborted". net/http
// gives these errors no type, so they are known by their text.
func headersTooLarge(err error, req *http.Request, u string) error {
	msg := err.Error()
	// HTTP/1: "server response headers exceeded N bytes"; HTTP/2 (the
	// bundled client, as client-go dials TLS servers): "header list too
	// large" (1xx answers counted) or "... larger than advertised limit".
	if !strings.Contains(msg, "server response headers exceeded") && !strings.Contains(msg, "response header list larger than advertised limit") && !strings.Contains(msg, "header list too large") {
		return err
	}
	return &BodyTooLargeError{Kind: kindOf(req, 0), Method: req.Method, URL: u, Limit: limitHeaders, Headers: true}
}

// pastDeadline is err, the failure of req (sent at start) or of its
// answer's body, as a timeout when req's deadline (its time bound:
// --request-timeout, discovery's 32 s) had passed when it failed.
// net/http's words for it name no time and at times no timeout: "net/http:
// request canceled" (http.Client cancels at its deadline two ways at once,
// and the old one may win), "context deadline exceeded", or "use of closed
// network connection" (the connection it closed under a body's read);
// the ledger (the -v line, a discovery failure told from it) had only
// those, unclassified (adversary tries 13 and 14: a hung /apis/apps/v1
// exit 1, a trickled /metrics "use of closed network connection").
// A request a WithNamedBoundOn bound cut is its DeadlineError too
// (cutByNamedBound).
func pastDeadline(err error, req *http.Request, start time.Time, body bool) error {
	err = cutByNamedBound(err, req, body)
	deadline, ok := req.Context().Deadline()
	if err == nil || err == io.EOF || !ok || time.Now().Before(deadline) {
		return err
	}
	var d *DeadlineError
	if errors.As(err, &d) {
		return err
	}
	return &DeadlineError{Err: err, Within: deadline.Sub(start), Body: body, Bound: boundName(req.Context())}
}

// DeadlineError is a request, or its answer's body, that its time bound
// (Within) ended. It is a timeout (Timeout), and unwraps to net/http's
// error.
type DeadlineError struct {
	Err    error
	Within time.Duration
	// Body: the answer's head came, its body did not end in time.
	Body bool
	// Connected: a connection to the server was made (TCP, and TLS where
	// asked) before the time ran out; always true of a Body.
	Connected bool
	// Sent is how many times net/http sent the request (Sent.Again).
	Sent Sent
	// Unbounded: the request had no time bound of its own (no
	// --request-timeout), and AnswerWait passed with no answer begun.
	Unbounded bool
	// Bound names the time bound that ended it ("": the request's own).
	Bound string
	// Handshake: net/http's TLS handshake bound ended it (HandshakeCut),
	// not the request's.
	Handshake bool
}

// AnswerWaitPassed: err is a request without --request-timeout that
// AnswerWait ended, no answer begun: its fix is a --request-timeout,
// which then is its bound.
func AnswerWaitPassed(err error) bool {
	var d *DeadlineError
	return errors.As(err, &d) && d.Unbounded
}

func (e *DeadlineError) Error() string {
	within := roundBound(e.Within)
	bound := e.Bound
	if bound == "" {
		bound = "the request's time bound"
	}
	if e.Body {
		return fmt.Sprintf(bodyLate+"%s, %s", within, bound)
	}
	if e.Handshake {
		return fmt.Sprintf(noConnection+"%s, %s: the server took the TCP connection and did not complete TLS", within, bound)
	}
	if !e.Connected {
		return fmt.Sprintf(noConnection+"%s, %s (the TCP or TLS handshake did not complete)", within, bound)
	}
	msg := fmt.Sprintf("no answer within %s, %s", within, bound)
	if e.Unbounded {
		// What happened, and only that: no answer began. The server may
		// still have been working on one (adversary try 20 #3: one with
		// --request-timeout=5m answered at 90 s); nothing says it would
		// have answered 504.
		msg = fmt.Sprintf("no answer began within %s, the plugin's bound for an answer to begin when a request has no time bound of its own (an API server ends a request at its own request timeout: 60 s by default, longer where it is configured so)", within)
	}
	if again := e.Sent.Again(); again != "" {
		msg += " (" + again + ")"
	}
	return msg
}

func (e *DeadlineError) Unwrap() error { return e.Err }

// roundBound is a time bound as a user gave it, near enough: to 100 ms
// from a second on, to the millisecond below (a --request-timeout of
// 10ms is "10ms", never "0s"; fresh user try 15).
func roundBound(d time.Duration) time.Duration {
	if d >= time.Second {
		return d.Round(100 * time.Millisecond)
	}
	return max(d.Round(time.Millisecond), time.Millisecond)
}

// bodyLate is the start of a late body's DeadlineError (net/http keeps
// only the text of a body's error when http.Client's timeout is set).
const bodyLate = "the answer's body did not end within "

// noConnection is the start of the DeadlineError of a request that got
// no connection in time.
const noConnection = "no connection within "

// NoConnection: err is a request its time bound ended before any
// connection to the server was made: the server is down, or the address
// is not one, not a server cut off from etcd (fresh user try 15).
func NoConnection(err error) bool {
	var d *DeadlineError
	if errors.As(err, &d) {
		return !d.Body && !d.Connected
	}
	return err != nil && strings.Contains(err.Error(), noConnection)
}

// GaveNoAnswer: err is a request a connection was made for and whose time
// bound (its own, or AnswerWait) ended before any answer began: the server
// said nothing, not even a reset (net/http may keep only the text).
func GaveNoAnswer(err error) bool {
	var d *DeadlineError
	if errors.As(err, &d) {
		return !d.Body && d.Connected
	}
	return err != nil && (strings.Contains(err.Error(), "no answer within ") || strings.Contains(err.Error(), "no answer began within "))
}

// BodyLate: err is a body that its request's time bound ended (a head
// came: the server answered).
func BodyLate(err error) bool {
	var d *DeadlineError
	if errors.As(err, &d) {
		return d.Body
	}
	return err != nil && strings.Contains(err.Error(), bodyLate)
}
func (e *DeadlineError) Timeout() bool { return true }

// limitHeaders is net/http's limit of an answer's headers, which the
// plugin leaves as it is (client-go builds the transport).
const limitHeaders = 10 << 20

func (m *meter) WrappedRoundTripper() http.RoundTripper { return m.next }

// bodyAllowed is whether an answer of status to req may have a body (RFC
// 9110: none for HEAD, 1xx, 204 and 304).
func bodyAllowed(req *http.Request, status int) bool {
	return req.Method != http.MethodHead && status >= 200 && status != http.StatusNoContent && status != http.StatusNotModified
}

// RequestURL is a URL the plugin sent, as it is printed (-v, errors): the
// server part redacted (text.RedactURL: a password in it), the path and
// query as built. The query holds only the plugin's own parameters (limit,
// continue, resourceVersion, selectors, watch), which kubectl's -v prints
// too, so it is kept.
func RequestURL(u *url.URL) string {
	server := text.RedactURL((&url.URL{Scheme: u.Scheme, Host: u.Host, User: u.User}).String())
	return server + u.RequestURI()
}

// hasMeter reports whether the chain rt (of this package's wrappers, and
// any that say what they wrap) holds a meter.
func hasMeter(rt http.RoundTripper) bool {
	for rt != nil {
		if _, ok := rt.(*meter); ok {
			return true
		}
		w, ok := rt.(interface{ WrappedRoundTripper() http.RoundTripper })
		if !ok {
			return false
		}
		rt = w.WrappedRoundTripper()
	}
	return false
}

// NoHiddenRetries stops client-go from silently retrying 429 answers (it
// retries up to ten times when a Retry-After header is present), also for
// the requests this plugin does not send through Client.Get (discovery), so
// that throttling by API Priority and Fairness is reported at once instead
// of turning into a timeout. The commands that wait (probe, a paged walk)
// read the delay from the Status details (retryAfterSeconds), not from the
// header, and wait themselves.
func NoHiddenRetries(cfg *rest.Config) *rest.Config {
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return hideRetryAfter{rt} })
	return cfg
}

type hideRetryAfter struct{ next http.RoundTripper }

func (h hideRetryAfter) WrappedRoundTripper() http.RoundTripper { return h.next }

func (h hideRetryAfter) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := h.next.RoundTrip(req)
	if err == nil && resp.StatusCode == http.StatusTooManyRequests {
		resp.Header.Del("Retry-After")
	}
	return resp, err
}

// RefuseRedirects turns every redirect into an error before net/http can
// follow it. client-go adds the bearer token (and basic auth, and exec
// credentials) in a round tripper that sits under http.Client, so a
// followed redirect carries them to wherever Location points, another host
// or plain http included. An API server never redirects a get, list or
// watch, so the plugin follows none: the credentials go to the
// kubeconfig's server only. The wrapper is below http.Client, so it holds
// for every client built from the config, cli-runtime's discovery included;
// NewClient also sets CheckRedirect on its own clients.
func RefuseRedirects(cfg *rest.Config) *rest.Config {
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return refuseRedirects{rt} })
	return cfg
}

type refuseRedirects struct{ next http.RoundTripper }

func (r refuseRedirects) WrappedRoundTripper() http.RoundTripper { return r.next }

func (r refuseRedirects) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.next.RoundTrip(req)
	if err != nil || resp.StatusCode < 300 || resp.StatusCode > 399 || resp.Header.Get("Location") == "" {
		return resp, err
	}
	loc := resp.Header.Get("Location")
	if u, perr := req.URL.Parse(loc); perr == nil {
		loc = u.String()
	}
	resp.Body.Close() // unread: the connection is not worth keeping

	return nil, &RedirectError{Status: resp.StatusCode, From: req.URL, Location: loc}
}

// refuseRedirect is http.Client's CheckRedirect of NewClient's clients: the
// same refusal, should a config reach NewClient without Wrap.
func refuseRedirect(req *http.Request, via []*http.Request) error {
	from := req.URL
	if len(via) > 0 {
		from = via[len(via)-1].URL
	}
	status := 0
	if req.Response != nil {
		status = req.Response.StatusCode
	}
	return &RedirectError{Status: status, From: from, Location: req.URL.String()}
}

// RedirectError is a redirect the plugin refused to follow.
type RedirectError struct {
	Status   int
	From     *url.URL
	Location string
}

func (e *RedirectError) Error() string {
	status := "a redirect"
	if e.Status != 0 {
		status = fmt.Sprintf("%d %s", e.Status, http.StatusText(e.Status))
	}
	server := "the API server"
	if e.From != nil {
		server = "the server at " + text.RedactURL((&url.URL{Scheme: e.From.Scheme, Host: e.From.Host, User: e.From.User}).String())
	}
	return fmt.Sprintf("%s answered %s to %s: not followed, an API server never redirects a get, list or watch and the kubeconfig's credentials go to its server only; check the kubeconfig's server address and any proxy in front of it",
		server, status, text.Shorten(text.RedactURL(e.Location), 256))
}
