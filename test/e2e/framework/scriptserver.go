package framework

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// ScriptAnswer is how a ScriptServer answers one path: a status, a
// content type and a body; or a body cut after Cut bytes of the length it
// announced (the connection closed); or a TCP reset (Reset: SO_LINGER 0,
// no answer at all; with Cut, after Cut bytes of the body: a reset
// mid-body); or no answer until the client goes (Hang). Written
// by the adversary of try 16 to reach what FaultServer's named faults do
// not: any answer at any path, and a count of what arrived. Head, when
// set, is the answer's head written as it is (the status line and header
// lines, without the blank line that ends them), then Body: what
// net/http's Server never writes (a header line with a control character,
// a status code that is no number, a chunked body whose framing is
// broken; adversary try 19 #3).
type ScriptAnswer struct {
	Code  int
	Type  string
	Body  string
	Cut   int
	Reset bool
	Hang  bool
	Head  string
	// Write, when set, writes the body as it goes, in place of Body: an
	// answer too large to hold in the test process (a child's peak memory
	// counts the test process's, up to its exec).
	Write func(io.Writer)
	// Delay holds the whole answer, its head included, this long: a
	// server that is slow to begin one (adversary try 20 #3: an
	// aggregated API answering a list after 90 s).
	Delay time.Duration
	// StartsFrom, when set, starts a watch from this resourceVersion or
	// above (200, then silence until the client goes) in place of the
	// answer: a watch cache refuses only an RV below its window, so a
	// server whose window starts at 50 and whose current RV is 100 never
	// refuses a watch from 100 (one that did would read as different
	// servers behind one address: pkg/probe rvorder).
	StartsFrom uint64
	// Replay, with StartsFrom, is the one event of the collection (at
	// ReplayRV) that a watch from below ReplayRV is sent first, as a
	// watch cache replays what came after the RV it starts from.
	Replay   string
	ReplayRV uint64
}

// ScriptServer is an HTTP/1 server on 127.0.0.1 that answers each path
// (without its query; "PATH?watch" for a watch of it) from its script,
// the others from a small API server's discovery, /version and a 403
// /metrics, and counts the requests that reached it per path.
type ScriptServer struct {
	srv    *http.Server
	ln     net.Listener
	script map[string]ScriptAnswer
	asked  sync.Map // path -> *atomic.Int64
	// requests is every request's path and query, in order.
	requestsMu sync.Mutex
	requests   []string
	// answer, when set, answers a request before the script does (true:
	// it did): an answer that depends on the request (rvserver.go).
	answer func(w http.ResponseWriter, r *http.Request) bool
}

// ScriptDefaults are the answers of a ScriptServer where its script has
// none: discovery of configmaps (v1) and deployments (apps/v1), a
// /version, a 403 /metrics, a list of one configmap at RV 100, watches
// from below RV 50 refused with 410 (from 50 on, started and silent).
func ScriptDefaults() map[string]ScriptAnswer {
	j := func(body string) ScriptAnswer { return ScriptAnswer{Code: 200, Type: "application/json", Body: body} }
	// A watch is refused as a watch cache refuses one from an RV below
	// its window: an ERROR 410 event that names the oldest RV.
	expired := j(`{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (50)","reason":"Expired","code":410}}` + "\n")
	expired.StartsFrom = 50
	all := map[string]ScriptAnswer{
		"/api":                                  j(faultAPIVersions),
		"/apis":                                 j(`{"kind":"APIGroupList","apiVersion":"v1","groups":[{"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}}]}`),
		"/api/v1":                               j(`{"kind":"APIResourceList","groupVersion":"v1","resources":[{"name":"configmaps","singularName":"configmap","namespaced":true,"kind":"ConfigMap","verbs":["get","list","watch"],"shortNames":["cm"]}]}`),
		"/apis/apps/v1":                         j(`{"kind":"APIResourceList","groupVersion":"apps/v1","resources":[{"name":"deployments","singularName":"deployment","namespaced":true,"kind":"Deployment","verbs":["get","list","watch"],"shortNames":["deploy"]}]}`),
		"/version":                              j(faultVersion),
		"/metrics":                              {Code: 403, Type: "application/json", Body: `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"forbidden","reason":"Forbidden","code":403}`},
		"/api/v1/namespaces/default/configmaps": j(`{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"100"},"items":[` + faultItem + `]}`),
		"/apis/apps/v1/namespaces/default/deployments": j(`{"kind":"DeploymentList","apiVersion":"apps/v1","metadata":{"resourceVersion":"100"},"items":[]}`),
		"/api/v1/configmaps":                           j(`{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"100"},"items":[` + faultItem + `]}`),
		"/apis/apps/v1/deployments":                    j(`{"kind":"DeploymentList","apiVersion":"apps/v1","metadata":{"resourceVersion":"100"},"items":[]}`),
	}
	for p := range all {
		switch {
		case strings.HasSuffix(p, "/configmaps"):
			// The list's one configmap (RV 99) is replayed to a watch
			// from below it.
			w := expired
			w.Replay = `{"type":"MODIFIED","object":{"kind":"ConfigMap","apiVersion":"v1",` + strings.TrimPrefix(faultItem, "{") + "}\n"
			w.ReplayRV = 99
			all[p+"?watch"] = w
		case strings.HasSuffix(p, "/deployments"):
			all[p+"?watch"] = expired
		}
	}
	return all
}

