package framework

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The API the extension server serves: namespaced gadgets that can be got,
// listed and watched, and nothing else.
const (
	ExtensionGroup    = "fake.watchrv.test"
	ExtensionVersion  = "v1"
	ExtensionResource = "gadgets"
	ExtensionKind     = "Gadget"
	// ExtensionNamespace is where the gadgets live.
	ExtensionNamespace = "default"
)

// GadgetsGVR is the extension server's resource.
var GadgetsGVR = schema.GroupVersionResource{Group: ExtensionGroup, Version: ExtensionVersion, Resource: ExtensionResource}

// Gadget is one object of the extension server. Objects never change: a
// gadget was created at its ResourceVersion, and the newest one's RV is the
// List RV.
type Gadget struct {
	Name            string
	ResourceVersion int
}

// ExtensionRequest is one request the extension server received.
type ExtensionRequest struct {
	Method   string
	Path     string
	RawQuery string
	// User and Groups are the X-Remote-User / X-Remote-Group headers the
	// aggregator set; ClientCN is the CN of its front-proxy certificate.
	User     string
	Groups   []string
	ClientCN string
	Time     time.Time
}

// ExtensionServer is an aggregated API server of the tests that behaves
// like an API server which predates streaming lists: it lists and watches
// but ignores sendInitialEvents, so it never sends the BOOKMARK annotated
// k8s.io/initial-events-end. A client that waits for that bookmark (a
// client-go >= 1.35 informer with WatchListClient) hangs on it; the plugin
// must tell this apart from a server that streams.
//
// It speaks TLS and requires the aggregator's front-proxy client
// certificate (signed by the front-proxy CA, with an allowed CN) and the
// X-Remote-User header, as a real extension server does; it does no
// authorization of its own.
type ExtensionServer struct {
	// URL is https://127.0.0.1:port, to reach it without the aggregator.
	URL string

	gadgets []Gadget
	allowed []string
	srv     *http.Server
	ln      net.Listener

	mu       sync.Mutex
	requests []ExtensionRequest
	// expiredBelow > 0: a watch from an RV below it gets a 410 ERROR event
	// worded expiredText (SetExpiry).
	expiredBelow int
	expiredText  string
}

// SetExpiry makes a watch from an RV below below (0: none, the default)
// answer as an aggregated server with a history window of its own does: a
// 410 Expired ERROR event, worded text, then the end of the stream. The
// wording is the server's own, which no client knows beforehand.
func (s *ExtensionServer) SetExpiry(below int, text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expiredBelow, s.expiredText = below, text
}

// startExtensionServer serves on a new loopback port with the serving
// certificate given, trusting client certificates of frontProxyCA whose CN
// is one of allowedNames.
func startExtensionServer(serving *certKey, frontProxyCA *certKey, allowedNames []string, gadgets []Gadget) (*ExtensionServer, error) {
	pair, err := tls.X509KeyPair(serving.certPEM, serving.keyPEM)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AddCert(frontProxyCA.cert)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &ExtensionServer{URL: "https://" + ln.Addr().String(), gadgets: gadgets, allowed: allowedNames, ln: ln}
	s.srv = &http.Server{
		Handler: http.HandlerFunc(s.serveHTTP),
		TLSConfig: &tls.Config{
			Certificates: []tls.Certificate{pair},
			ClientAuth:   tls.RequireAndVerifyClientCert,
			ClientCAs:    pool,
			MinVersion:   tls.VersionTLS12,
		},
		ReadHeaderTimeout: 10 * time.Second,
	}
	go func() { _ = s.srv.ServeTLS(ln, "", "") }()
	return s, nil
}

// Addr is the server's host:port on loopback.
func (s *ExtensionServer) Addr() string { return s.ln.Addr().String() }

// Requests returns every request received so far, in order.
func (s *ExtensionServer) Requests() []ExtensionRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]ExtensionRequest(nil), s.requests...)
}

// Gadgets returns the objects the server serves.
func (s *ExtensionServer) Gadgets() []Gadget { return append([]Gadget(nil), s.gadgets...) }

