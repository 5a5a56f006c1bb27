package framework

import (
	"context"
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
	"time"
)

// Fault is the one hostile answer of a FaultServer: what no real API
// server sends, so that the plugin's bounds (its body cap, its timeouts,
// the end of a paged walk) are tried where a real server cannot try them.
type Fault string

// Faults.
const (
	// FaultEndlessWatch: every watch is one chunked event that never ends
	// and has no newline.
	FaultEndlessWatch Fault = "endless-watch"
	// FaultEndlessList: every list page is a JSON list whose items never end.
	FaultEndlessList Fault = "endless-list"
	// FaultEndlessVersion: /version never ends.
	FaultEndlessVersion Fault = "endless-version"
	// FaultEndlessMetrics: /metrics is a valid text whose samples never end.
	FaultEndlessMetrics Fault = "endless-metrics"
	// FaultEndlessError: every list and watch is a 500 whose Status never ends.
	FaultEndlessError Fault = "endless-error"
	// FaultEndlessDiscovery: /api never ends.
	FaultEndlessDiscovery Fault = "endless-discovery"
	// FaultTrickleList: every list page comes one byte every 100 ms, for ever.
	FaultTrickleList Fault = "trickle-list"
	// FaultTrickleWatch: every watch sends one event one byte every 100 ms,
	// for ever.
	FaultTrickleWatch Fault = "trickle-watch"
	// FaultRepeatContinue: every list page carries the same continue token.
	FaultRepeatContinue Fault = "repeat-continue"
	// FaultServerError: every list and /metrics is a 500 InternalError of
	// one short message ("boom"), every watch a 503 whose Status has no
	// reason: what a failing server or a proxy in front of it answers.
	FaultServerError Fault = "server-error"
)

// FaultCodeless is the fault whose every list and watch is answered with
// HTTP status code and a Status that has neither a code nor a reason, only
// the message "boom from server": what a proxy or an aggregated server
// that builds its own Status may send. The plugin must classify it by the
// HTTP status (client-go by itself reads the Status's code 0).
func FaultCodeless(code int) Fault { return Fault("codeless-" + strconv.Itoa(code)) }

// FaultHTMLError is the fault whose every list, watch and /version is
// answered with HTTP status code and a page of HTML, no Status: what a
// proxy or a load balancer in front of the API server answers. client-go by
// itself invents a reason and a message for it and drops the page's.
func FaultHTMLError(code int) Fault { return Fault("html-" + strconv.Itoa(code)) }

const (
	// FaultUnreadable: every list and watch is a 200 of JSON that does
	// not decode, and /metrics a text whose sample 1e400 does not parse.
	FaultUnreadable Fault = "unreadable"
	// FaultHugeMessage: every list and watch is a 500 Status whose
	// message is 200 KB of words (within the error body cap): no printed
	// line may carry it.
	FaultHugeMessage Fault = "huge-message"
)

// codeless is the HTTP status of a FaultCodeless server, 0 for any other.
func (s *FaultServer) codeless() int { return s.faultCode("codeless-") }

// htmlError is the HTTP status of a FaultHTMLError server, 0 for any other.
func (s *FaultServer) htmlError() int { return s.faultCode("html-") }

func (s *FaultServer) faultCode(prefix string) int {
	rest, ok := strings.CutPrefix(string(s.Fault), prefix)
	if !ok {
		return 0
	}
	n, _ := strconv.Atoi(rest)
	return n
}

// faultHTML is FaultHTMLError's page.
const faultHTML = "<html><body><h1>boom from the proxy</h1>\n</body></html>\n"

// faultCodelessStatus is FaultCodeless's answer.
const faultCodelessStatus = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"boom from server"}`

// FaultServer answers on loopback (plain http) as an API server does as
// far as the plugin asks (discovery of configmaps, /version, a list of one
// object, a quiet watch), except for its one Fault. Its answers are made
// up: it stands for a broken server or a hostile proxy, not for a real
// API server.
type FaultServer struct {
	Fault Fault
	srv   *http.Server
	ln    net.Listener
	// Requests counts the requests answered; Sent the bytes written.
	Requests, Sent atomic.Int64
	stop           chan struct{}
	asked          sync.Map // path -> *atomic.Int64
}

// Asked is how many requests of path (without its query) came.
func (s *FaultServer) Asked(path string) int64 {
	if n, ok := s.asked.Load(path); ok {
		return n.(*atomic.Int64).Load()
	}
	return 0
}

// StartFaultServer starts a fault server on 127.0.0.1.
func StartFaultServer(f Fault) (*FaultServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &FaultServer{Fault: f, ln: ln, stop: make(chan struct{})}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// URL is the server's address.
func (s *FaultServer) URL() string { return "http://" + s.ln.Addr().String() }

// Close stops the server and every endless answer.
func (s *FaultServer) Close() {
	close(s.stop)
	_ = s.srv.Close()
}

// Kubeconfig writes a kubeconfig for the server into dir.
func (s *FaultServer) Kubeconfig(dir string) (string, error) {
	p := filepath.Join(dir, "fault-"+string(s.Fault)+".kubeconfig")
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: fault
  cluster:
    server: %s
contexts:
- name: fault
  context:
    cluster: fault
    user: fault
    namespace: default
current-context: fault
users:
- name: fault
  user:
    token: fault-token
`, s.URL())
	return p, os.WriteFile(p, []byte(cfg), 0o600)
}