// StartScriptServer starts a server whose answers are ScriptDefaults with
// script over them.
func StartScriptServer(script map[string]ScriptAnswer) (*ScriptServer, error) {
	return startScript(script, nil)
}

func startScript(script map[string]ScriptAnswer, answer func(w http.ResponseWriter, r *http.Request) bool) (*ScriptServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	all := ScriptDefaults()
	for p, a := range script {
		all[p] = a
	}
	s := &ScriptServer{ln: ln, script: all, answer: answer}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// Asked is how many requests of path (without its query) reached the
// server.
func (s *ScriptServer) Asked(path string) int64 {
	if n, ok := s.asked.Load(path); ok {
		return n.(*atomic.Int64).Load()
	}
	return 0
}

// AskedPaths is every path (without its query) that requests reached,
// with how many did.
func (s *ScriptServer) AskedPaths() map[string]int64 {
	out := map[string]int64{}
	s.asked.Range(func(p, n any) bool {
		out[p.(string)] = n.(*atomic.Int64).Load()
		return true
	})
	return out
}

// AskedRequests is every request that reached the server, in order, as
// its path, "?" and its raw query: which request was sent, not only where.
func (s *ScriptServer) AskedRequests() []string {
	s.requestsMu.Lock()
	defer s.requestsMu.Unlock()
	return append([]string(nil), s.requests...)
}

// URL is the server's address.
func (s *ScriptServer) URL() string { return "http://" + s.ln.Addr().String() }

// Close stops the server.
func (s *ScriptServer) Close() { _ = s.srv.Close() }

// Kubeconfig writes a kubeconfig for the server into dir.
func (s *ScriptServer) Kubeconfig(dir string) (string, error) {
	p := filepath.Join(dir, "script.kubeconfig")
	cfg := fmt.Sprintf("apiVersion: v1\nkind: Config\nclusters:\n- name: script\n  cluster:\n    server: %s\ncontexts:\n- name: script\n  context:\n    cluster: script\n    user: script\n    namespace: default\ncurrent-context: script\nusers:\n- name: script\n  user:\n    token: script-token\n", s.URL())
	return p, os.WriteFile(p, []byte(cfg), 0o600)
}

func (s *ScriptServer) serve(w http.ResponseWriter, r *http.Request) {
	n, _ := s.asked.LoadOrStore(r.URL.Path, new(atomic.Int64))
	n.(*atomic.Int64).Add(1)
	s.requestsMu.Lock()
	s.requests = append(s.requests, r.URL.Path+"?"+r.URL.RawQuery)
	s.requestsMu.Unlock()
	if s.answer != nil && s.answer(w, r) {
		return
	}
	key := r.URL.Path
	if r.URL.Query().Get("watch") != "" {
		key += "?watch"
	}
	a, ok := s.script[key]
	if !ok {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(404)
		_, _ = io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`)
		return
	}
	writeScriptAnswer(w, r, a)
}

// writeScriptAnswer answers r as a says.
func writeScriptAnswer(w http.ResponseWriter, r *http.Request, a ScriptAnswer) {
	if a.Delay > 0 {
		select {
		case <-time.After(a.Delay):
		case <-r.Context().Done():
			return
		}
	}
	if a.StartsFrom > 0 && r.URL.Query().Get("watch") != "" {
		if from, err := strconv.ParseUint(r.URL.Query().Get("resourceVersion"), 10, 64); err == nil && from >= a.StartsFrom {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(200)
			if from < a.ReplayRV {
				_, _ = io.WriteString(w, a.Replay)
			}
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			return
		}
	}
	switch {
	case a.Reset && a.Cut > 0 && a.Cut < len(a.Body):
		// The head and Cut bytes of the body, then a reset (RST): the
		// bytes are given time to be read first, as a reset that comes
		// with them may drop them at the client.
		if a.Type != "" {
			w.Header().Set("Content-Type", a.Type)
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(a.Body)))
		w.WriteHeader(a.Code)
		_, _ = io.WriteString(w, a.Body[:a.Cut])
		w.(http.Flusher).Flush()
		if c, _, err := w.(http.Hijacker).Hijack(); err == nil {
			time.Sleep(200 * time.Millisecond)
			if tc, ok := c.(*net.TCPConn); ok {
				_ = tc.SetLinger(0)
			}
			_ = c.Close()
		}
		return
	case a.Reset:
		if c, _, err := w.(http.Hijacker).Hijack(); err == nil {
			if tc, ok := c.(*net.TCPConn); ok {
				_ = tc.SetLinger(0)
			}
			_ = c.Close()
		}
		return
	case a.Hang:
		<-r.Context().Done()
		return
	case a.Head != "":
		if c, bw, err := w.(http.Hijacker).Hijack(); err == nil {
			_, _ = fmt.Fprintf(bw, "%s\r\nConnection: close\r\n\r\n%s", a.Head, a.Body)
			_ = bw.Flush()
			_ = c.Close()
		}
		return
	}
	if a.Type != "" {
		w.Header().Set("Content-Type", a.Type)
	}
	if a.Cut > 0 && a.Cut < len(a.Body) {
		w.Header().Set("Content-Length", strconv.Itoa(len(a.Body)))
		w.WriteHeader(a.Code)
		_, _ = io.WriteString(w, a.Body[:a.Cut])
		w.(http.Flusher).Flush()
		if c, _, err := w.(http.Hijacker).Hijack(); err == nil {
			_ = c.Close()
		}
		return
	}
	w.WriteHeader(a.Code)
	if a.Write != nil {
		a.Write(w)
		return
	}
	_, _ = io.WriteString(w, a.Body)
}

// ServeScript starts a ScriptServer of script for t (closed when t ends)
// and writes its kubeconfig: what every test of a scripted answer does
// first.
func ServeScript(t testing.TB, script map[string]ScriptAnswer) (*ScriptServer, string) {
	t.Helper()
	return serveWith(t, script, nil)
}

// Host is the server's host:port, as --endpoints takes it.
func (s *ScriptServer) Host() string { return s.ln.Addr().String() }

// ServeScriptPages is ServeScript with the list of path answered page by
// page: pages[0] to a request without a continue token, pages[i] to
// continue=i (each page's body carries the token of the next, "1", "2",
// ...): an answer of several pages, which one path's script cannot give.
func ServeScriptPages(t testing.TB, path string, pages []string, script map[string]ScriptAnswer) (*ScriptServer, string) {
	t.Helper()
	answers := make([]ScriptAnswer, len(pages))
	for i, p := range pages {
		answers[i] = ScriptAnswer{Code: 200, Type: "application/json", Body: p}
	}
	return ServeScriptPageAnswers(t, path, answers, script)
}

// ServeScriptPageAnswers is ServeScriptPages with each page's answer a
// ScriptAnswer: a page that fails (an error status, no answer until the
// client goes) after pages that were answered.
func ServeScriptPageAnswers(t testing.TB, path string, pages []ScriptAnswer, script map[string]ScriptAnswer) (*ScriptServer, string) {
	t.Helper()
	answer := func(w http.ResponseWriter, r *http.Request) bool {
		q := r.URL.Query()
		if r.URL.Path != path || q.Get("watch") != "" {
			return false
		}
		i, err := strconv.Atoi(q.Get("continue"))
		if q.Get("continue") == "" {
			i, err = 0, nil
		}
		if err != nil || i < 0 || i >= len(pages) {
			w.WriteHeader(410)
			_, _ = io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"no such continue token","reason":"Expired","code":410}`)
			return true
		}
		writeScriptAnswer(w, r, pages[i])
		return true
	}
	return serveWith(t, script, answer)
}

// serveWith starts a script server that answers first with answer (when
// not nil), closed when t ends, and writes its kubeconfig.
func serveWith(t testing.TB, script map[string]ScriptAnswer, answer func(w http.ResponseWriter, r *http.Request) bool) (*ScriptServer, string) {
	t.Helper()
	s, err := startScript(script, answer)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	kc, err := s.Kubeconfig(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return s, kc
}
