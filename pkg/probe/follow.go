package probe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// ErrStopWatch, returned by an OnEvent callback, ends a WatchSession cleanly
// (--max-events, --until).
var ErrStopWatch = errors.New("stop watching")

// WatchSession runs one raw watch or, with Follow, a chain of watches that
// behaves like client-go's Reflector: reconnect from the last RV seen, relist
// on Expired or TooLarge, and reconcile the new list with what was known.
// Unlike a Reflector it reports every one of those steps.
type WatchSession struct {
	Client  *Client
	Target  Target
	Options WatchOptions
	// ListFirst lists the collection (paged, metadata only) and watches from
	// the List's RV: the correct pattern (--rv list).
	ListFirst bool
	Follow    bool
	Backoff   Backoff
	// OnEvent sees every event in order; ErrStopWatch ends the session.
	OnEvent func(Event, Observation) error
	// OnNotice sees the list, reconnects and relists.
	OnNotice func(Notice)
	// StallTimeout (0 = off) closes a stream that has sent nothing, not even
	// a bookmark, for that long, and a watch request whose answer has not
	// begun by then: an API server that hangs (or a network that drops
	// packets silently) is noticed by the client's own deadline, and with
	// Follow the session reconnects from the last RV, so nothing is lost.
	StallTimeout time.Duration

	tracker *ObjectTracker
	lastRV  string
	stats   SessionStats
}

// NoticeKind names what happened between streams.
type NoticeKind string

// Notice kinds.
const (
	NoticeListed    NoticeKind = "LISTED"    // --rv list: the initial List
	NoticeReconnect NoticeKind = "RECONNECT" // a stream ended or failed; watching again from the last RV
	NoticeRelist    NoticeKind = "RELIST"    // Expired or TooLarge: listed again and reconciled
)

// Notice is one step of a session that is not an event.
type Notice struct {
	Kind NoticeKind
	Time time.Time
	// Reason is why a reconnect or a relist happened.
	Reason string
	// Failure classifies the error behind Reason, when there was one.
	Failure Failure
	// Err is the error behind Reason (HTTP status or network), when there was one.
	Err error
	// FromResourceVersion is the RV the next watch (or the relist) starts from.
	FromResourceVersion string
	Delay               time.Duration
	// For LISTED and RELIST: the List's RV, its size, the RVs tried in
	// order ("" is the consistent read of last resort), the RVs skipped
	// since the last one seen, and what changed meanwhile.
	ListResourceVersion string
	Items               int
	Tried               []string
	SkippedRVs          uint64
	Gap                 *Gap
}

// SessionStats count what a session did.
type SessionStats struct {
	Streams    int    `json:"streams"`
	Reconnects int    `json:"reconnects"`
	Relists    int    `json:"relists"`
	Reconciled int    `json:"reconciledByRelist"`
	Duplicates int    `json:"duplicates"`
	LastRV     string `json:"lastResourceVersion,omitempty"`
}

// Backoff is the delay between failed attempts: exponential with jitter and
// a cap, as client-go's Reflector does (800 ms doubling up to 30 s).
type Backoff struct {
	Initial, Max time.Duration
	next         time.Duration
}

// Delay returns the next delay, with up to 50% jitter.
func (b *Backoff) Delay() time.Duration {
	if b.Initial <= 0 {
		b.Initial = 800 * time.Millisecond
	}
	if b.Max <= 0 {
		b.Max = 30 * time.Second
	}
	if b.next == 0 {
		b.next = b.Initial
	}
	d := b.next
	b.next = min(2*b.next, b.Max)
	return d + time.Duration(rand.Int64N(int64(d)/2+1))
}

// Reset starts the backoff over after a success.
func (b *Backoff) Reset() { b.next = 0 }

// Stats returns the counts so far.
func (s *WatchSession) Stats() SessionStats { st := s.stats; st.LastRV = s.lastRV; return st }

// Tracker is the object state the session has built.
func (s *WatchSession) Tracker() *ObjectTracker { return s.tracker }

// streamEnd is how one stream ended.
type streamEnd struct {
	stop    bool    // the callback asked to stop
	broken  bool    // reading failed (not an ERROR event, not a clean end)
	expired bool    // an Expired or TooLarge ERROR event
	reason  string  // for the reconnect notice
	failure Failure // the class of the ERROR event or read error
	err     error
	events  int
}

