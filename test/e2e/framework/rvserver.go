package framework

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// RVScript is how a ScriptServer's collections (configmaps and
// deployments, in a namespace or across all) answer by RV, as the
// adversary's fake of try 19 did: each list answers the next of Currents
// as its current RV (the last one again and again), or a 504 TooLarge
// to a list at an RV above it, as kube-apiserver does; a watch from below
// Oldest is refused as a watch cache refuses it, with a 410 that names
// Named as the oldest (Oldest when 0), and one from Oldest or above
// replays a change of the one object at its RV + 1. One API server's RVs
// never go back: Currents that do, or a Named above the current RV, are
// what different servers behind one address answer.
type RVScript struct {
	Currents      []uint64
	Oldest, Named uint64
	// NamesRV, when set, is the RV a watch's 410 names as the requested
	// one, in place of the RV asked: an answer to another watch (a proxy
	// or cache that mixes answers up: adversary try 27 F6).
	NamesRV uint64
	// HangAt, when set, is the request of a collection (its lists and
	// watches counted together, from 1) left unanswered until the client
	// goes: the request a signal is to cut.
	HangAt int
	// A list with a metadata.name field selector answers the objects of
	// that name only (none but "a"), as a real server does; Narrowed,
	// when set, answers it instead (a server that refuses or ignores the
	// selector: the per-server view's cache RV read, pkg/servers
	// cacherv.go), without taking an RV of Currents.
	Narrowed *ScriptAnswer
	// AnyRV, when set, is the RV of a list at resourceVersion=0 with no
	// selector (a watch cache behind etcd), in place of the next of
	// Currents.
	AnyRV uint64
	// HangWatches leaves every watch of a collection without an answer
	// (no response headers) until the client goes: lists answer, watches
	// never begin (a proxy that holds a watch's headers, APF queueing it).
	HangWatches bool
	// HangPath, when set, is the one collection's path HangAt applies
	// to (every collection's when empty).
	HangPath string
	// BelowBound answers a list at an RV above the current one at the
	// current RV, below what it asked: a server that breaks the List
	// contract (adversary try 25 F5), where kube-apiserver answers 504.
	BelowBound bool
	// QuietAfter, when set, holds every watch after the first QuietAfter
	// open and silent (200, no event) until the client goes, as a
	// storage holds a watch from an RV it has not reached.
	QuietAfter int
	// Current, when set, answers a consistent list of one item (limit=1,
	// no resourceVersion, no selector: the read of the server's current
	// RV) in place of the next of Currents: a failure, or an RV that is
	// no storage's (adversary try 24 F1, F2).
	Current *ScriptAnswer
	// Relists, when set, answers every whole list after the first (not
	// the read of the current RV) in place of Currents: a relist that
	// fails, or is held (fresh user try 25 F3).
	Relists *ScriptAnswer
}

// ServeRVScript starts a ScriptServer (its defaults elsewhere) whose
// collections answer by rs, closed when t ends, and writes its
// kubeconfig.
func ServeRVScript(t testing.TB, rs RVScript) (*ScriptServer, string) {
	t.Helper()
	return ServeRVScriptOver(t, rs, nil)
}

// ServeRVScriptOver is ServeRVScript with script's answers for the other
// paths (a /metrics, a /version) over the defaults.
func ServeRVScriptOver(t testing.TB, rs RVScript, script map[string]ScriptAnswer) (*ScriptServer, string) {
	t.Helper()
	return serveWith(t, script, rs.answer())
}

