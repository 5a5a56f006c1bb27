package servers

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/watchrv/kubectl-watchrv/internal/text"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/probe"
	"github.com/watchrv/kubectl-watchrv/pkg/sweep"
)

// CrossCheck is explain-error --check --servers: the error's RV asked of
// every server, to say which server the error came from.
type CrossCheck struct {
	Class                    string `json:"class"`
	RequestedResourceVersion uint64 `json:"requestedResourceVersion,string"`
	// Request is what every server was asked (Repeat): the request the
	// error came from, as the one-server --check asks it.
	Request  string        `json:"request"`
	Servers  []CrossAnswer `json:"servers"`
	Findings []string      `json:"findings"`
	// Requests counts every request of the rows and those that found the
	// servers (Discovery.Requests), as a per-server view's requests does
	// (list and probe --servers).
	Requests int `json:"requests"`
	// Discovery is how the servers were found, and its requests: the
	// Requests line's "N to find them" (adversary try 44 C: folded into
	// Requests with no field of its own).
	Discovery Found `json:"discovery"`
	// Cut counts the requests of the servers the signal cut before it
	// did: no row's, said apart (Interruption.CutRequests).
	Cut CutShare `json:"-"`
	// asked is how many servers were to be asked: more than Servers when
	// the run was cut (Interrupted).
	asked int
	// read is what each server was sent, as the error line says a
	// failure's answer (sweep.ReadAs; fresh user try 35 F1: "answered
	// watch server 127.0.0.1:21207 with 403", "list and watch them").
	read sweep.Read
}

// CrossAnswer is one server's side of the check.
type CrossAnswer struct {
	Endpoint string `json:"endpoint"`
	// Index is the server's place in the fleet, from 1 (its row's number,
	// kept when a server before it was cut from the table).
	Index int `json:"-"`
	// CacheRV is what the server's watch cache has seen (TooLarge).
	CacheRV    uint64 `json:"cacheResourceVersion,omitempty,string"`
	CacheKnown bool   `json:"cacheKnown"`
	// WatchCache is whether the server has a watch cache for the resource
	// (Server.WatchCache): off, its CACHE RV is storage's, no cache's.
	WatchCache    string `json:"watchCache,omitempty"`
	WatchCacheWhy string `json:"watchCacheWhy,omitempty"`
	// Follows is true when the server's consistent list was answered and
	// its cache had reached that RV right after: it serves the RV.
	Follows bool `json:"followsEtcd"`
	// Watch is the answer to a watch from the RV (Expired): ok or expired,
	// and the oldest RV the watch cache named; List the answer to an exact
	// list at the RV (an Expired exact list), ok or expired.
	Watch       string `json:"watch,omitempty"`
	List        string `json:"list,omitempty"`
	OldestNamed uint64 `json:"oldestNamed,omitempty,string"`
	// Inconsistent says why the server's 410 cannot be one answer to the
	// watch asked (probe.Try.Inconsistent, diagnose's one check): no
	// finding is drawn from it.
	Inconsistent string `json:"inconsistent,omitempty"`
	// RetryWait is this server's own retries and their waits, as a
	// measured row's (Server.RetryWait): servers are asked at the same
	// time, so no row's wait is another's, nor the one-server check's
	// (fresh user try 29 F1).
	RetryWait *apiclient.RetryWait `json:"retryWait,omitempty"`
	// Tried is the request repeated on this server (Repeat) and its answer.
	Tried  *diagnose.Tried `json:"tried,omitempty"`
	Reason string          `json:"reason,omitempty"`
	Error  string          `json:"error,omitempty"`
	// Hint, the fix of a failed row in words, is render's (it names the
	// plugin's flags), as Server.Hint: this package leaves it empty.
	Hint string `json:"hint,omitempty"`
	// Err is the failure itself when a request failed, for the exit code.
	Err error `json:"-"`
	// measured is the server's RVs (TooLarge), for ReachOf.
	measured *Server
	// cut: the signal cut its question (apiclient.Unanswered): no answer,
	// and no row.
	cut bool
}

