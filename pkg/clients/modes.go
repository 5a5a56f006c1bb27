package clients

import (
	"time"

	"github.com/watchrv/kubectl-watchrv/internal/rv"
	"github.com/watchrv/kubectl-watchrv/pkg/audit"
)

// listMode is the read mode of a list, as the API server decides it
// (apiserver delegator.ShouldDelegateList): a continue token first, then
// resourceVersionMatch, then the legacy exact form (a limit with
// resourceVersion=N and no match). resourceVersion=0 with NotOlderThan
// is any state, as without a match: the watch cache serves it, with a
// limit too, on every version (v1.30's "has a limit" rule spares RV 0).
func listMode(q audit.Query) string {
	switch {
	case q.Continue:
		return modeContinue
	case q.ResourceVersionMatch == "Exact":
		return modeExact
	case q.ResourceVersionMatch == "NotOlderThan" && q.HasRV && q.ResourceVersion == "0":
		return modeZero
	case q.ResourceVersionMatch == "NotOlderThan":
		return modeNotOlderThan
	case !q.HasRV:
		return modeUnset
	case q.ResourceVersion == "0":
		return modeZero
	case q.Limit > 0:
		return modeExact
	}
	return modeNotOlderThan
}

func countListMode(l *ListModes, mode string, q audit.Query) {
	l.Total++
	switch mode {
	case modeUnset:
		l.Unset++
	case modeZero:
		l.Zero++
	case modeExact:
		l.Exact++
	case modeNotOlderThan:
		l.NotOlderThan++
	}
	if q.Limit > 0 {
		l.Limit++
	}
}

// Watch start modes: what the server sends first, read from the query
// alone. The same on v1.30 to v1.37, watch cache on or off, over etcd or
// kine (k8s.io/apiserver: the cacher's getWatchCacheResourceVersion and
// watchCache.getAllEventsSinceLocked, etcd3's areInitialEventsRequired and
// getStartWatchResourceVersion); a server that refuses the query (a
// sendInitialEvents where the WatchList gate is off: v1.30, v1.31 and
// v1.33 by default; a sendInitialEvents without
// resourceVersionMatch=NotOlderThan) answers an error code, and sends
// nothing.
const (
	// watchState: resourceVersion unset or 0, sendInitialEvents not given:
	// the legacy default, the whole collection as synthetic ADDED events,
	// then the changes; from v1.35, with allowWatchBookmarks=true, the
	// initial-events-end bookmark after the state (measured on every cell
	// of the matrix: docs/servers.md), none without it nor before v1.35.
	watchState = "state"
	// watchStreaming: sendInitialEvents=true, whatever the resourceVersion
	// (a streaming list): the whole collection as ADDED events, then the
	// initial-events-end bookmark (where allowWatchBookmarks=true), then
	// the changes.
	watchStreaming = "streaming"
	// watchChanges: sendInitialEvents=false from resourceVersion unset
	// (the newest RV, read from storage) or 0 (the watch cache's RV, or
	// storage's without one): the changes only.
	watchChanges = "changes"
)

// watchStart is a watch's start mode: one of the above, or modeExact (a
// resourceVersion N, sendInitialEvents false or not given: the changes
// after N, or a 410 once N has left the window). Its resourceVersion is
// read as the server's versioner reads it (storage.APIObjectVersioner: ""
// and any decimal 0 are 0; internal/rv.Parse is the same ParseUint): a
// value that is no number is refused with an error code, counted with the
// exact ones.
func watchStart(q audit.Query) string {
	n, ok := rv.Parse(q.ResourceVersion)
	fromAny := !q.HasRV || (ok && n == 0)
	switch {
	case q.SendInitialEventsSet && q.SendInitialEvents:
		return watchStreaming
	case !fromAny:
		return modeExact
	case q.SendInitialEventsSet:
		return watchChanges
	}
	return watchState
}

// sendsState: the watch's mode re-reads the whole collection, as a list
// does (what the relist detector counts).
func sendsState(mode string) bool { return mode == watchState || mode == watchStreaming }

func countWatch(w *WatchModes, q audit.Query, how string, lived lifetime) {
	w.Total++
	switch mode := watchStart(q); mode {
	case watchStreaming:
		w.Streaming++
	case modeExact:
		w.Exact++
	default:
		// unset and zero keep counting by the RV asked for; the two
		// modes of these watches are counted apart.
		if q.HasRV {
			w.Zero++
		} else {
			w.Unset++
		}
		if mode == watchState {
			w.StateAndChanges++
		} else {
			w.ChangesOnly++
		}
	}
	switch how {
	case endOpen:
		w.Open++
		return
	case endUnknown:
		w.LifetimeUnknown++
		return
	case endError:
		w.Error++
	case endTimedOut:
		w.TimedOut++
	case endAtOnce:
		w.AtOnce++
	default:
		w.Early++
	}
	if !lived.known {
		w.LifetimeUnknown++
		return
	}
	s := lived.d.Seconds()
	w.Timed++
	ended := w.Timed
	if ended == 1 || s < w.MinSeconds {
		w.MinSeconds = s
	}
	if s > w.MaxSeconds {
		w.MaxSeconds = s
	}
	w.MeanSeconds += (s - w.MeanSeconds) / float64(ended)
}

// How a watch ended.
const (
	endOpen     = "open"
	endError    = "error"
	endTimedOut = "timed out"
	endAtOnce   = "at once"
	endEarly    = "early"
	// endUnknown: it ended with a 2xx, but the log does not give when it
	// started: neither its lifetime nor how it ended is known.
	endUnknown = "unknown"
)

// watchEnd classifies a watch's end from its code and lifetime: the audit
// log records neither the events sent nor who closed the stream.
func watchEnd(q audit.Query, code int, lived lifetime, open bool) string {
	switch {
	case open:
		return endOpen
	case code >= 400:
		return endError
	case !lived.known:
		return endUnknown
	case q.TimeoutSeconds > 0 && lived.d.Seconds() >= float64(q.TimeoutSeconds)-1:
		return endTimedOut
	case lived.d < time.Second:
		return endAtOnce
	}
	return endEarly
}
