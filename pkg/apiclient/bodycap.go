package apiclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// BodyKind names what a response body is, and so how large it may be.
// Every body the plugin reads (a watch frame, a list page, /version,
// /metrics, discovery, an error answer) is read through one cap (capBody),
// put on it by the transport (meter) whatever client sent the request,
// cli-runtime's discovery included: no server, proxy or fault can make the
// plugin read without end.
type BodyKind string

// Body kinds.
const (
	KindWatch     BodyKind = "watch"     // a watch stream: the cap is per frame (event)
	KindList      BodyKind = "list"      // one list page
	KindObject    BodyKind = "object"    // one object (a GET by name)
	KindVersion   BodyKind = "version"   // GET /version
	KindMetrics   BodyKind = "metrics"   // GET /metrics
	KindDiscovery BodyKind = "discovery" // /api, /apis and the group versions under them
	KindError     BodyKind = "error"     // the body of a 3xx, 4xx or 5xx answer
)

// Limits of one body of each kind, in bytes. Each is far above what a real
// API server sends, and low enough that the plugin stays within a few
// hundred MB of memory whatever a server sends (docs/exit-codes.md, 13).
const (
	// LimitWatchFrame is client-go's own limit of one watch event (its
	// streaming decoder refuses a bigger frame): an object is at most
	// 1.5 MiB in etcd.
	LimitWatchFrame = 16 << 20
	// LimitListPage holds a metadata-only page of 500 items each at the
	// API's maximum of 256 KiB of annotations (about 130 MiB with their
	// labels and managedFields), and a whole-collection answer of some
	// 50,000 typical items (~5 KiB of metadata each) that a watch cache
	// sends for resourceVersion=0 whatever the limit.
	LimitListPage = 256 << 20
	// LimitObject is one object, like a watch frame.
	LimitObject = LimitWatchFrame
	// LimitVersion: /version is a few hundred bytes.
	LimitVersion = 64 << 10
	// LimitMetrics holds the whole /metrics of real control planes: 3.5 MB
	// on the demo server, 11.9 MB on a v1.37.2 with 200 CRDs, tens of MB in
	// production (it grows by about 50 KB per resource type); a read of a
	// few families (GetMetrics) is a few KB.
	LimitMetrics = 64 << 20
	// LimitDiscovery holds the aggregated discovery of thousands of
	// resource types (about 0.5 KB each).
	LimitDiscovery = 32 << 20
	// LimitError: a Status is a few KB, a proxy's error page tens of KB.
	LimitError = 256 << 10
)

// Limit is the cap of one body of kind k.
func (k BodyKind) Limit() int64 {
	switch k {
	case KindWatch:
		return LimitWatchFrame
	case KindList:
		return LimitListPage
	case KindObject:
		return LimitObject
	case KindVersion:
		return LimitVersion
	case KindMetrics:
		return LimitMetrics
	case KindError:
		return LimitError
	}
	return LimitDiscovery
}

// what a body of kind k is, in an error line.
func (k BodyKind) what() string {
	switch k {
	case KindWatch:
		return "one watch event"
	case KindList:
		return "one list page"
	case KindObject:
		return "one object"
	case KindVersion:
		return "a /version answer"
	case KindMetrics:
		return "a /metrics answer"
	case KindError:
		return "an error answer"
	}
	return "a discovery document"
}

// fix is what the user can do about a body of kind k over its limit.
func (k BodyKind) fix() string {
	const broken = "no real API server sends that much: check the kubeconfig's server address and any proxy in front of it"
	switch k {
	case KindList:
		return "a page that large comes from a limit too high, or from a list at resourceVersion=0, which a watch cache answers whole whatever the limit"
	case KindWatch, KindObject:
		return "client-go refuses an event that large too; " + broken
	case KindMetrics:
		return "the server's /metrics is larger than the plugin reads; " + broken
	}
	return broken
}

// BodyTooLargeError is a response body that went past the limit of its
// kind: the plugin stopped reading it. It is one class of failure
// (diagnose.FailureUnbounded, exit code 13) wherever it happens.
type BodyTooLargeError struct {
	Kind   BodyKind
	Method string
	// URL is the request, redacted.
	URL    string
	Status int
	Limit  int64
	// Headers: the answer's headers went past net/http's limit (1xx
	// answers included), before any body.
	Headers bool
}

func (e *BodyTooLargeError) Error() string {
	req := RequestName(e.Method, e.URL)
	var head string
	switch {
	case e.Headers:
		return fmt.Sprintf("the headers of the answer to %s went past %s, net/http's limit of an answer's headers (informational 1xx answers included): the plugin stopped reading them; no real API server sends that much: check the kubeconfig's server address and any proxy in front of it", req, Bytes(e.Limit))
	case e.Kind == KindWatch:
		head = "one event of the watch " + req
	case e.Kind == KindError && e.Status != 0:
		head = fmt.Sprintf("the error answer (%d %s) to %s", e.Status, http.StatusText(e.Status), req)
	default:
		head = "the answer to " + req
	}
	return fmt.Sprintf("%s went past %s, the limit of %s: the plugin stopped reading it; %s", head, Bytes(e.Limit), e.Kind.what(), e.Kind.fix())
}