// ServeRVScriptTLS is ServeRVScript over TLS (a TLSScriptServer): beside
// a server that takes the connection and never completes the handshake
// (SilentServers), whose requests are then never sent, as a real API
// server's would be.
func ServeRVScriptTLS(t testing.TB, rs RVScript) (*TLSScriptServer, string) {
	t.Helper()
	s := startTLSScript(nil, rs.answer())
	t.Cleanup(s.Close)
	kc, err := s.Kubeconfig(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return s, kc
}

// answer answers the requests of the collections by rs (ScriptServer's
// answer).
func (rs RVScript) answer() func(w http.ResponseWriter, r *http.Request) bool {
	var mu sync.Mutex
	lists, watches := 0, 0
	asked := map[string]int{}
	return func(w http.ResponseWriter, r *http.Request) bool {
		p := r.URL.Path
		if !strings.HasSuffix(p, "/configmaps") && !strings.HasSuffix(p, "/deployments") {
			return false
		}
		mu.Lock()
		asked[p]++
		hang := (asked[p] == rs.HangAt && (rs.HangPath == "" || rs.HangPath == p)) || (rs.HangWatches && r.URL.Query().Get("watch") != "")
		mu.Unlock()
		if hang {
			<-r.Context().Done()
			return true
		}
		w.Header().Set("Content-Type", "application/json")
		kind := "ConfigMap"
		if strings.HasSuffix(p, "/deployments") {
			kind = "Deployment"
		}
		q := r.URL.Query()
		if q.Get("watch") == "" {
			name, named := strings.CutPrefix(q.Get("fieldSelector"), "metadata.name=")
			if named && rs.Narrowed != nil {
				writeScriptAnswer(w, r, *rs.Narrowed)
				return true
			}
			if rs.Current != nil && q.Get("limit") == "1" && !q.Has("resourceVersion") && q.Get("fieldSelector") == "" && q.Get("labelSelector") == "" {
				writeScriptAnswer(w, r, *rs.Current)
				return true
			}
			items := faultItem
			if named && name != "a" {
				items = ""
			}
			if rs.AnyRV != 0 && q.Get("resourceVersion") == "0" && q.Get("fieldSelector") == "" && q.Get("labelSelector") == "" {
				fmt.Fprintf(w, `{"kind":"%sList","apiVersion":"v1","metadata":{"resourceVersion":"%d"},"items":[%s]}`, kind, rs.AnyRV, items)
				return true
			}
			mu.Lock()
			relist := rs.Relists != nil && lists > 0
			mu.Unlock()
			if relist {
				writeScriptAnswer(w, r, *rs.Relists)
				return true
			}
			mu.Lock()
			cur := rs.Currents[min(lists, len(rs.Currents)-1)]
			lists++
			mu.Unlock()
			if from, err := strconv.ParseUint(q.Get("resourceVersion"), 10, 64); err == nil && from > cur && !rs.BelowBound {
				// A list at an RV the server has not reached is answered
				// as kube-apiserver answers it (a 504 TooLarge, after its
				// watch cache waited), never below the RV it asked for:
				// that would break the List contract (pkg/listing
				// boundBreach).
				w.WriteHeader(http.StatusGatewayTimeout)
				fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Timeout: Too large resource version: %d, current: %d","reason":"Timeout","details":{"causes":[{"reason":"ResourceVersionTooLarge","message":"Too large resource version"}],"retryAfterSeconds":1},"code":504}`, from, cur)
				return true
			}
			fmt.Fprintf(w, `{"kind":"%sList","apiVersion":"v1","metadata":{"resourceVersion":"%d"},"items":[%s]}`, kind, cur, items)
			return true
		}
		mu.Lock()
		watches++
		quiet := rs.QuietAfter > 0 && watches > rs.QuietAfter
		mu.Unlock()
		if quiet {
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			return true
		}
		rv, _ := strconv.ParseUint(q.Get("resourceVersion"), 10, 64)
		if rv < rs.Oldest {
			named, names := rs.Named, rv
			if named == 0 {
				named = rs.Oldest
			}
			if rs.NamesRV != 0 {
				names = rs.NamesRV
			}
			fmt.Fprintf(w, `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: %d (%d)","reason":"Expired","code":410}}`+"\n", names, named)
			return true
		}
		fmt.Fprintf(w, `{"type":"ADDED","object":{"kind":"%s","apiVersion":"v1","metadata":{"name":"a","namespace":"default","resourceVersion":"%d"}}}`+"\n", kind, rv+1)
		return true
	}
}
