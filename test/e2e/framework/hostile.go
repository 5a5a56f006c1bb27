package framework

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Hostile is a string that drives a terminal if printed as it is: it
// clears the screen (CSI 2J), sets the window title (OSC 0), opens a CSI
// as the C1 control U+009B, returns the carriage, and holds a byte that is
// not UTF-8. Every field the HostileServer answers with carries it.
const Hostile = "\x1b[2J\x1b]0;PWNED\a\u009b31m\rX"

// HostileRaw is Hostile with a byte that is not UTF-8, for the channels
// that are not JSON (JSON decoders turn such a byte into U+FFFD).
const HostileRaw = Hostile + "\xff\x9b"

// HostileServer is a small API server on loopback that serves what the
// plugin's commands read (discovery, a configmaps collection, its watch,
// /version, /metrics, the kubernetes EndpointSlices) with Hostile in every
// field a real server would not refuse to store or could not validate: a
// real kube-apiserver validates object names and namespaces, this one
// does not. It is for the one thing no real server does: name objects with
// escape sequences. Plain HTTP, no authentication.
type HostileServer struct {
	URL string

	srv *http.Server
	ln  net.Listener
	mu  sync.Mutex
	// Requests counts what was served, by path.
	requests map[string]int
}

// The RVs of the hostile collection: objects were written at 40..47, a
// watch below hostileOldest gets 410 (with Hostile in its message).
const (
	hostileListRV = 47
	hostileOldest = 40
)

// StartHostileServer serves on a new loopback port until Close.
func StartHostileServer() (*HostileServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &HostileServer{URL: "http://" + ln.Addr().String(), ln: ln, requests: map[string]int{}}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// Close stops the server and ends open watches.
func (s *HostileServer) Close() error { return s.srv.Close() }

// Served is how many requests went to path.
func (s *HostileServer) Served(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[path]
}

func (s *HostileServer) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.requests[r.URL.Path]++
	s.mu.Unlock()
	q := r.URL.Query()
	path := strings.TrimSuffix(r.URL.Path, "/")
	switch {
	case path == "/version":
		writeJSON(w, http.StatusOK, map[string]any{"major": "1", "minor": "37", "gitVersion": "v1.37.2" + Hostile, "platform": "linux/amd64" + Hostile})
	case path == "/metrics":
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		fmt.Fprint(w, hostileMetrics())
	case path == "/api":
		writeJSON(w, http.StatusOK, map[string]any{"kind": "APIVersions", "versions": []string{"v1"}})
	case path == "/apis":
		writeJSON(w, http.StatusOK, map[string]any{"kind": "APIGroupList", "apiVersion": "v1", "groups": []any{}})
	case path == "/api/v1":
		writeJSON(w, http.StatusOK, map[string]any{"kind": "APIResourceList", "groupVersion": "v1", "resources": []any{
			map[string]any{"name": "configmaps", "singularName": "configmap", "namespaced": true, "kind": "ConfigMap", "verbs": []string{"get", "list", "watch"}, "shortNames": []string{"cm"}},
			map[string]any{"name": "endpoints", "singularName": "endpoints", "namespaced": true, "kind": "Endpoints", "verbs": []string{"get", "list", "watch"}},
		}})
	case strings.HasSuffix(path, "/configmaps") && q.Get("watch") == "true" || strings.HasSuffix(path, "/configmaps") && q.Get("watch") == "1":
		s.serveWatch(w, r)
	case strings.HasSuffix(path, "/configmaps"):
		s.serveList(w, r.URL.Path, q)
	case strings.HasSuffix(path, "/endpoints") && q.Get("watch") != "":
		// Endpoints have an RV that is no number (as an aggregated API's
		// may be): every RV a command prints is the server's text.
		w.Header().Set("Content-Type", "application/json")
		enc := json.NewEncoder(w)
		_ = enc.Encode(map[string]any{"type": "ADDED", "object": map[string]any{"metadata": map[string]any{"name": "ep" + Hostile, "resourceVersion": "48" + Hostile}}})
		if q.Get("sendInitialEvents") == "true" {
			_ = enc.Encode(map[string]any{"type": "BOOKMARK", "object": map[string]any{"metadata": map[string]any{
				"resourceVersion": "48" + Hostile, "annotations": map[string]string{"k8s.io/initial-events-end": "true"}}}})
		}
	case strings.HasSuffix(path, "/endpoints"):
		writeJSON(w, http.StatusOK, map[string]any{"kind": "EndpointsList", "apiVersion": "v1", "metadata": map[string]any{"resourceVersion": "47" + Hostile},
			"items": []any{map[string]any{"metadata": map[string]any{"name": "ep" + Hostile, "resourceVersion": "46" + Hostile}}}})
	case strings.Contains(path, "endpointslices"):
		// The per-server view finds no address it may dial: the failure
		// names the hostile address.
		writeStatus(w, http.StatusForbidden, "Forbidden", "endpointslices.discovery.k8s.io is forbidden: User \""+Hostile+"\" cannot list resource")
	case strings.Contains(path, "/configmaps/"):
		writeStatus(w, http.StatusNotFound, "NotFound", "configmaps \""+Hostile+"\" not found")
	default:
		writeStatus(w, http.StatusNotFound, "NotFound", "the server could not find the requested resource "+Hostile)
	}
}