// CheckAcross asks every server, in parallel, what the one-server --check
// asks the kubeconfig's (Repeat: one request). For TooLarge each server
// first gets a consistent list, then its cache RV is read (as the view
// does: a server that follows etcd catches up on the first, so only a
// server that cannot shows a lag): the finding names by how much a server
// is behind. Other classes ask nothing.
func CheckAcross(ctx context.Context, f *Fleet, t apiclient.Target, b *apiclient.Budget, q Question, try probe.TryOptions, known KnownCache) CrossCheck {
	cc := CrossCheck{Class: string(q.Class), RequestedResourceVersion: q.RV, Request: q.request(), Servers: make([]CrossAnswer, len(f.Members)), asked: len(f.Members),
		read: sweep.Read{Verb: "list", What: t.Resource.Name()}}
	if q.watch() {
		cc.read.Verb = "watch"
	}
	kept := f.Each(ctx, b, 0, func(ctx context.Context, i int, m Member, own *apiclient.Budget) {
		a := &cc.Servers[i]
		a.Endpoint, a.Index = m.Endpoint, i+1
		if known.Endpoint == m.Endpoint && known.State != "" {
			// What the run knows of its watch cache, whatever the row
			// reads (fresh user try 45 F1: an Expired text's row said CACHE
			// RV - beside the check's "no watch cache").
			a.WatchCache, a.WatchCacheWhy = known.State, known.Why
		}
		ctx, sw := apiclient.StartStopwatch(ctx)
		defer func() { a.RetryWait = apiclient.RetryWaitOf(sw) }()
		if q.Class == diagnose.ClassTooLarge {
			s := Measure(ctx, m.Client, t, m.Endpoint, own, MeasureOptions{Mode: ModeRVs, Known: known})
			if apiclient.Unanswered(ctx, s.Err) && apiclient.Cut(ctx) {
				a.cut = true
				return
			}
			a.CacheRV, a.CacheKnown, a.Follows, a.measured = s.CacheRV, s.CacheKnown, follows(s), s
			if s.WatchCache != CacheUnknown {
				a.WatchCache, a.WatchCacheWhy = s.WatchCache, s.WatchCacheWhy
			}
			if !s.CacheKnown {
				a.Reason, a.Error, a.Err = s.Reason, s.Error, s.Err
			}
			if errors.Is(s.Err, context.Canceled) || errors.Is(s.Err, apiclient.ErrBudgetExhausted) || silentBefore(ctx, m.Endpoint) != nil {
				// (A server that gave no answer is not asked again
				// in the run: silent.go.)
				return
			}
			// Its answer is the server's word on the RV now (a lagging
			// server refuses it or times out): no failure of the check.
			r := Repeat(ctx, m.Client, t, q, own, try)
			a.Tried, a.cut = r.Tried, r.Tried == nil && apiclient.Cut(ctx)
			return
		}
		r := Repeat(ctx, m.Client, t, q, own, try)
		if r.Tried == nil && apiclient.Unanswered(ctx, r.Err) && apiclient.Cut(ctx) {
			a.cut = true
			return
		}
		a.Tried = r.Tried
		switch {
		case r.Outcome == probe.OutcomeOK || r.Outcome == probe.OutcomeExpired:
			if !q.watch() {
				a.List = string(r.Outcome)
			} else {
				a.Watch, a.OldestNamed = string(r.Outcome), r.OldestNamed
				if r.Watch != nil {
					a.Inconsistent = r.Watch.Inconsistent
				}
			}
		case r.Err != nil && apiclient.Cut(ctx):
			// The signal cut it: no outcome (docs/exit-codes.md, 130).
		case r.Err != nil:
			a.fail(r.Err)
		case r.Watch != nil: // a watch that neither started nor was refused
			a.Reason, a.Error = string(r.Outcome), text.OneLine(r.Watch.Evidence+" "+r.Watch.Message)
		default:
			a.Reason, a.Error = string(r.Outcome), r.Tried.Answer
		}
	}, func(i int, m Member) {
		cc.Servers[i].Endpoint, cc.Servers[i].Index = m.Endpoint, i+1
		cc.Servers[i].fail(m.Err)
	})
	switch q.Class {
	case diagnose.ClassTooLarge:
		cc.Findings = tooLargeFindings(cc.Servers, q.RV)
	case diagnose.ClassExpired:
		cc.Findings = expiredFindings(cc.Servers, q.RV)
	}
	cc.Requests, cc.Cut = splitKept(kept, func(i int) bool { return cc.Servers[i].cut })
	cc.leaveOutCut()
	return cc
}

// A server whose question the signal (Ctrl-C, SIGTERM) cut has no answer:
// its request's error is the cut's, and was printed as the server's row
// "Other: context canceled" (adversary try 22 F3). It is no row; the
// report says how many servers were asked before the signal
// (Interrupted), as every run over several targets does
// (docs/exit-codes.md). The findings, drawn before, count it as a server
// that did not answer; with no server answered, there are none.

// leaveOutCut drops the servers the signal cut.
func (cc *CrossCheck) leaveOutCut() {
	kept := cc.Servers[:0]
	for _, a := range cc.Servers {
		if !a.cut {
			kept = append(kept, a)
		}
	}
	cc.Servers = kept
	if len(kept) == 0 && cc.asked > 0 {
		cc.Findings = []string{}
	}
}

// Interrupted is how many servers were asked before the signal, of how
// many were to be; ok is false when no server's question was cut.
func (cc *CrossCheck) Interrupted() (done, of int, ok bool) {
	return len(cc.Servers), cc.asked, len(cc.Servers) < cc.asked
}

// Err applies the one partial-failure rule (sweep.Partial) to the servers
// asked: a server failed when its request failed for a reason of its own.
func (cc *CrossCheck) Err() error {
	var failed []sweep.Failure
	for _, a := range cc.Servers {
		if a.Error != "" {
			err := a.Err
			if err == nil {
				err = errors.New(a.Error)
			}
			// The row's class (Reason) is the line's: one source.
			failed = append(failed, sweep.Failure{Name: "server " + a.Endpoint, Reason: a.Reason, Err: err})
		}
	}
	// Each row says its own retries (RetryWait): the line says the sum as
	// one over servers that waited at once (fresh user try 29 F1).
	return sweep.WithRetriesPerTarget(sweep.ReadAs(sweep.Partial("API server", len(cc.Servers), failed), cc.read))
}

