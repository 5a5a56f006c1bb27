package framework

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// WatchFront is an HTTPS reverse proxy on loopback in front of a real API
// server that answers its watch requests (?watch=1) the way a test scripts
// them, for what no real server does on demand: an ERROR event of any
// code, a response held without headers, a stream ended at once with
// nothing, a stream cut in the middle of an event. Every other request
// (discovery, /version, /metrics, lists, gets) and every watch while no
// answer is set goes to the real server unchanged, so the plugin's checks
// before the watch and its relists read the real cluster.
type WatchFront struct {
	// URL is https://127.0.0.1:port; CAFile trusts its certificate.
	URL, CAFile string

	mu      sync.Mutex
	answer  WatchAnswer
	watches int
	// delay holds the body of the watches of delayed the real server
	// answers (Delay).
	delay   time.Duration
	delayed string
}

// WatchAnswer answers the n-th watch request (from 0) the front received.
type WatchAnswer func(w http.ResponseWriter, r *http.Request, n int)

// StartWatchFront starts a front for API server a, stopped when t ends.
// It speaks HTTP/1.1 (so that a cut can drop the connection itself).
func StartWatchFront(t testing.TB, a *APIServer) *WatchFront {
	t.Helper()
	api, err := url.Parse(a.URL)
	if err != nil {
		t.Fatal(err)
	}
	if !isLoopbackHostPort(api.Host) {
		t.Fatalf("watch front target %q is not on loopback", api.Host)
	}
	caPEM, err := os.ReadFile(a.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	proxy := httputil.NewSingleHostReverseProxy(api)
	proxy.FlushInterval = -1
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}
	proxy.Transport = tr
	f := &WatchFront{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Query().Get("watch") != "" {
			f.mu.Lock()
			answer, n, delay := f.answer, f.watches, f.delay
			if !strings.HasSuffix(req.URL.Path, "/"+f.delayed) {
				delay = 0
			}
			f.watches++
			f.mu.Unlock()
			if answer != nil {
				answer(w, req, n)
				return
			}
			if delay > 0 {
				w = &heldBody{ResponseWriter: w, delay: delay, ctx: req.Context()}
			}
		}
		req.Host = api.Host
		proxy.ServeHTTP(w, req)
	}))
	srv.StartTLS()
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
		tr.CloseIdleConnections()
	})
	f.URL = srv.URL
	f.CAFile = filepath.Join(t.TempDir(), "watch-front-ca.crt")
	if err := os.WriteFile(f.CAFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}

// Answer sets how the front answers watches from now on (nil: pass them
// to the real server).
func (f *WatchFront) Answer(a WatchAnswer) {
	f.mu.Lock()
	f.answer = a
	f.mu.Unlock()
}

// Delay makes the front pass every watch of resource (the last element
// of its path: "configmaps") to the real server and hold the body of its
// answer for d after sending its headers at once (0: no delay): a storage
// that accepts a watch and sends its 410 late, as a loaded etcd does on
// its next sync of unsynced watchers.
func (f *WatchFront) Delay(d time.Duration, resource string) {
	f.mu.Lock()
	f.delay, f.delayed = d, resource
	f.mu.Unlock()
}

// heldBody sends the headers at once and holds the first body bytes for
// delay (or until the request ends).
type heldBody struct {
	http.ResponseWriter
	delay time.Duration
	ctx   interface{ Done() <-chan struct{} }
	held  bool
}

func (h *heldBody) WriteHeader(code int) {
	h.ResponseWriter.WriteHeader(code)
	h.Flush()
}

func (h *heldBody) Write(b []byte) (int, error) {
	if !h.held {
		h.held = true
		t := time.NewTimer(h.delay)
		select {
		case <-t.C:
		case <-h.ctx.Done():
			t.Stop()
		}
	}
	return h.ResponseWriter.Write(b)
}

func (h *heldBody) Flush() {
	if fl, ok := h.ResponseWriter.(http.Flusher); ok {
		fl.Flush()
	}
}

// Watches is how many watch requests the front received.
func (f *WatchFront) Watches() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.watches
}

// Kubeconfig writes a kubeconfig for the front into c's directory, with
// the admin's token (the front passes it on to the real server).
func (f *WatchFront) Kubeconfig(t testing.TB, c *Cluster, name string) string {
	t.Helper()
	kc, err := c.WriteKubeconfigFor(name, f.URL, f.CAFile, AdminToken)
	if err != nil {
		t.Fatal(err)
	}
	return kc
}

