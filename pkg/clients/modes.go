package clients

import (
	"time"

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

// watchMode is a watch's start mode.
func watchMode(q audit.Query) string {
	switch {
	case q.SendInitialEvents:
		return "streaming"
	case !q.HasRV:
		return modeUnset
	case q.ResourceVersion == "0":
		return modeZero
	}
	return modeExact
}

func countWatch(w *WatchModes, q audit.Query, how string, lived lifetime) {
	w.Total++
	switch watchMode(q) {
	case "streaming":
		w.Streaming++
	case modeUnset:
		w.Unset++
	case modeZero:
		w.Zero++
	default:
		w.Exact++
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
