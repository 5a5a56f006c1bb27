package apiclient

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"

	"k8s.io/client-go/rest"
)

// DiscoveryOnce makes every discovery document of this run (GET /api,
// /apis, /api/V or /apis/G/V of one server) be sent once: asked for
// again, it is answered at once from what its one request got, whether
// that failed (no answer, an HTTP error, a body that broke or passed its
// cap, a redirect) or came whole. The plugin's layers never send it twice
// (net/http itself may, below them: a GET whose kept-alive connection was
// reset before any answer goes out again, each send counted in the
// ledger, Entry.Sent). client-go's discovery layers ask again by
// themselves: the memory cache once more for any 5xx, 429, reset or
// timeout, and every document again each time it is invalidated (as it is
// when another document failed: a 403 of /apis had the good /api sent 3
// times, adversary try 16, A6), the deferred mapper after a reset, the
// disk cache when not fresh, and the plugin's own look-ups read the same
// documents: each repeat of a hung or trickled document took its whole
// time bound again (adversary try 13: a trickled 500 on /api took 30 s
// for a 10 s bound, a hung /apis/apps/v1 was sent five times). One run,
// one try per document: a run's discovery takes at most one time bound
// per document it reads, and a document read whole is not read again.
// The documents are kept in memory for the run only (each within its cap,
// BodyKind.Limit), never on disk. A replay is no request: the ledger
// counts none.
func DiscoveryOnce(cfg *rest.Config, l *Ledger) *rest.Config {
	if l != nil {
		cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
			return &discoveryOnce{next: rt, docs: &l.documents}
		})
	}
	return cfg
}

// documents are the discovery documents of a run, by discoveryKey.
type documents struct {
	mu sync.Mutex
	m  map[string]*document
}

// get is the document of key that can answer req (nil: none, send it).
func (f *documents) get(key string, req *http.Request) *document {
	f.mu.Lock()
	defer f.mu.Unlock()
	d := f.m[key]
	if d == nil {
		d = f.plainJSON(key, req)
	}
	if d != nil && d.status == http.StatusNotModified && d.ifNoneMatch != req.Header.Get("If-None-Match") {
		// A 304 answers only the condition it was asked with.
		return nil
	}
	if d != nil && d.status == http.StatusUnauthorized && d.credentials != credentialsOf(req) {
		// A 401 answers only the credentials it was sent with: asked
		// with the ones a credential plugin gave since (its re-run
		// after that 401), the document is sent again (adversary try
		// 20 #1: the 401 was replayed to every ask, the new token never
		// sent).
		return nil
	}
	return d
}

// plainJSON is a whole document of key's path that came as plain
// application/json (the legacy, unaggregated form), for a req that
// accepts it: client-go's look-ups ask the same path with another Accept
// (cli-runtime's aggregated one, then the plain one of a suggestion), and
// a server that has no aggregated form answers both with the one
// document (adversary try 17: /api and /apis sent twice for a typo). An
// aggregated answer answers only its own Accept.
func (f *documents) plainJSON(key string, req *http.Request) *document {
	path, _, _ := strings.Cut(key, "\x00")
	if !strings.Contains(req.Header.Get("Accept"), "application/json") {
		return nil
	}
	for k, d := range f.m {
		if p, _, _ := strings.Cut(k, "\x00"); p != path || d.err != nil || d.bodyErr != nil || d.status != http.StatusOK {
			continue
		}
		if mt, params, err := mime.ParseMediaType(d.header.Get("Content-Type")); err == nil && mt == "application/json" && params["g"] == "" {
			return d
		}
	}
	return nil
}

// notJSON is the path of the one discovery document of the run that came
// whole with a 2xx (a 204 included) and is not JSON ("" when none is, or more than one
// path is): the one an answer that could not be read came from.
func (f *documents) notJSON() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	found := ""
	for k, d := range f.m {
		if d.err != nil || d.bodyErr != nil || d.status < 200 || d.status > 299 || json.Valid(d.body) {
			continue
		}
		p, _, _ := strings.Cut(k, "\x00")
		if _, path, ok := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(p, "https://"), "http://"), "/"); ok {
			p = "/" + path
		}
		if found != "" && found != p {
			return ""
		}
		found = p
	}
	return found
}

