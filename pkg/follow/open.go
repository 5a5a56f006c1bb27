package follow

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptrace"
	"sync/atomic"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/watchstream"
)

// OpenStage is how far a watch request got before it was given up: what
// "no answer" means for it.
type OpenStage string

// Stages of a watch request, as net/http's client trace sees them.
const (
	// StageNotSent: the request never reached the network. client-go's
	// exec credential plugin runs before the connection is asked for (and
	// ignores the request's context), and so does its rate limiter.
	StageNotSent OpenStage = "not-sent"
	// StageConnecting: a connection was asked for and not made.
	StageConnecting OpenStage = "connecting"
	// StageSent: the request went out; no response headers came.
	StageSent OpenStage = "sent"
)

// noAnswer is the message of a request given up at this stage; within says
// when ("within 2s (--stall-timeout)").
func (st OpenStage) noAnswer(within, plugin string, sent apiclient.Sent) string {
	switch st {
	case StageNotSent:
		if plugin != "" {
			return fmt.Sprintf("no answer to the watch request %s: it never reached the network, because the kubeconfig's credential plugin (exec %q) had not returned", within, plugin)
		}
		return fmt.Sprintf("no answer to the watch request %s: it never reached the network (client-go's rate limiter, or credentials not yet acquired)", within)
	case StageConnecting:
		return fmt.Sprintf("no answer to the watch request %s: no connection to the API server could be made: the API server or the network hangs", within)
	}
	if again := sent.Again(); again != "" {
		return fmt.Sprintf("no answer to the watch request %s: %s", within, again)
	}
	return fmt.Sprintf("no answer to the watch request %s: it was sent and no response headers came: the API server or the network hangs", within)
}

// openTrace follows one request through net/http's client trace; sends
// counts the times net/http sent it (apiclient.Sent: the meter's count).
type openTrace struct {
	network, wrote, answering atomic.Bool
	sends                     apiclient.SendCounter
}

func (t *openTrace) context(ctx context.Context) context.Context {
	return httptrace.WithClientTrace(t.sends.Trace(ctx, nil), &httptrace.ClientTrace{
		GetConn:              func(string) { t.network.Store(true) },
		GotConn:              func(httptrace.GotConnInfo) { t.network.Store(true) },
		WroteRequest:         func(httptrace.WroteRequestInfo) { t.wrote.Store(true) },
		GotFirstResponseByte: func() { t.answering.Store(true) },
	})
}

// lateAnswer is how long a request given up after its answer began may
// take to return it: its body's read ends at once with the request's
// context, and an error answer's status is read from its head.
const lateAnswer = time.Second

func (t *openTrace) stage() OpenStage {
	switch {
	case t.wrote.Load():
		return StageSent
	case t.network.Load():
		return StageConnecting
	}
	return StageNotSent
}

// openWatch opens a watch whose request is given up when its answer has
// not begun within StallTimeout, or when ctx ends: the request runs aside,
// so that neither a credential plugin (client-go runs it without the
// request's context) nor a connection that hangs holds the run past its
// time. Only those deadlines make a StalledError; any other failure (403,
// 401, TLS, 400, 410, 504) is returned as it is. release ends the
// request's context once the stream is closed.
func (s *Session) openWatch(ctx context.Context, opts watchstream.Options) (stream *watchstream.Stream, release func(), err error) {
	s.trace("GET %s", apiclient.URL(s.Target.CollectionPath(), opts.Query(s.Target)))
	octx, cancel := context.WithCancel(ctx)
	var stalled atomic.Bool
	if s.StallTimeout > 0 {
		timer := s.clock().AfterFunc(s.StallTimeout, func() { stalled.Store(true); cancel() })
		defer timer.Stop()
	}
	type answer struct {
		stream *watchstream.Stream
		err    error
	}
	var tr openTrace
	answered := make(chan answer, 1)
	asked := s.clock().Now()
	go func() {
		st, err := watchstream.Open(tr.context(octx), s.Client, s.Target, opts)
		answered <- answer{st, err}
	}()
	var a answer
	select {
	case a = <-answered:
	case <-octx.Done():
		a.err = octx.Err()
		drained := false
		if tr.answering.Load() {
			// The answer had begun (a 410 whose body trickled): its
			// status is what the server said, never "no response
			// headers came" (adversary try 12).
			select {
			case late := <-answered:
				drained = true
				if late.stream != nil {
					late.stream.Close()
				}
				if diagnose.IsAnswer(late.err) {
					a.err = late.err
				}
			case <-time.After(lateAnswer):
			}
		}
		if !drained {
			// Given up: a stream that still arrives is closed unread.
			go func() {
				if late := <-answered; late.stream != nil {
					late.stream.Close()
				}
				cancel()
			}()
		}
	}
	if a.err == nil {
		return a.stream, cancel, nil
	}
	cancel()
	if diagnose.IsAnswer(a.err) {
		return nil, nil, a.err
	}
	waited := s.clock().Since(asked).Round(time.Millisecond)
	switch {
	case stalled.Load() && ctx.Err() == nil:
		return nil, nil, &StalledError{After: s.StallTimeout, Opening: true, Stage: tr.stage(), Sent: tr.sends.Sent(), CredentialPlugin: s.CredentialPlugin}
	case errors.Is(ctx.Err(), context.DeadlineExceeded) && (errors.Is(a.err, context.DeadlineExceeded) || errors.Is(a.err, context.Canceled)):
		return nil, nil, &deadlineError{StalledError{After: waited, Opening: true, AtDeadline: true, Stage: tr.stage(), Sent: tr.sends.Sent(), CredentialPlugin: s.CredentialPlugin}}
	}
	return nil, nil, a.err
}

// deadlineError is a request given up at the run's deadline: a StalledError
// that is also context.DeadlineExceeded, so that the session knows its time
// is up (outOfTime) and still reports how far the request got.
type deadlineError struct{ StalledError }

func (e *deadlineError) Unwrap() []error { return []error{&e.StalledError, context.DeadlineExceeded} }
