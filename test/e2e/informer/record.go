package main

import (
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"
)

// record is one line of --events-out. Type says which fields are set:
//
//	start     namespace, watchListClientGate (client-go's WatchListClient gate), pid
//	request   verb (list or watch), resourceVersion, resourceVersionMatch,
//	          sendInitialEvents, limit, continue, status (HTTP) or error:
//	          one list or watch request of the reflector, at its response headers
//	synced    mode, resourceVersion: HasSynced turned true
//	lastSync  resourceVersion: the reflector's last synced RV moved
//	add       key, namespace, name, uid, resourceVersion, initialList
//	update    the same, plus oldUID and oldResourceVersion
//	delete    the same, plus tombstone (delivered as DeletedFinalStateUnknown)
//	stop      resourceVersion: exiting on SIGTERM/SIGINT
type record struct {
	Time string `json:"time"`
	Type string `json:"type"`

	Key                string `json:"key,omitempty"`
	Namespace          string `json:"namespace,omitempty"`
	Name               string `json:"name,omitempty"`
	UID                string `json:"uid,omitempty"`
	ResourceVersion    string `json:"resourceVersion,omitempty"`
	OldUID             string `json:"oldUID,omitempty"`
	OldResourceVersion string `json:"oldResourceVersion,omitempty"`
	InitialList        bool   `json:"initialList,omitempty"`
	Tombstone          bool   `json:"tombstone,omitempty"`

	// Mode is how the informer's first sync was filled, read from the
	// requests it made (never assumed): "watchlist" when a streaming list
	// (watch with sendInitialEvents=true) answered, "list" when a plain
	// list did.
	Mode                string `json:"mode,omitempty"`
	WatchListClientGate *bool  `json:"watchListClientGate,omitempty"`
	PID                 int    `json:"pid,omitempty"`

	Verb                 string `json:"verb,omitempty"`
	ResourceVersionMatch string `json:"resourceVersionMatch,omitempty"`
	SendInitialEvents    bool   `json:"sendInitialEvents,omitempty"`
	Limit                string `json:"limit,omitempty"`
	Continue             bool   `json:"continue,omitempty"`
	Status               int    `json:"status,omitempty"`
	Error                string `json:"error,omitempty"`
}

// recorder writes records, one JSON line each, straight to the file so a
// test can read them while the informer runs (and after a SIGKILL).
type recorder struct {
	mu   sync.Mutex
	f    *os.File
	mode string // the kind of the last list-like request that answered 200
}

func newRecorder(path string) (*recorder, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	return &recorder{f: f}, nil
}

func (r *recorder) write(rec record) {
	rec.Time = time.Now().UTC().Format(time.RFC3339Nano)
	b, err := json.Marshal(rec)
	if err != nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	_, _ = r.f.Write(append(b, '\n'))
}

func (r *recorder) close() { _ = r.f.Close() }

func (r *recorder) syncMode() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.mode
}

// transport records the reflector's list and watch requests of configmaps.
func (r *recorder) transport(rt http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		if req.Method != http.MethodGet || !strings.HasSuffix(req.URL.Path, "/configmaps") {
			return rt.RoundTrip(req)
		}
		q := req.URL.Query()
		rec := record{
			Type: "request", Verb: "list",
			ResourceVersion: q.Get("resourceVersion"), ResourceVersionMatch: q.Get("resourceVersionMatch"),
			SendInitialEvents: q.Get("sendInitialEvents") == "true",
			Limit:             q.Get("limit"), Continue: q.Get("continue") != "",
		}
		if w := q.Get("watch"); w == "true" || w == "1" {
			rec.Verb = "watch"
		}
		// A request without resourceVersion sends no parameter at all;
		// say so rather than leave it looking like a missing field.
		if !q.Has("resourceVersion") {
			rec.ResourceVersion = "(unset)"
		}
		resp, err := rt.RoundTrip(req)
		if err != nil {
			rec.Error = err.Error()
		} else {
			rec.Status = resp.StatusCode
			if resp.StatusCode == http.StatusOK {
				r.noteListLike(rec)
			}
		}
		r.write(rec)
		return resp, err
	})
}

// noteListLike remembers which kind of request last answered a list: a
// streaming list, or a plain list.
func (r *recorder) noteListLike(rec record) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case rec.Verb == "watch" && rec.SendInitialEvents:
		r.mode = "watchlist"
	case rec.Verb == "list":
		r.mode = "list"
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
