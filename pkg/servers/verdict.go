package servers

import (
	"slices"
	"strconv"
)

// Verdict is what the servers' numbers mean together for a client that
// reconnects through the balancer to any one of them.
type Verdict struct {
	Servers int `json:"servers"`
	// Answered counts the servers that answered every read of the view;
	// AnsweredPartly those that answered some (a server cut off from etcd:
	// its cache RV, not its consistent list). The others answered nothing.
	Answered       int `json:"answered"`
	AnsweredPartly int `json:"answeredPartly"`
	// NewestCurrent is the highest current RV any server reported.
	NewestCurrent uint64 `json:"newestCurrentResourceVersion,omitempty,string"`
	// Common is the range of RVs from which a reconnect is served at once
	// by every server that answered: from the newest oldest RV (below it,
	// that server answers a watch with 410) to the cache RV of the server
	// that lags most (above it, that server has not seen the RV and cannot
	// catch up: a relist from it gets 504 after ~3 s, a watch from it is
	// held). A server that follows etcd (lag 0 right after a consistent
	// list) bounds it by the newest current RV. Each bound is computed over
	// the servers on which it was measured, and the servers on which it was
	// not are named (OldestUnknown, NewestUnknown): the range is claimed
	// only for the others. CommonFrom is 0 and CommonFromKnown false when
	// no server's window was measured (list searches none): the 410 side is
	// then unknown, not "from 0". CommonKnown is false when no server gave
	// an RV; CommonEmpty when the bounds cross.
	CommonFromKnown  bool   `json:"commonFromKnown"`
	CommonFrom       uint64 `json:"commonFrom,omitempty"`
	CommonFromServer string `json:"commonFromServer,omitempty"`
	CommonTo         uint64 `json:"commonTo,omitempty"`
	CommonToServer   string `json:"commonToServer,omitempty"`
	CommonKnown      bool   `json:"commonKnown"`
	// CommonToLagging is true when CommonTo is a lagging server's cache
	// RV, false when every server follows etcd (CommonTo is the newest RV).
	CommonToLagging bool `json:"commonToLagging"`
	CommonEmpty     bool `json:"commonEmpty,omitempty"`
	// OldestUnknown names the servers whose oldest RV was not measured (no
	// window searched, or its search failed): below which RV they answer
	// 410 is unknown. NewestUnknown names those that gave no cache RV: up
	// to which RV they serve without a 504 is unknown.
	OldestUnknown []string `json:"oldestUnknown,omitempty"`
	NewestUnknown []string `json:"newestUnknown,omitempty"`
	// Reconnect says, for one RV, what each server does with an informer's
	// reconnect from it.
	Reconnect *Reconnect `json:"reconnect,omitempty"`
	// LargestLag is the largest lag of any server with a watch cache (or
	// not known to have none), and which.
	LargestLag       uint64 `json:"largestLag"`
	LargestLagServer string `json:"largestLagServer,omitempty"`
	// NoWatchCache names the servers known to have no watch cache for the
	// resource (Server.WatchCache off): they read storage, which is always
	// current; CacheUnknown those of which it is not known.
	NoWatchCache []string `json:"noWatchCache,omitempty"`
	CacheUnknown []string `json:"cacheUnknown,omitempty"`
}

// Reconnect is the per-server answer to a reconnect from one RV.
type Reconnect struct {
	ResourceVersion uint64 `json:"resourceVersion,string"`
	// Why this RV: "given" (--from-rv) or "newest current" (what an
	// informer that just listed on the freshest server holds).
	Why     string            `json:"why"`
	Answers []ReconnectAnswer `json:"answers"`
}

// Answers of a server to a reconnect.
const (
	AnswerStarts   = "starts"
	AnswerExpired  = "410 Expired"
	AnswerTooLarge = "504 TooLarge"
	AnswerUnknown  = "unknown"
	// AnswerNotTooLarge: at most the cache RV, window not searched (list).
	AnswerNotTooLarge = "no 504"
)

// ReconnectAnswer is one server's answer, and by how much.
type ReconnectAnswer struct {
	Endpoint string `json:"endpoint"`
	Answer   string `json:"answer"`
	// By is how far the RV is outside the server's range (RVs below its
	// oldest for 410, above ServesUpTo for 504).
	By uint64 `json:"by,omitempty"`
	// ServesUpTo is, for a 504, the newest RV the server serves (Reach):
	// its cache RV, or the newest current RV when it follows storage
	// (AheadOfCurrent).
	ServesUpTo     uint64 `json:"servesUpTo,omitempty"`
	AheadOfCurrent bool   `json:"aheadOfCurrent,omitempty"`
}

