package apiclient

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"sync"

	"k8s.io/client-go/rest"
)

// DiscoveryOnce makes every discovery document that failed in this run
// (GET /api, /apis, /api/V or /apis/G/V of one server: no answer, an HTTP
// error, a body that broke or passed its cap, a redirect) fail again at
// once when it is asked for again, from what the first request got: the
// plugin's layers never send it twice (net/http itself may, below them: a
// GET whose kept-alive connection was reset before any answer goes out
// again, each send counted in the ledger, Entry.Sent). client-go's
// discovery layers ask again by
// themselves: the memory cache once more for any 5xx, 429, reset or
// timeout, the deferred mapper after a reset, the disk cache when not
// fresh, and the plugin's own look-ups read the same documents: each
// repeat of a hung or trickled document took its whole time bound again
// (adversary try 13: a trickled 500 on /api took 30 s for a 10 s bound,
// a hung /apis/apps/v1 was sent five times). One run, one try per
// document: a run's discovery takes at most one time bound per document
// it reads. A replay is no request: the ledger counts none.
func DiscoveryOnce(cfg *rest.Config, l *Ledger) *rest.Config {
	if l != nil {
		cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
			return &discoveryOnce{next: rt, failed: &l.failedDocuments}
		})
	}
	return cfg
}

// failedDocuments are the discovery documents of a run that failed, by
// discoveryKey.
type failedDocuments struct {
	mu sync.Mutex
	m  map[string]*failedDocument
}

func (f *failedDocuments) get(key string) *failedDocument {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.m[key]
}

func (f *failedDocuments) put(key string, d *failedDocument) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.m == nil {
		f.m = map[string]*failedDocument{}
	}
	if f.m[key] == nil {
		f.m[key] = d
	}
}

// failedDocument is what the one request of a failed document got: no
// answer (err), or a head (status, header) whose body is body, then
// bodyErr (nil: it ended).
type failedDocument struct {
	err     error
	status  int
	header  http.Header
	body    []byte
	bodyErr error
}

// answer is the failure again, for req.
func (d *failedDocument) answer(req *http.Request) (*http.Response, error) {
	if d.err != nil {
		return nil, d.err
	}
	var body io.Reader = bytes.NewReader(d.body)
	if d.bodyErr != nil {
		body = io.MultiReader(body, errReader{d.bodyErr})
	}
	return &http.Response{
		Status: http.StatusText(d.status), StatusCode: d.status, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: d.header.Clone(), Body: io.NopCloser(body), ContentLength: -1, Request: req,
	}, nil
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

type discoveryOnce struct {
	next   http.RoundTripper
	failed *failedDocuments
}

func (d *discoveryOnce) WrappedRoundTripper() http.RoundTripper { return d.next }

func (d *discoveryOnce) RoundTrip(req *http.Request) (*http.Response, error) {
	key, ok := discoveryKey(req)
	if !ok {
		return d.next.RoundTrip(req)
	}
	if f := d.failed.get(key); f != nil {
		return f.answer(req)
	}
	resp, err := d.next.RoundTrip(req)
	switch {
	case err != nil:
		d.failed.put(key, &failedDocument{err: err})
		return resp, err
	case resp.StatusCode >= 400:
		// The body of an error answer is read here: the meter's read of
		// it is bounded in time and size (asStatus), and it is small.
		body, berr := io.ReadAll(resp.Body)
		resp.Body.Close()
		f := &failedDocument{status: resp.StatusCode, header: resp.Header.Clone(), body: body, bodyErr: berr}
		d.failed.put(key, f)
		return f.answer(req)
	}
	resp.Body = &breakRecorder{ReadCloser: resp.Body, broke: func(err error) {
		d.failed.put(key, &failedDocument{status: resp.StatusCode, header: resp.Header.Clone(), bodyErr: err})
	}}
	return resp, nil
}

// breakRecorder tells broke of the first error of a body other than its
// end (a cut, a stall past the time bound, the cap).
type breakRecorder struct {
	io.ReadCloser
	broke func(error)
	once  sync.Once
}

func (b *breakRecorder) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		b.once.Do(func() { b.broke(err) })
	}
	return n, err
}

// discoveryKey is the key of a discovery document request (a GET of /api,
// /apis, /api/V or /apis/G/V): the server, the path and what was
// accepted (aggregated discovery asks for another document at the same
// path); ok is false for any other request.
func discoveryKey(req *http.Request) (string, bool) {
	if req.Method != http.MethodGet {
		return "", false
	}
	p := req.URL.Path
	parts := strings.Split(strings.Trim(p, "/"), "/")
	switch {
	case p == "/api" || p == "/apis":
	case len(parts) == 2 && parts[0] == "api":
	case len(parts) == 3 && parts[0] == "apis":
	default:
		return "", false
	}
	return req.URL.Scheme + "://" + req.URL.Host + p + "\x00" + req.Header.Get("Accept"), true
}