// put keeps d as the document of key: the first one, unless that was a
// 304 (a conditional answer, which a whole one replaces) or a 401 (an
// answer to other credentials).
func (f *documents) put(key string, d *document) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.m == nil {
		f.m = map[string]*document{}
	}
	if old := f.m[key]; old == nil || old.status == http.StatusNotModified || old.status == http.StatusUnauthorized {
		f.m[key] = d
	}
}

// document is what the one request of a document got: no answer (err), or
// a head (status, header) whose body is body, then bodyErr (nil: it
// ended). A 304's is the If-None-Match it answered; a 401's, the
// credentials it rejected (credentialsOf).
type document struct {
	err         error
	status      int
	header      http.Header
	body        []byte
	bodyErr     error
	ifNoneMatch string
	credentials [sha256.Size]byte
}

// credentialsOf names the credentials req carries (a digest of its
// Authorization header: the token is not kept twice).
func credentialsOf(req *http.Request) [sha256.Size]byte {
	return sha256.Sum256([]byte(req.Header.Get("Authorization")))
}

// answer is the document again, for req.
func (d *document) answer(req *http.Request) (*http.Response, error) {
	if d.err != nil {
		return nil, d.err
	}
	var body io.Reader = bytes.NewReader(d.body)
	if d.bodyErr != nil {
		body = io.MultiReader(body, errReader{d.bodyErr})
	}
	length := int64(-1)
	if d.bodyErr == nil {
		length = int64(len(d.body))
	}
	return &http.Response{
		Status: http.StatusText(d.status), StatusCode: d.status, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: d.header.Clone(), Body: io.NopCloser(body), ContentLength: length, Request: req,
	}, nil
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

type discoveryOnce struct {
	next http.RoundTripper
	docs *documents
}

func (d *discoveryOnce) WrappedRoundTripper() http.RoundTripper { return d.next }

func (d *discoveryOnce) RoundTrip(req *http.Request) (*http.Response, error) {
	key, ok := discoveryKey(req)
	if !ok {
		return d.next.RoundTrip(req)
	}
	if doc := d.docs.get(key, req); doc != nil {
		return doc.answer(req)
	}
	resp, err := d.next.RoundTrip(req)
	switch {
	case err != nil:
		d.docs.put(key, &document{err: err})
		return resp, err
	case resp.StatusCode >= 400:
		// The body of an error answer is read here: the meter's read of
		// it is bounded in time and size (asStatus), and it is small.
		body, berr := io.ReadAll(resp.Body)
		resp.Body.Close()
		// The credentials of the send that got it, which a wrapper
		// under this one may have sent again with others (reauth).
		sent := req
		if resp.Request != nil {
			sent = resp.Request
		}
		doc := &document{status: resp.StatusCode, header: resp.Header.Clone(), body: body, bodyErr: berr, credentials: credentialsOf(sent)}
		d.docs.put(key, doc)
		return doc.answer(req)
	}
	status, header := resp.StatusCode, resp.Header.Clone()
	inm := ""
	if status == http.StatusNotModified {
		inm = req.Header.Get("If-None-Match")
	}
	resp.Body = &documentRecorder{ReadCloser: resp.Body, keep: status < 300, done: func(body []byte, err error) {
		switch {
		case err != nil:
			d.docs.put(key, &document{status: status, header: header, bodyErr: err})
		case status < 300 || status == http.StatusNotModified:
			d.docs.put(key, &document{status: status, header: header, body: body, ifNoneMatch: inm})
		}
	}}
	return resp, nil
}

// documentRecorder tells done, once, how a document's body ended: read
// whole (err nil; body is what was read, when keep), or its first error
// other than its end (a cut, a stall past the time bound, the cap). A
// body closed before its end tells nothing: it is sent again when asked.
type documentRecorder struct {
	io.ReadCloser
	keep bool
	buf  bytes.Buffer
	done func(body []byte, err error)
	once sync.Once
}

func (b *documentRecorder) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if b.keep {
		b.buf.Write(p[:n])
	}
	if err != nil {
		b.once.Do(func() {
			b.keep = false // the document keeps the bytes read
			if err == io.EOF {
				b.done(b.buf.Bytes(), nil)
				return
			}
			b.done(nil, err)
		})
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