// IsBodyTooLarge reports a *BodyTooLargeError in err's chain.
func IsBodyTooLarge(err error) bool {
	var big *BodyTooLargeError
	return errors.As(err, &big)
}

// Unbounded marks the error as an answer that broke one of the plugin's
// bounds (diagnose.FailureUnbounded).
func (e *BodyTooLargeError) Unbounded() bool { return true }

// Bytes formats a byte count as the plugin prints sizes: 512 B, 64 KiB,
// 16 MiB, 1.5 GiB.
func Bytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, suffix := float64(n), []string{"KiB", "MiB", "GiB", "TiB"}
	i := -1
	for v >= unit && i < len(suffix)-1 {
		v /= unit
		i++
	}
	if v == float64(int64(v)) {
		return fmt.Sprintf("%d %s", int64(v), suffix[i])
	}
	return fmt.Sprintf("%.1f %s", v, suffix[i])
}

// capBody is a response body read through its cap, and counted (its
// ledger entry, may be nil). A watch body is capped per frame: the event
// decoder says where each frame starts (StartFrame), and no frame may take
// more than the limit from there. Every other body is capped whole.
type capBody struct {
	rc    io.ReadCloser
	err   *BodyTooLargeError // the template of the error
	limit int64

	// n, base and fail belong to the reading goroutine (the decoder);
	// Close may come from another (a stall watchdog) and touches none.
	n     int64 // bytes read so far
	base  int64 // where the current frame starts (0 for a whole body)
	fail  error // sticky: once over, every read fails
	entry *entry
	probe [1]byte
	// req, sent at start (nil: a body not of a request): a read that
	// fails past its deadline says so (pastDeadline).
	req   *http.Request
	start time.Time
	// release ends what awaitAnswer set up for the request (nil: none).
	release func()
}

func newCapBody(rc io.ReadCloser, e *BodyTooLargeError, en *entry) *capBody {
	b := &capBody{rc: rc, err: e, limit: e.Kind.Limit(), entry: en}
	e.Limit = b.limit
	return b
}

// Read reads at most up to the cap. A body that ends exactly at the cap
// still ends cleanly: at the cap, one more byte is asked for, and only a
// byte that arrives is over.
func (b *capBody) Read(p []byte) (int, error) {
	if b.fail != nil {
		return 0, b.fail
	}
	if len(p) == 0 {
		return 0, nil
	}
	rem := b.base + b.limit - b.n
	over := rem <= 0
	if over {
		p = b.probe[:]
	} else if int64(len(p)) > rem {
		p = p[:rem]
	}
	n, err := b.rc.Read(p)
	if over && n > 0 {
		e := *b.err
		e.Limit = b.limit
		b.fail = &e
		b.entry.finish(b.fail)
		return 0, b.fail
	}
	b.n += int64(n)
	b.entry.add(int64(n))
	if err != nil && b.req != nil {
		// A break of the connection is said in one wording, with the
		// request and the bytes read (bodyCut), whoever reads the body.
		err = bodyCut(b.req, b.err.Kind, b.n, pastDeadline(http2Lost(refusedAnswer(err, false)), b.req, b.start, true))
	}
	if err != nil {
		b.entry.finish(err)
	}
	return n, err
}

// StartFrame says that the frame now being decoded starts at offset (the
// number of bytes of the body consumed before it, as json.Decoder's
// InputOffset counts them): the frame may take the limit from there.
func (b *capBody) StartFrame(offset int64) {
	b.base = offset
}

// Close closes the body and completes its ledger entry.
func (b *capBody) Close() error {
	err := b.rc.Close()
	b.entry.finish(nil)
	if b.release != nil {
		b.release()
	}
	return err
}

// FrameReader is a body whose cap counts per frame (a watch body).
type FrameReader interface {
	io.Reader
	StartFrame(offset int64)
}

// Frames returns body as a FrameReader: body itself when it came through
// the cap (every watch the plugin sends), or body capped here (a recorded
// stream read from a file). The decoder calls StartFrame before each event.
func Frames(body io.Reader, what string) FrameReader {
	if f, ok := body.(FrameReader); ok {
		return f
	}
	rc, ok := body.(io.ReadCloser)
	if !ok {
		rc = io.NopCloser(body)
	}
	return newCapBody(rc, &BodyTooLargeError{Kind: KindWatch, Method: "read", URL: what}, nil)
}

// kindKey carries the body kind of a request in its context: Client.Get
// knows what it asks for; a request without one (cli-runtime's discovery)
// is discovery, or /version.
type kindKey struct{}

func withKind(ctx context.Context, k BodyKind) context.Context {
	return context.WithValue(ctx, kindKey{}, k)
}

// kindOf is the body kind of the answer resp to req.
func kindOf(req *http.Request, status int) BodyKind {
	if status >= 300 {
		return KindError
	}
	if k, ok := req.Context().Value(kindKey{}).(BodyKind); ok {
		return k
	}
	switch q := req.URL.Query().Get("watch"); {
	case q == "1" || q == "true":
		return KindWatch
	case req.URL.Path == "/version":
		return KindVersion
	case req.URL.Path == "/metrics":
		return KindMetrics
	}
	return KindDiscovery
}
