// A reconnect may reach another storage: the check that tells a server
// behind the resume point (fresh user try 23 #1).

package follow

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"k8s.io/utils/clock"

	"github.com/watchrv/kubectl-watchrv/internal/rv"
	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/listing"
	"github.com/watchrv/kubectl-watchrv/pkg/watchstream"
)

// BehindCheckAfter is how long a reconnected stream may stay without an
// event that moves the session on before the server's current RV is read
// (one consistent list of one item, metadata only). A server whose
// storage is behind the resume point (another cluster at the address, one
// created anew, an etcd restored from a backup) holds a watch from it
// silently, the watch cache and etcd alike: nothing else tells it from a
// quiet collection. A stream that brings a change or a bookmark past the
// last RV first is of a storage that got there, and costs no request.
const BehindCheckAfter = 2 * time.Second

// behindCheckWait bounds the check's list: a server that cannot reach its
// storage (where a consistent list waits) must not hold the watch up.
const behindCheckWait = 5 * time.Second

// ServerBehindError: the server now answering has a current RV below the
// session's resume point, which one storage's RVs never do (every API
// server over it answers a consistent list at or above any revision it
// gave): another storage answers there now. A watch from the resume point
// is held until that storage gets there, and every change made there
// meanwhile is never delivered; a Reflector keeps that watch and does not
// notice. Only a new List gives a resume point of this storage.
type ServerBehindError struct {
	ResumeRV, CurrentRV string
}

func (e *ServerBehindError) Error() string {
	return fmt.Sprintf("the server now answering is behind the resume point: a consistent list gives its current RV %s, below RV %s, which this run had seen; one storage's RVs never go back, so another storage answers here now (another cluster, one created anew, or an etcd restored from a backup). The watch from RV %s is held until that storage gets there, and no change made there meanwhile is delivered (a Reflector keeps such a watch and does not notice); listing again for a resume point of this storage",
		e.CurrentRV, e.ResumeRV, e.ResumeRV)
}

// FailureClass: the resume RV is too large for this server (exit 10), as
// a watch from an RV ahead of it is.
func (e *ServerBehindError) FailureClass() diagnose.Failure { return diagnose.FailureTooLarge }

// behindCheck is the check of one reconnected stream: armed when it
// opens, run once by its timer if nothing moved the session on by then.
type behindCheck struct {
	timer    clock.Timer
	cancel   context.CancelFunc
	done     chan struct{} // closed once the timer's function returned
	progress atomic.Bool
	// Written by the timer's function before done is closed.
	url, current string
	err          error
	behind       *ServerBehindError
	// unchecked says why the check ran and could not tell ("" = it told,
	// or it did not run): its list failed, or gave no RV of a storage.
	unchecked string
}

// armBehindCheck arms the check for a stream opened as a reconnect from
// the resume point (nil otherwise: the first watch's start was checked
// before it, and a list's RV is the answering storage's own).
func (s *Session) armBehindCheck(ctx context.Context, stream *watchstream.Stream, reconnect bool) *behindCheck {
	resume := s.resumeRV
	if !reconnect || !rv.Valid(resume) || s.Client == nil {
		return nil
	}
	cctx, cancel := context.WithCancel(ctx)
	c := &behindCheck{cancel: cancel, done: make(chan struct{})}
	c.timer = s.clock().AfterFunc(BehindCheckAfter, func() {
		defer close(c.done)
		if c.progress.Load() {
			return
		}
		lctx, stop := context.WithTimeout(cctx, behindCheckWait)
		defer stop()
		cur, page, err := listing.CurrentRV(lctx, s.Client, s.Target, listing.CurrentOptions{})
		c.url = s.Target.CollectionPath() + "?limit=1"
		if page != nil {
			c.url = page.URL
		}
		c.err = err
		if cctx.Err() != nil {
			return // the stream or the run ended first: cut, not failed
		}
		n, why := rv.OfStorage(cur)
		r, _ := rv.Parse(resume)
		switch {
		case err != nil:
			// Said as the error line says the answer: its status and
			// request, not its body alone (fresh user try 26 F7).
			c.unchecked = apiclient.FailureWords("list", s.Target.Resource.Name(), err)
		case why != "":
			// No current RV was read: neither behind nor not behind
			// (adversary try 24 F2: RV "0" was taken for behind).
			c.unchecked = fmt.Sprintf("the consistent list's resourceVersion %q %s", text.Echo(cur), why)
		case n < r:
			c.current = cur
			c.behind = &ServerBehindError{ResumeRV: resume, CurrentRV: cur}
			stream.Close() // set above, read once drain returns
		default:
			c.current = cur
		}
		if c.unchecked != "" {
			c.unchecked = fmt.Sprintf("could not check whether the server now answering is behind RV %s: %s (GET %s)", resume, c.unchecked, c.url)
		}
	})
	return c
}

