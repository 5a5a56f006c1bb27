package framework

import (
	"bufio"
	"context"
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
	"sync"
	"time"
)

// StreamEvent is one watch event as the front rewrites it: its type and
// its object, decoded (metadata and all) from what the real server sent.
type StreamEvent struct {
	Type   string         `json:"type"`
	Object map[string]any `json:"object"`
}

// Name is the event object's metadata.name.
func (e StreamEvent) Name() string {
	m, _ := e.Object["metadata"].(map[string]any)
	n, _ := m["name"].(string)
	return n
}

// As is a copy of e with another type.
func (e StreamEvent) As(typ string) StreamEvent {
	return StreamEvent{Type: typ, Object: e.Object}
}

// Renamed is a copy of e whose object has another name (and no UID of
// the original): an object the collection does not hold.
func (e StreamEvent) Renamed(name string) StreamEvent {
	b, _ := json.Marshal(e.Object)
	var o map[string]any
	_ = json.Unmarshal(b, &o)
	if m, ok := o["metadata"].(map[string]any); ok {
		m["name"] = name
		m["uid"] = "00000000-0000-0000-0000-" + fmt.Sprintf("%012d", len(name))
	}
	return StreamEvent{Type: e.Type, Object: o}
}

// StreamFront is an HTTPS reverse proxy on loopback in front of a real API
// server. It passes every request through, except the streaming lists
// (watch with sendInitialEvents=true) of one collection: those it answers
// itself, either with a refusal (Refuse) or with the real server's own
// streaming list of that collection, read through up to its
// initial-events-end bookmark and rewritten by a script (Script): the
// sequences no real server sends (an object sent twice, a deleted one, a
// bookmark first), made of the objects the server really holds.
type StreamFront struct {
	URL    string
	CAFile string

	api    *url.URL
	client *http.Client

	mu     sync.Mutex
	path   string
	script func([]StreamEvent) []StreamEvent
	status int
	body   string
}

// StartStreamFront starts a front for a; it stops with the test.
func StartStreamFront(t interface {
	Helper()
	Fatal(...any)
	Cleanup(func())
	TempDir() string
}, a *APIServer) *StreamFront {
	t.Helper()
	api, err := url.Parse(a.URL)
	if err != nil {
		t.Fatal(err)
	}
	caPEM, err := os.ReadFile(a.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}
	f := &StreamFront{api: api, client: &http.Client{Transport: tr}}
	proxy := httputil.NewSingleHostReverseProxy(api)
	proxy.FlushInterval = -1
	proxy.Transport = tr
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if f.answers(req) {
			f.serveStream(w, req)
			return
		}
		req.Host = api.Host
		proxy.ServeHTTP(w, req)
	}))
	srv.StartTLS()
	t.Cleanup(srv.Close)
	f.URL = srv.URL
	f.CAFile = filepath.Join(t.TempDir(), "stream-front-ca.crt")
	if err := os.WriteFile(f.CAFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}

// Script makes the front rewrite the streaming lists of path (a
// collection path, e.g. /api/v1/namespaces/x/configmaps).
func (f *StreamFront) Script(path string, script func([]StreamEvent) []StreamEvent) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.path, f.script, f.status, f.body = path, script, 0, ""
}

// Refuse makes the front answer the streaming lists of path with an error
// status and a Status body of that code, reason and message.
func (f *StreamFront) Refuse(path string, code int, reason, message string) {
	b, _ := json.Marshal(map[string]any{"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{},
		"status": "Failure", "message": message, "reason": reason, "code": code})
	f.mu.Lock()
	defer f.mu.Unlock()
	f.path, f.script, f.status, f.body = path, nil, code, string(b)
}

func (f *StreamFront) answers(req *http.Request) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	q := req.URL.Query()
	return f.path != "" && req.URL.Path == f.path && q.Get("watch") != "" && q.Get("sendInitialEvents") == "true"
}

func (f *StreamFront) serveStream(w http.ResponseWriter, req *http.Request) {
	f.mu.Lock()
	script, status, body := f.script, f.status, f.body
	f.mu.Unlock()
	if status != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
		return
	}
	events, err := f.realInitialEvents(req)
	if err != nil {
		http.Error(w, "stream front: "+err.Error(), http.StatusBadGateway)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	enc := json.NewEncoder(w)
	for _, e := range script(events) {
		if err := enc.Encode(e); err != nil {
			return
		}
	}
	if fl, ok := w.(http.Flusher); ok {
		fl.Flush()
	}
	// Held open, as a watch is, until the client goes (or 30 s).
	select {
	case <-req.Context().Done():
	case <-time.After(30 * time.Second):
	}
}

// realInitialEvents sends the same request to the real server, with the
// client's credentials, and reads its events up to the bookmark.
func (f *StreamFront) realInitialEvents(in *http.Request) ([]StreamEvent, error) {
	ctx, cancel := context.WithTimeout(in.Context(), 20*time.Second)
	defer cancel()
	u := *f.api
	u.Path, u.RawQuery = in.URL.Path, in.URL.RawQuery
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	for _, h := range []string{"Authorization", "Accept", "User-Agent"} {
		req.Header.Set(h, in.Header.Get(h))
	}
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("the real server answered %s", resp.Status)
	}
	dec := json.NewDecoder(bufio.NewReader(resp.Body))
	var out []StreamEvent
	for len(out) < 10000 {
		var e StreamEvent
		if err := dec.Decode(&e); err != nil {
			return nil, fmt.Errorf("after %d events: %w", len(out), err)
		}
		out = append(out, e)
		if m, ok := e.Object["metadata"].(map[string]any); ok && e.Type == "BOOKMARK" {
			if a, ok := m["annotations"].(map[string]any); ok && a["k8s.io/initial-events-end"] == "true" {
				return out, nil
			}
		}
	}
	return nil, fmt.Errorf("no initial-events-end bookmark in %d events", len(out))
}