// hostileObject is the metadata of one object with Hostile in every field
// but its namespace where the request named one (path): an object of
// another namespace than the one asked breaks the List and Watch contract,
// which the plugin refuses (a real server's objects are in the namespace
// asked for); a request of every namespace gets Hostile there too.
func hostileObject(i int, path string) map[string]any {
	ns := "default" + Hostile
	if rest, ok := strings.CutPrefix(path, "/api/v1/namespaces/"); ok {
		ns, _, _ = strings.Cut(rest, "/")
	}
	return map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{
			"name": "cm-" + strconv.Itoa(i) + Hostile, "namespace": ns,
			"uid": "uid-" + strconv.Itoa(i) + Hostile, "resourceVersion": strconv.Itoa(hostileOldest + i),
			"labels":            map[string]string{"app" + Hostile: "demo" + Hostile},
			"creationTimestamp": "2026-12-01T10:00:00Z",
		},
	}
}

func (s *HostileServer) serveList(w http.ResponseWriter, path string, q map[string][]string) {
	limit, _ := strconv.Atoi(first(q["limit"]))
	var items []any
	for i := 0; i < hostileListRV-hostileOldest+1 && (limit == 0 || i < limit); i++ {
		items = append(items, hostileObject(i, path))
	}
	meta := map[string]any{"resourceVersion": strconv.Itoa(hostileListRV)}
	if limit > 0 && limit < hostileListRV-hostileOldest+1 {
		rem := hostileListRV - hostileOldest + 1 - limit
		// One page only: the rest is counted, and its continue token
		// (hostile too) is one no reader of one page follows. A count
		// without a token breaks the List contract, which the plugin
		// refuses.
		meta["remainingItemCount"] = rem
		meta["continue"] = "next" + Hostile
	}
	writeJSON(w, http.StatusOK, map[string]any{"kind": "ConfigMapList", "apiVersion": "v1", "metadata": meta, "items": items})
}

// serveWatch answers a watch: below the window an ERROR 410 whose message
// holds Hostile; a streaming list its objects and the initial-events-end
// bookmark; otherwise an ADDED, a MODIFIED, a DELETED and a 500 ERROR, all
// hostile, then silence until the client goes.
func (s *HostileServer) serveWatch(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	enc := json.NewEncoder(w)
	flush := func() {
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	rv, _ := strconv.Atoi(q.Get("resourceVersion"))
	switch {
	case q.Get("resourceVersion") != "" && q.Get("resourceVersion") != "0" && rv < hostileOldest:
		_ = enc.Encode(map[string]any{"type": "ERROR", "object": hostileStatus(http.StatusGone, "Expired",
			fmt.Sprintf("too old resource version: %d (%d) %s", rv, hostileOldest, Hostile))})
		flush()
		return
	case rv > hostileListRV:
		// A future RV: held silently, as the watch cache does.
	case q.Get("sendInitialEvents") == "true":
		for i := 0; i <= hostileListRV-hostileOldest; i++ {
			_ = enc.Encode(map[string]any{"type": "ADDED", "object": hostileObject(i, r.URL.Path)})
		}
		_ = enc.Encode(map[string]any{"type": "BOOKMARK", "object": map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{
			"resourceVersion": strconv.Itoa(hostileListRV), "annotations": map[string]string{"k8s.io/initial-events-end": "true"},
		}}})
	case rv == hostileListRV:
		// A watch from the current RV (probe's search, a reconnect): quiet.
	default:
		for _, typ := range []string{"ADDED", "MODIFIED", "DELETED"} {
			_ = enc.Encode(map[string]any{"type": typ, "object": hostileObject(hostileListRV-hostileOldest, r.URL.Path)})
		}
		_ = enc.Encode(map[string]any{"type": "ERROR", "object": hostileStatus(http.StatusInternalServerError, "InternalError", "etcd said "+Hostile)})
		flush()
		return
	}
	flush()
	select {
	case <-r.Context().Done():
	case <-time.After(2 * time.Minute):
	}
}

func hostileStatus(code int, reason, message string) map[string]any {
	return map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": code, "reason": reason, "message": message}
}

// hostileMetrics is a /metrics page whose label values hold Hostile (the
// text format carries any UTF-8 but \n, \\ and " as it is).
func hostileMetrics() string {
	r := "configmaps" + Hostile
	var b strings.Builder
	for _, m := range []struct {
		name, typ string
		v         int
	}{
		{"apiserver_watch_cache_events_received_total", "counter", 8}, {"apiserver_watch_cache_capacity", "gauge", 100},
		{"apiserver_watch_cache_initializations_total", "counter", 1}, {"apiserver_watch_cache_resource_version", "gauge", hostileListRV},
		{"apiserver_watch_events_total", "counter", 3},
	} {
		fmt.Fprintf(&b, "# TYPE %s %s\n%s{group=\"\",resource=\"%s\"} %d\n%s{group=\"\",resource=\"configmaps\"} %d\n", m.name, m.typ, m.name, r, m.v, m.name, m.v)
	}
	fmt.Fprintf(&b, "# TYPE kubernetes_feature_enabled gauge\nkubernetes_feature_enabled{name=\"WatchList%s\",stage=\"BETA\"} 1\n", Hostile)
	return b.String()
}

func first(vs []string) string {
	if len(vs) == 0 {
		return ""
	}
	return vs[0]
}