func (a *CrossAnswer) fail(err error) {
	a.Reason, a.Error, a.Err = string(diagnose.ClassifyFailure(err)), text.OneLine(err.Error()), err
}

// tooLargeFindings names the servers that have not reached rv, and by how
// much each is behind the freshest server, by the one rule of the
// reconnect verdict (ReachOf: what a server serves is its cache RV, or
// the newest current RV when it follows storage).
func tooLargeFindings(as []CrossAnswer, rv uint64) []string {
	var newest uint64
	for _, a := range as {
		if s := a.measured; s != nil && s.CurrentKnown {
			newest = max(newest, s.CurrentRV)
		}
	}
	type reached struct {
		a     CrossAnswer
		reach Reach
	}
	var fresh *reached
	var behind []reached
	answered := 0
	for _, a := range as {
		if a.measured == nil {
			continue
		}
		r := reached{a, ReachOf(a.measured, rv, newest)}
		if !r.reach.Known {
			continue
		}
		answered++
		if fresh == nil || r.reach.UpTo > fresh.reach.UpTo {
			fresh = &r
		}
		if r.reach.Ahead > 0 {
			behind = append(behind, r)
		}
	}
	if fresh == nil {
		return []string{"no server told its cache RV"}
	}
	every := "every server"
	if answered < len(as) {
		// A server that told no RV is not counted as having seen it.
		every = fmt.Sprintf("every server that answered (%d of %d)", answered, len(as))
	}
	sort.SliceStable(behind, func(i, j int) bool { return behind[i].reach.UpTo < behind[j].reach.UpTo })
	switch {
	case fresh.reach.Ahead > 0:
		return []string{fmt.Sprintf("no server has reached RV %d (the freshest, %s, is at %d): no server of these has seen it: another cluster, an etcd restore, or a write not seen yet", rv, fresh.a.Endpoint, fresh.reach.UpTo)}
	case len(behind) == 0:
		return []string{fmt.Sprintf("%s has now seen RV %d: a server that was behind has caught up; the 504 was transient", every, rv)}
	}
	var out []string
	for _, b := range behind {
		out = append(out, fmt.Sprintf("server %s is %s behind server %s (cache RV %d vs %d): a client that listed on the first and reconnected to the second gets this 504 (RV %d is %s ahead of its cache)",
			b.a.Endpoint, text.Count(fresh.reach.UpTo-b.reach.UpTo, "RV"), fresh.a.Endpoint, b.reach.UpTo, fresh.reach.UpTo, rv, text.Count(b.reach.Ahead, "RV")))
	}
	return out
}

// expiredFindings says on which servers rv is inside the window. A
// server whose 410 is inconsistent (its numbers cannot answer the watch
// asked: adversary try 27 F6, "its oldest is 50" of a refused 214) is on
// neither side: its finding says so, and nothing is drawn from it.
func expiredFindings(as []CrossAnswer, rv uint64) []string {
	var in, out, odd []string
	asked := "watch"
	for _, a := range as {
		answer := a.Watch
		if a.List != "" {
			answer, asked = a.List, "list"
		}
		if a.Inconsistent != "" {
			odd = append(odd, fmt.Sprintf("server %s refused the watch from RV %d with a 410 whose numbers are inconsistent (%s): whether RV %d is inside its window was not checked", a.Endpoint, rv, a.Inconsistent, rv))
			continue
		}
		switch answer {
		case string(probe.OutcomeOK):
			in = append(in, a.Endpoint)
		case string(probe.OutcomeExpired):
			s := a.Endpoint
			if a.OldestNamed > 0 {
				s += fmt.Sprintf(" (its oldest is %d)", a.OldestNamed)
			}
			out = append(out, s)
		}
	}
	return append(windowFindings(in, out, rv, asked, len(odd) > 0), odd...)
}

// windowFindings is the finding over the servers whose answer is
// consistent (in: the RV served, out: refused); some says others
// answered inconsistently, so "every server" is not said of them.
func windowFindings(in, out []string, rv uint64, asked string, some bool) []string {
	every := "every server that answered"
	if some {
		every = "every server that answered consistently"
	}
	switch {
	case len(in) > 0 && len(out) > 0:
		return []string{fmt.Sprintf("RV %d is inside the window of %s but not of %s: a client that reconnects through the balancer gets 410 only from the latter", rv, strings.Join(in, ", "), strings.Join(out, ", "))}
	case len(out) > 0:
		return []string{fmt.Sprintf("RV %d is outside the window of %s (%s): relist", rv, every, strings.Join(out, ", "))}
	case len(in) > 0:
		return []string{fmt.Sprintf("a watch from RV %d starts on %s (%s) now", rv, every, strings.Join(in, ", "))}
	case some:
		return nil
	}
	return []string{"no server answered the " + asked}
}
