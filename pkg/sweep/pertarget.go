package sweep

// Targets measured at the same time wait out their retries at the same
// time: the run's sum of waits is no target's, and its first retry's
// cause is one target's. A run whose rows each say their own retries
// (servers.Server.RetryWait) marks its error so, and the final error line
// then says the sum as one over targets that waited at once, never as a
// wait of the target the line names (adversary try 28 F3: "after 6
// retries and 4.60 s waiting" of parallel 1 s waits, appended to a line
// about a server that was sent nothing again).

// RetriesPerTarget is the mark (errors.As finds it through wrapping).
type RetriesPerTarget interface{ RetriesPerTarget() bool }

// WithRetriesPerTarget marks err, a PartialError or a NoneError, as a
// run's whose rows each say their own retries; any other err as it is.
func WithRetriesPerTarget(err error) error {
	switch e := err.(type) {
	case *PartialError:
		e.PerTarget = true
	case *NoneError:
		e.PerTarget = true
	}
	return err
}

func (e *PartialError) RetriesPerTarget() bool { return e.PerTarget }
func (e *NoneError) RetriesPerTarget() bool    { return e.PerTarget }
