package streaming

import "github.com/watchrv/kubectl-watchrv/pkg/diagnose"

// Outcome is what one resource's check means for the run: the one rule
// behind streaming's exit code, for one resource and for --all
// (docs/streaming.md, "Exit code").
type Outcome string

const (
	// OutcomeSyncs: the initial-events-end bookmark arrived and the
	// informer syncs from the stream (correct, or unverified when the list
	// to compare with failed). Exit 0.
	OutcomeSyncs Outcome = "syncs"
	// OutcomeDefect: the server streams, and an informer built on it
	// hangs or syncs a state that does not match a list. Exit 1, for one
	// resource and for --all whatever else happened: a verdict of its own.
	OutcomeDefect Outcome = "defect"
	// OutcomeNoStream: the server answered, but not with a streaming list:
	// it refused it (400, 410, 422, 500, an ERROR event, ...) or ended it
	// at once; the informer falls back or retries. Exit 1; in --all the
	// resource failed (12 when others answered, 1 when none did).
	OutcomeNoStream Outcome = "no-stream"
	// OutcomeFailed: the check could not be made: a request of it failed
	// for a reason of its own (401, 403, 429, no connection, TLS: that
	// failure's own exit code) or the check could not finish (exit 1). In
	// --all the resource failed.
	OutcomeFailed Outcome = "failed"
)

// Outcome applies the rule to the result.
func (r Result) Outcome() Outcome {
	if r.RequestFailure() != diagnose.FailureNone {
		return OutcomeFailed
	}
	switch {
	case r.Status == StatusCorrect || r.Status == StatusUnverified:
		return OutcomeSyncs
	case r.Status == StatusIncorrect || r.Informer == InformerHangs:
		return OutcomeDefect
	case r.Status == StatusError:
		return OutcomeFailed
	}
	return OutcomeNoStream
}