// Decide computes the verdict from the measured servers. fromRV is the RV
// of the reconnect question (0: the newest current RV).
func Decide(servers []*Server, fromRV uint64) Verdict {
	v := Verdict{Servers: len(servers)}
	for _, s := range servers {
		switch {
		case s.Err == nil:
			v.Answered++
		case s.Answered():
			v.AnsweredPartly++
		}
		if s.CurrentKnown && s.CurrentRV > v.NewestCurrent {
			v.NewestCurrent = s.CurrentRV
		}
	}
	// A server whose own consistent list failed: its lag against the
	// newest current RV the others read from the same etcd.
	for _, s := range servers {
		if s.CacheKnown && !s.CurrentKnown && v.NewestCurrent > 0 {
			s.setLag(v.NewestCurrent, "newest current RV of the other servers")
		}
	}
	for _, s := range servers {
		switch s.WatchCache {
		case CacheOff:
			v.NoWatchCache = append(v.NoWatchCache, s.Endpoint)
		case CacheUnknown, "":
			if s.Answered() {
				v.CacheUnknown = append(v.CacheUnknown, s.Endpoint)
			}
		}
	}
	first := true
	for _, s := range servers {
		if s.WindowKnown && (v.CommonFromServer == "" || s.Oldest > v.CommonFrom) {
			v.CommonFrom, v.CommonFromServer = s.Oldest, s.Endpoint
		}
		if !s.WindowKnown {
			v.OldestUnknown = append(v.OldestUnknown, s.Endpoint)
		}
		upTo, ok := servesUpTo(s, v.NewestCurrent)
		if !ok {
			v.NewestUnknown = append(v.NewestUnknown, s.Endpoint)
		}
		if ok && (first || upTo < v.CommonTo) {
			v.CommonTo, v.CommonToServer, first = upTo, s.Endpoint, false
			v.CommonToLagging = !follows(s)
		}
		if s.LagKnown && s.WatchCache != CacheOff && (v.LargestLagServer == "" || s.Lag > v.LargestLag) {
			v.LargestLag, v.LargestLagServer = s.Lag, s.Endpoint
		}
	}
	v.CommonKnown = !first
	v.CommonFromKnown = v.CommonFromServer != ""
	v.CommonEmpty = v.CommonKnown && v.CommonFrom > v.CommonTo
	rv, why := fromRV, "given"
	if rv == 0 {
		rv, why = v.NewestCurrent, "newest current"
	}
	if rv > 0 {
		r := &Reconnect{ResourceVersion: rv, Why: why}
		for _, s := range servers {
			r.Answers = append(r.Answers, answerFor(s, rv, v.NewestCurrent))
		}
		v.Reconnect = r
	}
	return v
}

// Reach is the one rule for an RV against what a server has seen
// (probe --servers's reconnect verdict and explain-error --check
// --servers alike): UpTo is the newest RV it serves without a 504
// (servesUpTo), Ahead how far rv is past it (0: it serves rv), Known
// false when the server told neither its cache RV nor its current one.
type Reach struct {
	UpTo, Ahead  uint64
	Known        bool
	AheadOfCache bool // UpTo is its cache RV (it lags), not the newest current RV
}

// ReachOf is where rv stands for s, newest being the newest current RV
// any server reported. An RV past what a server serves is ahead of it:
// a list from it gets 504 TooLarge (after ~3 s), a watch from it is held
// silently until the server gets there (kine without a watch cache ends
// it at once): it is never served.
func ReachOf(s *Server, rv, newest uint64) Reach {
	upTo, ok := servesUpTo(s, newest)
	r := Reach{UpTo: upTo, Known: ok, AheadOfCache: ok && !follows(s)}
	if ok && rv > upTo {
		r.Ahead = rv - upTo
	}
	return r
}

// follows reports whether s keeps up with etcd: its consistent list was
// answered and its cache had reached that RV right after. Such a server
// serves any RV up to etcd's newest (a request from an RV it has not seen
// yet waits while its cache asks etcd for progress).
func follows(s *Server) bool {
	return s.CurrentKnown && (s.WatchCache == CacheOff || s.LagKnown && s.Lag == 0)
}

// servesUpTo is the newest RV s serves without a 504: the newest current
// RV when it follows etcd (or its cache RV, where that was read later and
// is higher), else what its cache has seen. A server without a watch cache
// has no cache RV: its rv=0 list read storage, an RV the table shows
// nowhere (CACHE RV none), so its bound is the newest current RV, which
// the table shows (fresh user try 21 F1: a range "[539, 587]" beside
// CURRENT RV 586: every number of the verdict is one the rows show).
func servesUpTo(s *Server, newest uint64) (uint64, bool) {
	switch {
	case follows(s) && s.WatchCache == CacheOff:
		return newest, true
	case follows(s):
		return max(newest, s.CacheRV), true
	case s.CacheKnown:
		return s.CacheRV, true
	}
	return 0, false
}

// answerFor is what s does with a reconnect from rv (newest: the newest
// current RV any server reported).
func answerFor(s *Server, rv, newest uint64) ReconnectAnswer {
	a := ReconnectAnswer{Endpoint: s.Endpoint, Answer: AnswerUnknown}
	reach := ReachOf(s, rv, newest)
	switch {
	case s.WindowKnown && rv < s.Oldest:
		a.Answer, a.By = AnswerExpired, s.Oldest-rv
	case reach.Ahead > 0:
		a.Answer, a.By, a.ServesUpTo, a.AheadOfCurrent = AnswerTooLarge, reach.Ahead, reach.UpTo, !reach.AheadOfCache
	case (s.CacheKnown || follows(s)) && s.WindowKnown:
		a.Answer = AnswerStarts
	case s.CacheKnown:
		// list: no window searched, so only the 504 side is known.
		a.Answer = AnswerNotTooLarge
	}
	return a
}

// Covered is the servers on which both bounds of the common range were
// measured: the range is claimed for them only.
func (v Verdict) Covered(servers []*Server) []string {
	var out []string
	for _, s := range servers {
		if !slices.Contains(v.OldestUnknown, s.Endpoint) && !slices.Contains(v.NewestUnknown, s.Endpoint) {
			out = append(out, s.Endpoint)
		}
	}
	return out
}

// Label is the row label of a server: "1 198.51.100.1:6443".
func (s *Server) Label() string { return strconv.Itoa(s.Index) + " " + s.Endpoint }
