package follow

import (
	"context"
	"time"

	"k8s.io/utils/clock"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
)

// clock is the session's clock: Session.Clock, or the real one. Every time
// that decides what the session does (backoff waits, the stall watchdog,
// "open for more than a second", the failure streak's start) is read from
// it, as client-go's Reflector reads its clock.Clock, so that tests drive
// reconnects, relists and stalls without waiting.
func (s *Session) clock() clock.WithDelayedExecution {
	if s.Clock == nil {
		return clock.RealClock{}
	}
	return s.Clock
}

// wait waits d on the session's clock, or until ctx ends (then ctx's error).
func (s *Session) wait(ctx context.Context, d time.Duration) error {
	return apiclient.WaitOn(ctx, s.clock(), d)
}