// WatchStatus is the Status of a scripted ERROR event.
type WatchStatus struct {
	Code    int32
	Reason  string
	Message string
	// Cause, when set, is a status cause type (ResourceVersionTooLarge).
	Cause string
}

// ErrorEvent answers with a 200 stream of one ERROR event carrying st,
// then ends the stream, as an API server ends a watch after its ERROR.
func ErrorEvent(st WatchStatus) WatchAnswer {
	return func(w http.ResponseWriter, r *http.Request, _ int) {
		status := map[string]any{"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{},
			"status": "Failure", "message": st.Message, "reason": st.Reason, "code": st.Code}
		if st.Cause != "" {
			status["details"] = map[string]any{"causes": []map[string]any{{"reason": st.Cause, "message": st.Message}}, "retryAfterSeconds": 1}
		}
		line, err := json.Marshal(map[string]any{"type": "ERROR", "object": status})
		if err != nil {
			panic(err)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(append(line, '\n'))
	}
}

// RefuseWatch answers the watch request itself with HTTP status code and
// a Status of st (RBAC's 403, a 401, APF's 429 are sent so), no stream.
func RefuseWatch(st WatchStatus) WatchAnswer {
	return func(w http.ResponseWriter, r *http.Request, _ int) {
		body, err := json.Marshal(map[string]any{"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{},
			"status": "Failure", "message": st.Message, "reason": st.Reason, "code": st.Code})
		if err != nil {
			panic(err)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(int(st.Code))
		_, _ = w.Write(body)
	}
}

// EndWatchBefore answers 200 and ends the stream, with no event, early
// before the timeoutSeconds the watch asked for (a server's watch that
// ends a little before its time, as the watch cache may): what a --follow
// run meets right before its own --timeout.
func EndWatchBefore(early time.Duration) WatchAnswer {
	return func(w http.ResponseWriter, r *http.Request, _ int) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		secs, _ := strconv.Atoi(r.URL.Query().Get("timeoutSeconds"))
		t := time.NewTimer(time.Duration(secs)*time.Second - early)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
		}
	}
}

// HoldWatch never answers: no status line, no header, until the client
// gives up (a server or a proxy that hangs after accepting the request).
func HoldWatch() WatchAnswer {
	return func(_ http.ResponseWriter, r *http.Request, _ int) { <-r.Context().Done() }
}

// EmptyWatch answers 200 and ends the stream at once with no event.
func EmptyWatch() WatchAnswer {
	return func(w http.ResponseWriter, _ *http.Request, _ int) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
	}
}

// CutWatch answers 200, sends one whole ADDED event of a configmap (name,
// namespace, RV as given) and half of a second one, then drops the
// connection: a stream cut in the middle of an event.
func CutWatch(namespace, name, rv string) WatchAnswer {
	return func(w http.ResponseWriter, _ *http.Request, _ int) {
		ev := fmt.Sprintf(`{"type":"ADDED","object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":%q,"namespace":%q,"uid":"00000000-0000-0000-0000-0000000000cu","resourceVersion":%q}}}`, name, namespace, rv)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(ev + "\n" + ev[:len(ev)/2]))
		w.(http.Flusher).Flush()
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			_ = conn.Close()
		}
	}
}

// TrickleThenError answers 200 and sends a MODIFIED event of the
// configmap namespace/name at each of rvs, gap apart, then, gap later,
// an ERROR event carrying st, and ends the stream: a replay that pauses
// longer than a reader's silence bound before the error that fails it
// (found by an adversary: explain-error --check reads a watch until 1 s
// of silence and calls it working, where a raw watch shows the ERROR).
func TrickleThenError(namespace, name string, rvs []string, gap time.Duration, st WatchStatus) WatchAnswer {
	return func(w http.ResponseWriter, r *http.Request, _ int) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		fl, _ := w.(http.Flusher)
		pause := func() bool {
			select {
			case <-r.Context().Done():
				return false
			case <-time.After(gap):
				return true
			}
		}
		for i, rv := range rvs {
			if i > 0 && !pause() {
				return
			}
			_, _ = fmt.Fprintf(w, `{"type":"MODIFIED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":%q,"namespace":%q,"uid":"00000000-0000-0000-0000-0000000000tr","resourceVersion":%q}}}`+"\n", name, namespace, rv)
			if fl != nil {
				fl.Flush()
			}
		}
		if len(rvs) > 0 && !pause() {
			return
		}
		ErrorEvent(st)(noHeader{w}, r, 0)
	}
}

// noHeader is w with its header already written: ErrorEvent's own
// WriteHeader is dropped.
type noHeader struct{ http.ResponseWriter }

func (noHeader) WriteHeader(int) {}
