package follow

import (
	"context"
	"errors"
	"io"
	"sync/atomic"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/watchstream"
)

// streamEnd is how one stream ended.
type streamEnd struct {
	callbackErr error            // the callback failed or asked to stop
	broken      bool             // reading failed (not an ERROR event, not a clean end)
	expired     bool             // an Expired or TooLarge ERROR event
	reason      string           // for the reconnect notice
	failure     diagnose.Failure // the class of the ERROR event or read error
	err         error
	events      int
	good        int // events other than ERROR
}

// openWatch opens a watch whose request is abandoned if its answer has not
// begun within StallTimeout. Only that deadline makes a StalledError: any
// other failure (403, 401, TLS, 400, 410, 504) is returned as it is.
func (s *Session) openWatch(ctx context.Context, opts watchstream.Options) (*watchstream.Stream, error) {
	s.trace("GET %s", apiclient.URL(s.Target.CollectionPath(), opts.Query(s.Target)))
	if s.StallTimeout <= 0 {
		return watchstream.Open(ctx, s.Client, s.Target, opts)
	}
	octx, cancel := context.WithCancel(ctx)
	var stalled atomic.Bool
	timer := s.clock().AfterFunc(s.StallTimeout, func() { stalled.Store(true); cancel() })
	stream, err := watchstream.Open(octx, s.Client, s.Target, opts)
	timer.Stop()
	if err != nil {
		cancel()
		if stalled.Load() && ctx.Err() == nil {
			return nil, &StalledError{After: s.StallTimeout, Opening: true}
		}
		return nil, err
	}
	return stream, nil
}

// readStream reads one stream to its end, under the stall watchdog.
func (s *Session) readStream(stream *watchstream.Stream) streamEnd {
	if s.StallTimeout <= 0 {
		return s.drain(stream, nil)
	}
	var stalled atomic.Bool
	timer := s.clock().AfterFunc(s.StallTimeout, func() {
		stalled.Store(true)
		stream.Close()
	})
	defer timer.Stop()
	end := s.drain(stream, func() { timer.Reset(s.StallTimeout) })
	if stalled.Load() && end.callbackErr == nil {
		err := &StalledError{After: s.StallTimeout}
		end.reason, end.err, end.failure, end.broken, end.expired = err.Error(), err, diagnose.FailureNoAnswer, true, false
	}
	return end
}

// drain reads events until the stream ends; alive (may be nil) is called at
// every event.
func (s *Session) drain(stream *watchstream.Stream, alive func()) streamEnd {
	var end streamEnd
	for {
		ev, err := stream.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				end.reason = "the server ended the stream"
			} else {
				end.reason, end.err, end.failure, end.broken = "the stream broke: "+err.Error(), err, diagnose.ClassifyFailure(err), true
			}
			return end
		}
		if alive != nil {
			alive()
		}
		end.events++
		if ev.Type != watchstream.EventError {
			end.good++
		}
		obs, last := s.handle(ev, &end)
		if s.OnEvent != nil {
			if err := s.OnEvent(ev, obs); err != nil {
				end.callbackErr = err
				return end
			}
		}
		if last {
			return end
		}
	}
}

// handle applies one event to the session's state; last is true when the
// server closes the stream after it.
func (s *Session) handle(ev watchstream.Event, end *streamEnd) (obs Observation, last bool) {
	switch ev.Type {
	case watchstream.EventError:
		serr := apierrors.FromObject(ev.Status)
		if !diagnose.ErrorEndsStream(*ev.Status) {
			// The stream goes on: report the ERROR, keep reading.
			return obs, false
		}
		end.failure = diagnose.ClassifyFailure(serr)
		end.err = serr
		end.reason = "ERROR event: " + serr.Error()
		end.expired = end.failure == diagnose.FailureExpired || end.failure == diagnose.FailureTooLarge
		if end.expired {
			s.clearResume(NoResumeRVProblem)
		}
		return obs, true
	case watchstream.EventBookmark:
		s.advance(ev.Object.ResourceVersion)
		if s.streamingList && ev.IsInitialEventsEnd() {
			s.streamingList = false
			obs.InitialEventsEnd, obs.InitialObjects = true, s.initialObjects
			// The state is complete at the bookmark's RV: from here on the
			// stream sends changes in RV order.
			s.inState = false
			s.setResume(ev.Object.ResourceVersion, ResumeFromInitialEventsEnd)
		} else {
			s.advanceResume(ev.Object.ResourceVersion, ResumeFromBookmark)
		}
	default:
		if s.inState && ev.Type == watchstream.EventAdded {
			s.stateSent++
		}
		if s.streamingList && ev.Type == watchstream.EventAdded {
			s.initialObjects++
		}
		obs = s.tracker.Observe(ev.Type, ev.Object)
		if obs.Duplicate {
			s.stats.Duplicates++
		} else {
			s.advance(ev.Object.ResourceVersion)
			s.advanceResume(ev.Object.ResourceVersion, ResumeFromEvent)
		}
	}
	return obs, false
}