// ListRV is the List resourceVersion: the newest gadget's.
func (s *ExtensionServer) ListRV() int {
	rv := 0
	for _, g := range s.gadgets {
		rv = max(rv, g.ResourceVersion)
	}
	return rv
}

// Close stops the server and ends open watches.
func (s *ExtensionServer) Close() error { return s.srv.Close() }

func (s *ExtensionServer) serveHTTP(w http.ResponseWriter, r *http.Request) {
	rec := ExtensionRequest{
		Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery,
		User: r.Header.Get("X-Remote-User"), Groups: r.Header.Values("X-Remote-Group"), Time: time.Now(),
	}
	if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
		rec.ClientCN = r.TLS.PeerCertificates[0].Subject.CommonName
	}
	s.mu.Lock()
	s.requests = append(s.requests, rec)
	s.mu.Unlock()

	// The TLS handshake already verified the chain to the front-proxy CA.
	if !slices.Contains(s.allowed, rec.ClientCN) {
		writeStatus(w, http.StatusUnauthorized, "Unauthorized", fmt.Sprintf("client certificate CN %q is not an allowed front proxy", rec.ClientCN))
		return
	}
	if rec.User == "" {
		writeStatus(w, http.StatusUnauthorized, "Unauthorized", "no X-Remote-User header")
		return
	}
	if r.Method != http.MethodGet {
		writeStatus(w, http.StatusMethodNotAllowed, "MethodNotAllowed", "the gadgets API is read-only")
		return
	}
	gv := "/apis/" + ExtensionGroup + "/" + ExtensionVersion
	path := strings.TrimSuffix(r.URL.Path, "/")
	switch {
	case path == "/apis":
		writeJSON(w, http.StatusOK, map[string]any{"kind": "APIGroupList", "apiVersion": "v1", "groups": []any{s.apiGroup()}})
	case path == "/apis/"+ExtensionGroup:
		writeJSON(w, http.StatusOK, s.apiGroup())
	case path == gv:
		writeJSON(w, http.StatusOK, map[string]any{
			"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": ExtensionGroup + "/" + ExtensionVersion,
			"resources": []any{map[string]any{
				"name": ExtensionResource, "singularName": "gadget", "namespaced": true, "kind": ExtensionKind,
				"verbs": []string{"get", "list", "watch"},
			}},
		})
	case path == gv+"/"+ExtensionResource:
		s.serveCollection(w, r, "")
	case strings.HasPrefix(path, gv+"/namespaces/"):
		// namespaces/<ns>/gadgets[/<name>]
		parts := strings.Split(strings.TrimPrefix(path, gv+"/namespaces/"), "/")
		switch {
		case len(parts) == 2 && parts[1] == ExtensionResource:
			s.serveCollection(w, r, parts[0])
		case len(parts) == 3 && parts[1] == ExtensionResource:
			s.serveGet(w, parts[0], parts[2])
		default:
			writeStatus(w, http.StatusNotFound, "NotFound", "the server could not find the requested resource")
		}
	default:
		// openapi included: the aggregator only logs a 404 there.
		writeStatus(w, http.StatusNotFound, "NotFound", "the server could not find the requested resource")
	}
}

func (s *ExtensionServer) apiGroup() map[string]any {
	v := map[string]any{"groupVersion": ExtensionGroup + "/" + ExtensionVersion, "version": ExtensionVersion}
	return map[string]any{"kind": "APIGroup", "apiVersion": "v1", "name": ExtensionGroup, "versions": []any{v}, "preferredVersion": v}
}

func (s *ExtensionServer) object(g Gadget) map[string]any {
	return map[string]any{
		"apiVersion": ExtensionGroup + "/" + ExtensionVersion, "kind": ExtensionKind,
		"metadata": map[string]any{
			"name": g.Name, "namespace": ExtensionNamespace, "uid": "gadget-uid-" + g.Name,
			"resourceVersion": strconv.Itoa(g.ResourceVersion), "creationTimestamp": "2026-01-01T00:00:00Z",
		},
		"spec": map[string]any{"size": 1},
	}
}