// moved notes an event that moved the session on: the check is not due.
func (c *behindCheck) moved() {
	if c != nil {
		c.progress.Store(true)
	}
}

// stop ends the check once its stream ended, and returns what it found:
// the server's current RV ("" when it was not read) and whether it is
// behind. A check still running is cancelled (its stream ended anyway).
// A check that ran and could not tell is said (NoticeUnchecked), never
// left to the -v trace alone: a watch held by a storage behind looks
// exactly like a quiet collection (adversary try 24 F1).
func (c *behindCheck) stop(s *Session) (current string, behind *ServerBehindError) {
	if c == nil {
		return "", nil
	}
	defer c.cancel()
	if c.timer.Stop() {
		close(c.done)
		return "", nil
	}
	c.cancel()
	<-c.done
	switch {
	case c.err != nil:
		s.trace("GET %s: %v", c.url, c.err)
	case c.current != "":
		s.trace("GET %s: current RV %s", c.url, c.current)
	}
	if c.unchecked != "" {
		s.stats.Unchecked++
		s.notify(Notice{Kind: NoticeUnchecked, Time: s.clock().Now(), Reason: c.unchecked, Err: c.err})
	}
	return c.current, c.behind
}

// behindEnd makes end the end of a stream closed because the server is
// behind the resume point: no resume point is left, and a relist follows.
func (s *Session) behindEnd(end *streamEnd, b *ServerBehindError) {
	s.stats.ServerBehind++
	s.clearResume(NoResumeServerBehind)
	end.reason, end.err, end.failure = b.Error(), b, b.FailureClass()
	end.broken, end.expired, end.quietStall, end.behind = false, false, false, true
	s.notify(Notice{Kind: NoticeBehind, Time: s.clock().Now(), Reason: b.Error(), Err: b, Failure: b.FailureClass(), FromResourceVersion: b.ResumeRV})
}

// refreshFacts asks the caller what the server now answering is
// (ServerFacts), with the current RV a consistent list of it gave ("" for
// none), and takes its bookmark facts: the facts read before the watch
// were of the server that answered then, and a reconnect may reach
// another (fresh user try 23 #1: "a bookmark was due: the watch cache
// sends one" of a server without a watch cache). Without ServerFacts
// nothing is known of it: no bookmark is counted on.
//
// The read holds what follows (the reconnect, the relist): it is bounded
// by FactsWait, and the wait is kept in s.held for the next notice to say
// (adversary try 25 F1: a hung /version held the reconnect 10 s that the
// line called "reconnect in 0.0s").
func (s *Session) refreshFacts(ctx context.Context, currentRV string) {
	if s.factsStream == s.stats.Streams {
		return
	}
	s.factsStream = s.stats.Streams
	if s.ServerFacts == nil {
		s.BookmarkPeriod, s.BookmarkFacts = 0, ""
		return
	}
	began := s.clock().Now()
	fctx, cancel := context.WithTimeout(ctx, FactsWait)
	defer cancel()
	s.BookmarkPeriod, s.BookmarkFacts = s.ServerFacts(fctx, currentRV)
	took := s.clock().Since(began)
	switch {
	case ctx.Err() != nil:
	case fctx.Err() != nil:
		s.held = Held{For: took, By: fmt.Sprintf("reading the server's facts from /version and /metrics: no answer within %s, so who serves the watch was not read", FactsWait)}
	case took >= heldShown:
		s.held = Held{For: took, By: "reading the server's facts from /version and /metrics"}
	}
}

// FactsWait bounds the read of the server's facts after a stream
// (refreshFacts): the facts explain a stall or a relist, and are not
// needed to reconnect, so a server that does not answer them holds the
// reconnect no longer than this.
const FactsWait = 2 * time.Second

// heldShown is the shortest wait a notice says: a line's delays are
// shown to the tenth of a second.
const heldShown = 50 * time.Millisecond

// Held is a wait the session added before a reconnect or a relist, on
// top of its backoff: a notice says it, as the time it took and what for.
type Held struct {
	For time.Duration
	By  string
}