// Run watches until the stream ends (or, with Follow, until ctx ends or the
// callback stops it). Without Follow an HTTP error status is returned as is;
// with Follow only errors a Reflector would not retry are returned.
func (s *WatchSession) Run(ctx context.Context) error {
	s.tracker = NewObjectTracker()
	opts := s.Options
	if opts.RVSet {
		s.lastRV = opts.ResourceVersion
	}
	if s.ListFirst {
		n, err := s.list(ctx, []string{""})
		if err != nil {
			return err
		}
		s.lastRV = n.ListResourceVersion
		opts = WatchOptions{ResourceVersion: n.ListResourceVersion, RVSet: true, AllowBookmarks: opts.AllowBookmarks || s.Follow, TimeoutSeconds: opts.TimeoutSeconds}
		s.notify(n)
	}
	needRelist, relistReason := false, ""
	var relistErr error
	// unproductive: the last relist was followed by another Expired before
	// any event; then the next relist is a consistent read, after a backoff
	// (client-go's isLastSyncResourceVersionUnavailable), never a tight loop.
	relisted, unproductive := false, false
	for {
		if ctx.Err() != nil {
			return nil
		}
		if needRelist {
			if unproductive && !s.sleep(ctx, Notice{Kind: NoticeReconnect, Reason: "the watch from the relist's RV failed again: " + relistReason, Err: relistErr, Failure: ClassifyFailure(relistErr), FromResourceVersion: s.lastRV}) {
				return nil
			}
			if err := s.relist(ctx, relistReason, relistErr, unproductive); err != nil {
				if ctx.Err() != nil || !retryable(ClassifyFailure(err)) {
					return err
				}
				if !s.sleep(ctx, Notice{Kind: NoticeReconnect, Reason: "relist failed: " + err.Error(), Err: err, Failure: ClassifyFailure(err), FromResourceVersion: s.lastRV}) {
					return nil
				}
				continue
			}
			needRelist, relisted = false, true
			opts = s.resumeOptions(opts)
		}
		stream, streamCtx, err := s.open(ctx, opts)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if streamCtx.Err() != nil {
				err = &StalledError{After: s.StallTimeout, Opening: true}
			}
			f := ClassifyFailure(err)
			if !s.Follow {
				return err
			}
			if f == FailureExpired || f == FailureTooLarge {
				unproductive = relisted
				needRelist, relistReason, relistErr = true, err.Error(), err
				continue
			}
			if !retryable(f) {
				return err
			}
			if !s.sleep(ctx, Notice{Kind: NoticeReconnect, Reason: err.Error(), Err: err, Failure: f, FromResourceVersion: s.lastRV}) {
				return nil
			}
			continue
		}
		s.stats.Streams++
		opened := time.Now()
		end := s.drainWatched(stream)
		stream.Close()
		if end.stop || ctx.Err() != nil {
			return nil
		}
		if !s.Follow {
			if end.broken {
				return end.err
			}
			return nil
		}
		opts = s.resumeOptions(opts)
		if end.expired {
			unproductive = relisted && end.events <= 1
			needRelist, relistReason, relistErr = true, end.reason, end.err
			continue
		}
		if end.events > 0 {
			relisted, unproductive = false, false
			s.Backoff.Reset()
		}
		n := Notice{Kind: NoticeReconnect, Reason: end.reason, Err: end.err, Failure: end.failure, FromResourceVersion: s.lastRV}
		if end.err == nil && (end.events > 0 || time.Since(opened) > time.Second) {
			// A stream the server ended normally (timeoutSeconds): a
			// Reflector watches again at once.
			s.Backoff.Reset()
			s.stats.Reconnects++
			n.Time = time.Now()
			s.notify(n)
			continue
		}
		if !s.sleep(ctx, n) {
			return nil
		}
	}
}

// resumeOptions are the options of the next watch: from the last RV seen,
// with bookmarks so that a quiet stream still advances it.
func (s *WatchSession) resumeOptions(o WatchOptions) WatchOptions {
	if s.lastRV == "" {
		// Nothing seen yet: the state is asked for again, as on the first watch.
		return o
	}
	return WatchOptions{ResourceVersion: s.lastRV, RVSet: true, AllowBookmarks: true, TimeoutSeconds: o.TimeoutSeconds}
}