// selected returns the gadgets in ns ("" for all) that match a
// metadata.name field selector, if one is given.
func (s *ExtensionServer) selected(r *http.Request, ns string) []Gadget {
	var out []Gadget
	if ns != "" && ns != ExtensionNamespace {
		return nil
	}
	name := ""
	if fs := r.URL.Query().Get("fieldSelector"); fs != "" {
		name = strings.TrimPrefix(strings.TrimPrefix(fs, "metadata.name=="), "metadata.name=")
	}
	for _, g := range s.gadgets {
		if name == "" || g.Name == name {
			out = append(out, g)
		}
	}
	return out
}

func (s *ExtensionServer) serveGet(w http.ResponseWriter, ns, name string) {
	for _, g := range s.gadgets {
		if ns == ExtensionNamespace && g.Name == name {
			writeJSON(w, http.StatusOK, s.object(g))
			return
		}
	}
	writeStatus(w, http.StatusNotFound, "NotFound", fmt.Sprintf("gadgets.%s %q not found", ExtensionGroup, name))
}

func (s *ExtensionServer) serveCollection(w http.ResponseWriter, r *http.Request, ns string) {
	q := r.URL.Query()
	if v := q.Get("watch"); v == "true" || v == "1" {
		s.serveWatch(w, r, ns)
		return
	}
	items := []any{}
	for _, g := range s.selected(r, ns) {
		items = append(items, s.object(g))
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"apiVersion": ExtensionGroup + "/" + ExtensionVersion, "kind": ExtensionKind + "List",
		"metadata": map[string]any{"resourceVersion": strconv.Itoa(s.ListRV())},
		"items":    items,
	})
}

// serveWatch answers as a server that does not know sendInitialEvents:
// resourceVersion alone decides. "" and "0" get a synthetic ADDED per
// object; N gets the objects created after N (as ADDED). Then nothing, and
// no bookmark ever, until the client goes away or timeoutSeconds passes.
func (s *ExtensionServer) serveWatch(w http.ResponseWriter, r *http.Request, ns string) {
	q := r.URL.Query()
	since := 0
	if rv := q.Get("resourceVersion"); rv != "" && rv != "0" {
		n, err := strconv.Atoi(rv)
		if err != nil {
			writeStatus(w, http.StatusBadRequest, "BadRequest", fmt.Sprintf("invalid resourceVersion %q", rv))
			return
		}
		since = n
	}
	timeout := 30 * time.Minute
	if ts := q.Get("timeoutSeconds"); ts != "" {
		n, err := strconv.Atoi(ts)
		if err != nil || n < 0 {
			writeStatus(w, http.StatusBadRequest, "BadRequest", fmt.Sprintf("invalid timeoutSeconds %q", ts))
			return
		}
		if n > 0 {
			timeout = time.Duration(n) * time.Second
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache, private")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	if flusher != nil {
		flusher.Flush()
	}
	enc := json.NewEncoder(w)
	s.mu.Lock()
	below, text := s.expiredBelow, s.expiredText
	s.mu.Unlock()
	if since > 0 && since < below {
		_ = enc.Encode(map[string]any{"type": "ERROR", "object": map[string]any{
			"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{},
			"status": "Failure", "message": text, "reason": "Expired", "code": http.StatusGone,
		}})
		return
	}
	for _, g := range s.selected(r, ns) {
		if g.ResourceVersion <= since {
			continue
		}
		if err := enc.Encode(map[string]any{"type": "ADDED", "object": s.object(g)}); err != nil {
			return
		}
		if flusher != nil {
			flusher.Flush()
		}
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-r.Context().Done():
	case <-t.C:
	}
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func writeStatus(w http.ResponseWriter, code int, reason, msg string) {
	writeJSON(w, code, map[string]any{
		"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{},
		"status": "Failure", "message": msg, "reason": reason, "code": code,
	})
}
