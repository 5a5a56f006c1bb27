// What follows a watch that failed or ended: a relist, a reconnect after
// a backoff, or the end of the run (and the deadline rules those obey).

package follow

import (
	"context"
	"errors"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/watchstream"
)

// afterOpenFailure decides what a failed watch request leads to: a relist
// (Expired or TooLarge as the HTTP status, as for an ERROR event), a
// reconnect after a backoff (the server or the network may recover), or the
// end of the run with the failure itself (a retry cannot change a 403).
func (s *Session) afterOpenFailure(ctx context.Context, err error, next watchstream.Options) (*relistCause, error) {
	f := diagnose.ClassifyFailure(err)
	if f == diagnose.FailureExpired || f == diagnose.FailureTooLarge {
		s.clearRVProblem(err)
	}
	if !s.Follow {
		return nil, err
	}
	s.mixing.failure(f, s.lastRV)
	if f == diagnose.FailureExpired || f == diagnose.FailureTooLarge {
		return &relistCause{reason: err.Error(), err: err, unproductive: s.relisted}, nil
	}
	if !f.Retryable() {
		return nil, err
	}
	s.sleep(ctx, Notice{Kind: NoticeReconnect, Reason: err.Error(), Err: err, Failure: f, FromResourceVersion: fromRV(next)})
	return nil, nil
}

// afterStream decides what follows a stream that ended, with Follow; next
// are the options of the next watch.
func (s *Session) afterStream(ctx context.Context, end streamEnd, opened time.Time, next watchstream.Options) (*relistCause, error) {
	if end.behind {
		// Another storage answers: its RVs are not comparable with the
		// ones seen (no mixing sign), and only a consistent list gives a
		// resume point of it.
		return &relistCause{reason: end.reason, err: end.err, otherStorage: true}, nil
	}
	if end.expired {
		s.mixing.failure(end.failure, s.lastRV)
		// Unproductive (backed off, and from a consistent read) when the
		// stream after the last relist made no progress, or lived under a
		// second: a server that sends an event (replayed, or in breach)
		// then an Expired each time is not relisted from at once, in a
		// loop (adversary try 45 F1: 167 relists in 4 s).
		unproductive := s.relisted && (end.progress == 0 || s.clock().Since(opened) < time.Second)
		return &relistCause{reason: end.reason, err: end.err, unproductive: unproductive}, nil
	}
	if end.progress > 0 {
		s.relisted = false
		s.Backoff.Reset()
	}
	if end.failure != "" && !end.failure.Retryable() && (!end.broken || end.failure == diagnose.FailureUnbounded) {
		// An ERROR event a retry cannot mend (403 on a watch that lost its
		// grant), or a stream past the plugin's bounds (an event over the
		// frame cap): reconnecting would read it again without end.
		return nil, end.err
	}
	if s.empties >= MaxEmptyStreams {
		// The server keeps ending the watch at once with nothing: watching
		// again cannot help (a start RV its storage will not wait for).
		return nil, s.streak.Err
	}
	if s.stateCut(end) {
		return &relistCause{reason: s.stateCutReason(end), err: end.err, noResumePoint: true, stateSent: s.stateSent}, nil
	}
	n := Notice{Kind: NoticeReconnect, Reason: end.reason, Err: end.err, Failure: end.failure, FromResourceVersion: fromRV(next)}
	var empty *EmptyStreamError
	if s.streak != nil && errors.As(s.streak.Err, &empty) && s.empties > 0 {
		n.Reason, n.Err, n.Failure = empty.Error(), empty, empty.FailureClass()
	}
	if end.err == nil && (end.progress > 0 || s.clock().Since(opened) > time.Second) {
		// A stream the server ended normally (timeoutSeconds): a Reflector
		// watches again at once.
		s.Backoff.Reset()
		s.stats.Reconnects++
		n.Time = s.clock().Now()
		s.notify(n)
		return nil, nil
	}
	s.sleep(ctx, n)
	return nil, nil
}

// sleep notifies a reconnect and waits its backoff; false when ctx ended.
func (s *Session) sleep(ctx context.Context, n Notice) bool {
	p := s.Backoff.DelayAfter(n.Err)
	n.Delay, n.DelayByServer, n.ServerAsked = p.Duration, p.ServerAsked > 0, p.ServerAsked
	if endsWithin(ctx, n.Delay) {
		// The run ends before the wait does: no reconnect will be made,
		// and none is announced or counted (adversary try 17: "reconnect
		// in 3.4s" in the last half second of a 4 s run).
		<-ctx.Done()
		return false
	}
	n.Time = s.clock().Now()
	s.stats.Reconnects++
	s.notify(n)
	return s.wait(ctx, n.Delay) == nil
}

// unansweredAtDeadline records a watch request still unanswered when the
// run's time ran out: no answer is not a quiet watch, in both modes. A
// request sent less than a second before the deadline, in a session whose
// requests were answered before (a reconnect, or a wait in client-go's
// rate limiter, that had no time), proves nothing.
func (s *Session) unansweredAtDeadline(ctx context.Context, err error) {
	var st *StalledError
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) || !errors.As(err, &st) || !st.AtDeadline {
		return
	}
	if st.After <= time.Second && s.answered {
		return
	}
	s.failed(st)
}

// endsWithin: ctx has a deadline less than d away.
func endsWithin(ctx context.Context, d time.Duration) bool {
	deadline, ok := ctx.Deadline()
	return ok && time.Until(deadline) < d
}

// outOfTime reports a request that failed because the run's time is up.
// The client-side rate limiter refuses a wait that would pass the
// context's deadline before the deadline itself
// (apiclient.ErrRateWaitPastDeadline, decided by comparing the limiter's
// delay with the deadline): then this waits for the deadline, so that the
// run ends at its --timeout as asked, not with that error.
func outOfTime(ctx context.Context, err error) bool {
	if ctx.Err() == nil && errors.Is(err, apiclient.ErrRateWaitPastDeadline) {
		if _, ok := ctx.Deadline(); ok {
			<-ctx.Done()
		}
	}
	return ctx.Err() != nil
}