const (
	faultAPIVersions = `{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":"127.0.0.1:6443"}]}`
	faultAPIGroups   = `{"kind":"APIGroupList","apiVersion":"v1","groups":[]}`
	faultCoreV1      = `{"kind":"APIResourceList","groupVersion":"v1","resources":[{"name":"configmaps","singularName":"configmap","namespaced":true,"kind":"ConfigMap","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["cm"]}]}`
	faultVersion     = `{"major":"1","minor":"37","gitVersion":"v1.37.2","platform":"linux/amd64"}`
	faultItem        = `{"metadata":{"name":"a","namespace":"default","uid":"4b5f3c1e-0000-4000-8000-000000000001","resourceVersion":"99","creationTimestamp":"2026-01-01T00:00:00Z"}}`
)

func (s *FaultServer) serve(w http.ResponseWriter, r *http.Request) {
	s.Requests.Add(1)
	n, _ := s.asked.LoadOrStore(r.URL.Path, new(atomic.Int64))
	n.(*atomic.Int64).Add(1)
	watch := r.URL.Query().Get("watch") != ""
	if s.boundFault(w, r, watch) || s.oddAnswer(w, r, watch) {
		return
	}
	switch p := r.URL.Path; {
	case p == "/api" && s.Fault == FaultEndlessDiscovery:
		s.endless(w, r, 200, `{"kind":"APIVersions","versions":["`, "v1v1v1v1")
	case p == "/api":
		s.json(w, 200, faultAPIVersions)
	case p == "/apis":
		s.json(w, 200, faultAPIGroups)
	case p == "/api/v1":
		s.json(w, 200, faultCoreV1)
	case s.htmlError() != 0 && (p == "/version" || strings.HasSuffix(p, "/configmaps")):
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(s.htmlError())
		n, _ := io.WriteString(w, faultHTML)
		s.Sent.Add(int64(n))
	case p == "/version" && s.Fault == FaultEndlessVersion:
		s.endless(w, r, 200, `{"major":"1","minor":"37","gitVersion":"`, "v1.37.2")
	case p == "/version":
		s.json(w, 200, faultVersion)
	case s.Fault == FaultUnreadable && p == "/metrics":
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		w.WriteHeader(200)
		_, _ = io.WriteString(w, "# TYPE apiserver_longrunning_requests gauge\napiserver_longrunning_requests{resource=\"configmaps\",verb=\"WATCH\"} 1e400\n")
	case p == "/metrics" && s.Fault == FaultEndlessMetrics:
		s.endlessMetrics(w, r)
	case p == "/metrics" && s.Fault == FaultServerError:
		s.json(w, 500, faultBoom)
	case p == "/metrics":
		s.json(w, 403, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"forbidden: User \"fault\" cannot get path \"/metrics\"","reason":"Forbidden","code":403}`)
	case !strings.HasSuffix(p, "/configmaps"):
		s.json(w, 404, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","code":404}`)
	case s.Fault == FaultUnreadable && strings.HasSuffix(p, "/configmaps"):
		s.json(w, 200, `{"kind":"ConfigMapList","apiVersion":"v1","items":[}`)
	case s.Fault == FaultHugeMessage:
		s.json(w, 500, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"InternalError","code":500,"message":"`+strings.Repeat("boom from server ", 200<<10/17)+`"}`)
	case s.codeless() != 0:
		s.json(w, s.codeless(), faultCodelessStatus)
	case s.Fault == FaultEndlessError:
		s.endless(w, r, 500, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"`, "internal error ")
	case s.Fault == FaultServerError && watch:
		s.json(w, 503, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"busy","code":503}`)
	case s.Fault == FaultServerError:
		s.json(w, 500, faultBoom)
	case watch:
		s.watch(w, r)
	default:
		s.list(w, r)
	}
}

// faultBoom is FaultServerError's 500: a message that names nothing.
const faultBoom = `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"boom","reason":"InternalError","code":500}`

func (s *FaultServer) list(w http.ResponseWriter, r *http.Request) {
	head := `{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"100"%s},"items":[`
	switch s.Fault {
	case FaultEndlessList:
		s.endless(w, r, 200, fmt.Sprintf(head, ""), faultItem+",")
	case FaultTrickleList:
		s.trickle(w, r, 200, fmt.Sprintf(head, "")+faultItem+",")
	case FaultRepeatContinue:
		s.json(w, 200, fmt.Sprintf(head, `,"continue":"eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MTAwLCJzdGFydCI6ImEifQ"`)+faultItem+"]}")
	default:
		// An exact list is answered at the RV it asks for, as a real
		// API server's is (empty: the one object is written at RV 99).
		q := r.URL.Query()
		if rv, err := strconv.ParseUint(q.Get("resourceVersion"), 10, 64); err == nil && q.Get("resourceVersionMatch") == "Exact" && rv < 99 {
			s.json(w, 200, strings.Replace(fmt.Sprintf(head, ""), `"100"`, strconv.Quote(strconv.FormatUint(rv, 10)), 1)+"]}")
			return
		}
		s.json(w, 200, fmt.Sprintf(head, "")+faultItem+"]}")
	}
}

func (s *FaultServer) watch(w http.ResponseWriter, r *http.Request) {
	switch s.Fault {
	case FaultEndlessWatch:
		s.endless(w, r, 200, `{"type":"ADDED","object":{"metadata":{"name":"`, strings.Repeat("a", 4096))
	case FaultTrickleWatch:
		s.trickle(w, r, 200, `{"type":"ADDED","object":`)
	default:
		// A quiet watch: headers, then nothing until the client goes.
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		s.wait(r.Context(), time.Hour)
	}
}

func (s *FaultServer) json(w http.ResponseWriter, code int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	n, _ := io.WriteString(w, body)
	s.Sent.Add(int64(n))
}

// endless writes head, then chunk again and again until the client goes.
func (s *FaultServer) endless(w http.ResponseWriter, r *http.Request, code int, head, chunk string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	block := []byte(strings.Repeat(chunk, max(1, (32<<10)/len(chunk))))
	if _, err := io.WriteString(w, head); err != nil {
		return
	}
	for r.Context().Err() == nil && !s.stopped() {
		n, err := w.Write(block)
		s.Sent.Add(int64(n))
		if err != nil {
			return
		}
	}
}

func (s *FaultServer) endlessMetrics(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	w.WriteHeader(200)
	_, _ = io.WriteString(w, "# HELP apiserver_fault_samples A family whose samples never end.\n# TYPE apiserver_fault_samples gauge\n")
	var b strings.Builder
	for i := 0; r.Context().Err() == nil && !s.stopped(); i++ {
		b.Reset()
		for j := 0; j < 512; j++ {
			b.WriteString(`apiserver_fault_samples{resource="configmaps",i="` + strconv.Itoa(i*512+j) + "\"} 1\n")
		}
		n, err := io.WriteString(w, b.String())
		s.Sent.Add(int64(n))
		if err != nil {
			return
		}
	}
}

// trickle answers code, then sends prefix one byte every 100 ms, then
// spaces (which JSON allows between tokens; in a string, its text) at
// the same pace for ever: a body that never completes, and never stops
// sending.
func (s *FaultServer) trickle(w http.ResponseWriter, r *http.Request, code int, prefix string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	f := w.(http.Flusher)
	f.Flush()
	for i := 0; ; i++ {
		c := byte(' ')
		if i < len(prefix) {
			c = prefix[i]
		}
		if _, err := w.Write([]byte{c}); err != nil {
			return
		}
		s.Sent.Add(1)
		f.Flush()
		if !s.wait(r.Context(), 100*time.Millisecond) {
			return
		}
	}
}

// wait waits d; false when the client or the server went first.
func (s *FaultServer) wait(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
	case <-s.stop:
	}
	return false
}

func (s *FaultServer) stopped() bool {
	select {
	case <-s.stop:
		return true
	default:
		return false
	}
}

// Faults are every Fault a FaultServer answers with (a new one is added
// here too: test/e2e/fakeserver lists them).
var Faults = []Fault{
	FaultEndlessWatch, FaultEndlessList, FaultEndlessVersion, FaultEndlessMetrics,
	FaultEndlessError, FaultEndlessDiscovery, FaultTrickleList, FaultTrickleWatch,
	FaultRepeatContinue, FaultTinyItems, FaultManySeries, FaultLongMetricsLine, FaultLongNames,
	FaultBigPage, FaultServerError, FaultUpgrade, FaultNoContent, FaultStatusInList, FaultCodeMismatch,
	FaultTrickleErrorBody, FaultHugeMessage, FaultUnreadable, FaultProtobufText, FaultStatusNoFailure,
	FaultListEndsEarly, FaultHugeHeaders, FaultEndlessEarlyHints,
}

// KnownFault: f is one of Faults.
func KnownFault(f Fault) bool {
	for _, k := range Faults {
		if k == f {
			return true
		}
	}
	return false
}