// sleep notifies a reconnect and waits its backoff; false when ctx ended.
func (s *WatchSession) sleep(ctx context.Context, n Notice) bool {
	n.Delay = s.Backoff.Delay()
	n.Time = time.Now()
	s.stats.Reconnects++
	s.notify(n)
	t := time.NewTimer(n.Delay)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

func (s *WatchSession) notify(n Notice) {
	if s.OnNotice != nil {
		s.OnNotice(n)
	}
}

// StalledError says the server sent nothing for longer than StallTimeout.
type StalledError struct {
	After   time.Duration
	Opening bool // no answer to the watch request itself
}

func (e *StalledError) Error() string {
	if e.Opening {
		return fmt.Sprintf("no answer to the watch request within %s (--stall-timeout): the API server or the network hangs", e.After)
	}
	return fmt.Sprintf("no data from the server for %s, not even a bookmark (--stall-timeout): the stream was closed as stalled", e.After)
}

// Timeout marks a stall as a timeout (retryable, like client-go's).
func (e *StalledError) Timeout() bool { return true }

// open opens a watch whose request is abandoned if its answer has not begun
// within StallTimeout. The returned context is the stream's.
func (s *WatchSession) open(ctx context.Context, opts WatchOptions) (*WatchStream, context.Context, error) {
	if s.StallTimeout <= 0 {
		stream, err := s.Client.OpenWatch(ctx, s.Target, opts)
		return stream, ctx, err
	}
	octx, cancel := context.WithCancel(ctx)
	timer := time.AfterFunc(s.StallTimeout, cancel)
	stream, err := s.Client.OpenWatch(octx, s.Target, opts)
	timer.Stop()
	if err != nil {
		cancel()
	}
	return stream, octx, err
}

// drainWatched is drain under the stall watchdog.
func (s *WatchSession) drainWatched(stream *WatchStream) streamEnd {
	if s.StallTimeout <= 0 {
		return s.drain(stream, nil)
	}
	var stalled atomic.Bool
	timer := time.AfterFunc(s.StallTimeout, func() {
		stalled.Store(true)
		stream.cancel()
	})
	defer timer.Stop()
	end := s.drain(stream, func() { timer.Reset(s.StallTimeout) })
	if stalled.Load() && !end.stop {
		err := &StalledError{After: s.StallTimeout}
		end.reason, end.err, end.failure, end.broken, end.expired = err.Error(), err, FailureTimeout, true, false
	}
	return end
}

// drain reads one stream to its end; alive (may be nil) is called at every
// event.
func (s *WatchSession) drain(stream *WatchStream, alive func()) streamEnd {
	var end streamEnd
	for {
		ev, err := stream.Next()
		if alive != nil && err == nil {
			alive()
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				end.reason = "the server ended the stream"
			} else {
				end.reason, end.err, end.failure, end.broken = "the stream broke: "+err.Error(), err, ClassifyFailure(err), true
			}
			return end
		}
		end.events++
		var obs Observation
		switch ev.Type {
		case EventError:
			serr := apierrors.FromObject(ev.Status)
			end.failure = ClassifyFailure(serr)
			end.err = serr
			end.reason = "ERROR event: " + serr.Error()
			end.expired = end.failure == FailureExpired || end.failure == FailureTooLarge
		case EventBookmark:
			s.advance(ev.Object.ResourceVersion)
		default:
			obs = s.tracker.Observe(ev.Type, ev.Object)
			if obs.Duplicate {
				s.stats.Duplicates++
			} else {
				s.advance(ev.Object.ResourceVersion)
			}
		}
		if s.OnEvent != nil {
			if err := s.OnEvent(ev, obs); err != nil {
				end.stop = true
				return end
			}
		}
		if ev.Type == EventError {
			// The server closes the stream after an ERROR event.
			return end
		}
	}
}

// advance moves the last RV seen forward (never back).
func (s *WatchSession) advance(rv string) {
	if rv != "" && (s.lastRV == "" || rvAfter(rv, s.lastRV)) {
		s.lastRV = rv
	}
}

// retryable are the failures a Reflector keeps retrying through.
func retryable(f Failure) bool {
	switch f {
	case FailureUnreachable, FailureServer, FailureTimeout, FailureThrottled, FailureOther:
		return true
	}
	return false
}
